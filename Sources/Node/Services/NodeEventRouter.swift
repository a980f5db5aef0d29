import Discovery
import ServiceLifecycle

/// Carries events between the node's parts, in the order each produced them: DNS-SD events into the mesh actor, mesh
/// events into the coordinator, and the coordinator's sends and UAV-number changes into the mesh actor (and the
/// DNS-SD record). A `Service` that ends with the streams or on graceful shutdown.
struct NodeEventRouter: Service, CustomStringConvertible {
    let node: MeshNode
    let coordinator: CoordinatorShell
    let discovery: AvahiDiscovery?
    /// The mesh's subscription to `discovery`: peers' records and this node's own.
    let discoveryEvents: AsyncStream<DiscoveryEvent>?
    let advertise: Bool

    var description: String { "NodeEventRouter" }

    func run() async throws {
        let (node, coordinator, discovery, advertise) = (self.node, self.coordinator, self.discovery, self.advertise)
        let discoveryEvents = self.discoveryEvents
        let type = NodeConfiguration.serviceType
        try await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { tasks in
                if let discoveryEvents {
                    tasks.addTask {
                        for await event in discoveryEvents { await node.discovery(event) }
                    }
                }
                tasks.addTask {
                    for await event in node.events { await coordinator.handle(event) }
                }
                tasks.addTask {
                    for await out in coordinator.output {
                        switch out {
                        case .send(let type, let payload, let to, let reliable):
                            if reliable {
                                await node.sendReliable(type, payload, to: to)
                            } else {
                                await node.sendUnreliable(type, payload, to: to)
                            }
                        case .uavNumber(let n, let updateTXT):
                            await node.setUAVNumber(n.map(Int.init))
                            if updateTXT, advertise { discovery?.updateTXT(type: type, await node.advertisement.txt) }
                        case .refreshTXT:
                            if advertise { discovery?.updateTXT(type: type, await node.advertisement.txt) }
                        }
                    }
                }
            }
        }
    }
}
