import Discovery
import Foundation
import Logging
import MeshTypes
import NIOCore
import NIOPosix
import SecureTransport
import ServiceLifecycle

/// A FleetMesh node as a `Service`: binds the UDP socket, publishes and browses over Avahi, runs the mesh
/// actor's timers and the control socket. On graceful shutdown it says goodbye to every peer, withdraws its
/// DNS-SD record and returns.
public struct NodeService: Service, CustomStringConvertible {
    public let configuration: NodeConfiguration
    public let node: MeshNode
    private let logger: Logger

    /// Loads the key file and state directory; errors name the file and the problem.
    public init(configuration: NodeConfiguration, logger: Logger) throws {
        let keyText: String
        do {
            keyText = try String(contentsOfFile: configuration.keyFile, encoding: .utf8)
        } catch {
            throw ConfigError(file: configuration.keyFile, field: "", problem:
                "cannot read the mesh key file (\(NodeConfiguration.reason(error))); make one with `fleetmesh keygen \(configuration.keyFile)`")
        }
        let key: MeshKey
        do {
            key = try MeshKey(fileContents: keyText, path: configuration.keyFile)
        } catch {
            throw ConfigError(file: configuration.keyFile, field: "", problem: "\(error)")
        }
        let state = try NodeState.open(directory: configuration.stateDirectory)
        self.configuration = configuration
        self.logger = logger
        self.node = MeshNode(configuration: configuration, key: key, nodeID: state.nodeID, logger: logger)
    }

    public var description: String { "NodeService(\(configuration.name))" }

    public func run() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let transport = try await UDPTransport.bind(port: configuration.port, group: group, logger: logger)
        await node.attach(transport)
        let ad = await node.advertisement
        logger.info("node \(configuration.name) (\(node.nodeID)) \(configuration.role.rawValue) listening on UDP \(transport.port), mesh \(node.fingerprint)")

        let discovery = (configuration.advertise || configuration.discover) ? AvahiDiscovery(
            advertisement: configuration.advertise
                ? ServiceAdvertisement(name: configuration.name, type: NodeConfiguration.serviceType, port: UInt16(transport.port), txt: ad.txt)
                : nil,
            browse: configuration.discover ? [NodeConfiguration.serviceType] : [],
            logger: logger) : nil
        let node = self.node
        let control = ControlServer(path: configuration.controlSocket, group: group, logger: logger) { request in
            switch request.command {
            case "status", "peers": return ControlResponse(status: await node.status())
            default: return ControlResponse(error: "unknown command '\(request.command)' (known: status, peers)")
            }
        }

        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    for await datagram in transport.datagrams { await node.receive(datagram) }
                }
                tasks.addTask {
                    // The actor's timers: one tick every 10 ms drives handshakes, heartbeats and retransmissions.
                    let clock = ContinuousClock()
                    var next = clock.now
                    while !Task.isCancelled {
                        next = next.advanced(by: .milliseconds(10))
                        try? await clock.sleep(until: next)
                        await node.tick()
                    }
                }
                if let discovery {
                    tasks.addTask { try await discovery.run() }
                    tasks.addTask {
                        for await event in discovery.events { await node.discovery(event) }
                    }
                }
                tasks.addTask { try await control.run() }
                // Runs until graceful shutdown: then goodbyes go out, Avahi withdraws, the socket closes.
                try? await gracefulShutdown()
                // Goodbyes are queued on the channel's event loop before the close, so they leave first.
                await node.leave()
                await transport.close()
                tasks.cancelAll()
            }
        } onGracefulShutdown: {}
    }
}
