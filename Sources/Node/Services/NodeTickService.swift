import ServiceLifecycle

/// The node's timers as one `Service` on one clock: the mesh layer every 10 ms (handshakes, heartbeats,
/// retransmissions) and the coordinator every 50 ms (its core's timers and the drone's vehicle), each on absolute
/// deadlines (a slow tick does not shift the ones after it) and each in its own task. Stops on graceful shutdown.
struct NodeTickService: Service, CustomStringConvertible {
    let shell: NodeShell
    let clock: ContinuousClock
    static let meshInterval = Duration.milliseconds(10)

    var description: String { "NodeTickService" }

    func run() async throws {
        let (shell, clock) = (self.shell, self.clock)
        let start = clock.now
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    await clock.every(Self.meshInterval, from: start) { (due: ContinuousClock.Instant) in
                        await shell.meshTick(due: due)
                    }
                }
                tasks.addTask {
                    await clock.every(NodeShell.tickInterval, from: start) { await shell.tick() }
                }
            }
        }
    }
}
