import Synchronization
import Testing

@testable import Node

/// `Clock.every`, the node's timers: a grid of deadlines kept through slow ticks, and deadlines missed while a tick
/// ran late skipped rather than run back to back.
@Suite struct ClockEveryTests {
    /// A clock that only moves when told to, or when a sleep asks for a later instant (one sleeper at a time).
    final class StepClock: Clock, Sendable {
        typealias Instant = ContinuousClock.Instant
        let base = ContinuousClock.now
        private let offset = Mutex(Duration.zero)
        var now: Instant { base.advanced(by: offset.withLock { $0 }) }
        var minimumResolution: Duration { .nanoseconds(1) }
        func sleep(until deadline: Instant, tolerance: Duration?) async throws {
            let wanted = base.duration(to: deadline)
            offset.withLock { $0 = max($0, wanted) }
        }
        func advance(by d: Duration) { offset.withLock { $0 += d } }
        func ms(_ i: Instant) -> Int { Int(base.duration(to: i) / .milliseconds(1)) }
    }

    /// Runs `every` at 10 ms until `count` ticks ran; each tick takes `cost(n)` of the clock's time. Returns the
    /// deadlines the ticks were given and when each one ran, in ms after the start.
    static func run(count: Int, cost: @escaping @Sendable (Int) -> Duration) async -> [(due: Int, ran: Int)] {
        let clock = StepClock()
        let log = Mutex<[(due: Int, ran: Int)]>([])
        // Its own task, cancelled from within once `count` ticks ran (the test's task is left alone).
        let timers = Task {
            await clock.every(.milliseconds(10), from: clock.now) { due in
                let n = log.withLock { l in
                    l.append((clock.ms(due), clock.ms(clock.now)))
                    return l.count
                }
                clock.advance(by: cost(n))
                if n == count { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        await timers.value
        return log.withLock { $0 }
    }

    @Test("quick ticks run on the grid, each at its deadline")
    func quickTicksRunOnTheGrid() async {
        let ticks = await Self.run(count: 5) { _ in .milliseconds(2) }
        #expect(ticks.map(\.due) == [10, 20, 30, 40, 50])
        #expect(ticks.map(\.ran) == [10, 20, 30, 40, 50])
    }

    @Test("after a stall the ticks go on at the next deadline ahead, without making up the ones missed")
    func aStallIsNotMadeUp() async {
        // The second tick stalls 100 ms (the process was starved): deadlines 30 to 110 passed meanwhile, and 120 is due as it ends.
        let ticks = await Self.run(count: 5) { n in n == 2 ? .milliseconds(100) : .milliseconds(1) }
        #expect(ticks.map(\.due) == [10, 20, 120, 130, 140])
        #expect(ticks.allSatisfy { $0.ran == $0.due }, "\(ticks)")
    }

    @Test("ticks slower than the interval run at most once per deadline, never back to back behind the grid")
    func slowTicksDoNotFallBehind() async {
        let ticks = await Self.run(count: 6) { _ in .milliseconds(25) }
        #expect(ticks.map(\.due) == [10, 40, 70, 100, 130, 160])
        #expect(ticks.allSatisfy { $0.ran - $0.due == 0 }, "lateness grew: \(ticks)")
    }
}
