import NIOConcurrencyHelpers
import NIOCore

/// The mesh layer's alarm clock: the tick task waits on it until the core's next deadline, and an event that
/// schedules something sooner (an acknowledgement held back 5 ms, a peer's new state) brings the wait forward.
///
/// A node ticked its mesh layer every 10 ms whatever it had to do; on this kind of machine each wake-up of the tick
/// task (a timer, two threads woken) cost about 0.2 ms, about 2 % of a core for a node at rest. Waking at deadlines
/// and at most every ``NodeTickService/meshLongest`` does the same work with a fifth of the wake-ups or fewer.
///
/// The timer is a task on a NIO event loop (its epoll wait's timeout), so bringing it forward is a cancel and a new
/// schedule; the waiter is a continuation, resumed by the timer, by cancellation, or early by a stale timer (a tick
/// then finds nothing due).
final class MeshAlarm: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Void, Never>?
        var timer: Scheduled<Void>?
        var at: NIODeadline = .distantFuture
        /// Brought forward while nobody waited (between the tick's reckoning and its next wait): the next wait ends
        /// by then.
        var early: NIODeadline?
        var cancelled = false
    }

    private let state = NIOLockedValueBox(State())
    private let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Waits until `deadline`, or the earlier deadline `bringForward(to:)` sets meanwhile, or cancellation.
    func wait(until deadline: NIODeadline) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { s -> Bool in
                    if s.cancelled { return true }
                    let at = min(deadline, s.early ?? deadline)
                    s.early = nil
                    s.waiter = waiter
                    s.at = at
                    s.timer = eventLoop.scheduleTask(deadline: at) { [self] in ring() }
                    return false
                }
                if resumeNow { waiter.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
                s.cancelled = true
                s.timer?.cancel()
                return take(&s)
            }
            waiter?.resume()
        }
    }

    /// Brings the wait under way, or the next one, forward to `deadline` if that is earlier than it was set for.
    func bringForward(to deadline: NIODeadline) {
        state.withLockedValue { s in
            guard s.waiter != nil else {
                s.early = min(deadline, s.early ?? deadline)
                return
            }
            guard deadline < s.at else { return }
            s.timer?.cancel()
            s.at = deadline
            s.timer = eventLoop.scheduleTask(deadline: deadline) { [self] in ring() }
        }
    }

    private func ring() {
        state.withLockedValue { take(&$0) }?.resume()
    }

    private func take(_ s: inout State) -> CheckedContinuation<Void, Never>? {
        defer {
            s.waiter = nil
            s.timer = nil
            s.at = .distantFuture
        }
        return s.waiter
    }
}
