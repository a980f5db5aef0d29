import NIOCore
import NIOPosix
import ServiceLifecycle

/// The node's timers as one `Service` on one clock: the mesh layer at its core's next deadline (handshakes,
/// heartbeats, retransmissions; `MeshAlarm`), or an event's sooner one, but at least `meshShortest` after the tick
/// before and at most `meshLongest`, and the coordinator every 50 ms (its core's timers and the drone's vehicle) on absolute
/// deadlines (a slow tick does not shift the ones after it), each in its own task. Stops on graceful shutdown.
struct NodeTickService: Service, CustomStringConvertible {
    let shell: NodeShell
    let clock: ContinuousClock
    /// A mesh tick begins at least this long after the one before ended.
    static let meshShortest = Duration.milliseconds(10)
    /// ... and at most this far: a safety net under the core's deadlines.
    static let meshLongest = Duration.milliseconds(50)

    var description: String { "NodeTickService" }

    func run() async throws {
        let (shell, clock) = (self.shell, self.clock)
        let start = clock.now
        let alarm = MeshAlarm(eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        await shell.attach(meshAlarm: alarm)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    var due = start.advanced(by: Self.meshShortest)
                    while !Task.isCancelled {
                        await alarm.wait(until: NIODeadline.now() + TimeAmount(clock.now.duration(to: due)))
                        if Task.isCancelled { return }
                        due = await shell.meshTick(due: min(due, clock.now))
                    }
                }
                tasks.addTask {
                    await clock.every(NodeShell.tickInterval, from: start) { await shell.tick() }
                }
            }
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        self = .nanoseconds(Int64(clamping: duration.wholeNanoseconds))
    }
}
