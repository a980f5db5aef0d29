import Logging
import ServiceLifecycle

/// The node's side of a `Type=notify` unit (packaging/systemd/fleetmesh@.service): tells systemd the node is ready
/// once its UDP socket is bound and Avahi has published its record (at once when it does not advertise), keeps a
/// status line current, feeds the watchdog from the node's own event loop, and says when it stops.
///
/// The watchdog is fed only if the node's actor answers and its mesh tick has run since the last ping: a node whose
/// actor is stuck, or whose timers stopped, is restarted by systemd.
struct SystemdService: Service, CustomStringConvertible {
    let notifier: SystemdNotifier
    let shell: NodeShell
    let advertises: Bool
    let clock: ContinuousClock
    let logger: Logger

    var description: String { "SystemdService(\(notifier.socket))" }

    /// How often readiness is looked at before the node is ready.
    static let readinessPoll = Duration.milliseconds(20)
    /// The status line's refresh without a watchdog.
    static let statusInterval = Duration.seconds(5)

    func run() async throws {
        await cancelWhenGracefulShutdown { await self.waitUntilReady() }
        guard !Task.isCancelled, !Task.isShuttingDownGracefully else { return }
        await cancelWhenGracefulShutdown { await self.feed() }
        notify([("STOPPING", "1"), ("STATUS", "stopping: telling peers goodbye")])
    }

    /// Polls readiness; says READY=1 once there (the status line meanwhile says what it waits for).
    func waitUntilReady() async {
        var reported = ""
        while !Task.isCancelled {
            let r = await shell.readiness()
            if !advertises || r.published {
                notify([("READY", "1"), ("STATUS", r.status)])
                return
            }
            if r.status != reported {
                notify([("STATUS", r.status)])
                reported = r.status
            }
            try? await clock.sleep(for: Self.readinessPoll)
        }
    }

    /// Every half watchdog period (or every `statusInterval` without one): the status line, and WATCHDOG=1 if the
    /// mesh tick ran since the last time.
    func feed() async {
        let interval = notifier.watchdogTimeout.map { $0 / 2 } ?? Self.statusInterval
        var lastTicks = await shell.readiness().meshTicks
        var next = clock.now
        while !Task.isCancelled {
            next = next.advanced(by: interval)
            try? await clock.sleep(until: next)
            if Task.isCancelled { return }
            let r = await shell.readiness()
            var fields = [("STATUS", r.status)]
            if notifier.watchdogTimeout != nil {
                if r.meshTicks != lastTicks {
                    fields.append(("WATCHDOG", "1"))
                } else {
                    logger.error("watchdog not fed: the mesh tick has not run for \(interval)")
                }
            }
            lastTicks = r.meshTicks
            notify(fields)
        }
    }

    /// Sends `fields`; a refusal is logged and the node runs on.
    func notify(_ fields: [(String, String)]) {
        do {
            try notifier.send(fields)
        } catch {
            logger.warning("\(error)")
        }
    }
}

extension NodeShell {
    /// What systemd is told: whether the mesh record is published, a one-line status, and how far the mesh tick has
    /// run.
    func readiness() -> (published: Bool, status: String, meshTicks: UInt64) {
        let peers = node.mesh.membership.peers.values
        let inSession = peers.filter { $0.state == .established || $0.state == .suspect }.count
        let port = transport?.port ?? 0
        let status: String
        if let published = publishedName {
            status = "in the mesh as \(published) on UDP \(port): \(inSession) of \(peers.count) peers in session"
        } else {
            status = "on UDP \(port), not yet published; Avahi: \(avahiState)"
        }
        return (publishedName != nil, status, meshTicks)
    }
}
