import Discovery
import ServiceLifecycle

/// Carries the mesh's DNS-SD events (peers' records, this node's own record, the daemon's comings and goings) from
/// the process's Avahi client into the node's actor, in the order Avahi reported them. A `Service` that ends with
/// the stream or on graceful shutdown.
struct DiscoveryEventService: Service, CustomStringConvertible {
    let shell: NodeShell
    let events: AsyncStream<DiscoveryEvent>

    var description: String { "DiscoveryEventService" }

    func run() async throws {
        let (shell, events) = (self.shell, self.events)
        await cancelWhenGracefulShutdown {
            for await event in events { await shell.discovered(event) }
        }
    }
}
