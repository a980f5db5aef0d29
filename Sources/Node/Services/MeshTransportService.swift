import ServiceLifecycle

/// The node's UDP socket as a `Service`: every datagram that arrives goes to the node's actor. On graceful shutdown it
/// says goodbye to every peer (queued before the close, so the goodbyes leave first) and closes the socket. Listed
/// first in the group, so it stops last: the other parts are down before the peers are told.
struct MeshTransportService: Service, CustomStringConvertible {
    let shell: NodeShell
    let transport: UDPTransport

    var description: String { "MeshTransportService(UDP \(transport.port))" }

    func run() async throws {
        let (shell, transport) = (self.shell, self.transport)
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                for await datagram in transport.datagrams { await shell.receive(datagram) }
            }
            // Until the node shuts down (or the group is cancelled).
            try? await gracefulShutdown()
            await shell.leave()
            await transport.close()
            await tasks.waitForAll()
        }
    }
}
