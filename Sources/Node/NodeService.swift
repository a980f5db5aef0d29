import ControlProtocol
import Coordinator
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
    /// The coordinator: routing, UAV numbers, fleet picture, commands, and (drones) the simulated vehicle.
    public let coordinator: CoordinatorShell
    /// Subscriptions to target sources (`_loc-broadcaster._udp`), if `[targets] subscribe` is on or sources are configured.
    public let targetSources: TargetSourceSubscription?
    /// Stations with `[ground_control]`: the MAVLink endpoint for ground-control software (its own `Service`).
    public let groundControl: GroundControlService?
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
        let node = MeshNode(configuration: configuration, key: key, nodeID: state.nodeID, logger: logger)
        self.node = node
        let coordinator = try CoordinatorShell(configuration: configuration, nodeID: state.nodeID,
                                               incarnation: node.incarnation, logger: logger)
        self.coordinator = coordinator
        let subscribe = configuration.subscribeToTargetSources
        targetSources = subscribe || !configuration.targetSources.isEmpty
            ? TargetSourceSubscription(node: state.nodeID, name: configuration.name, meshKey: key.bytes, fingerprint: key.fingerprint,
                                       staticSources: configuration.targetSources, browse: subscribe && configuration.discover,
                                       coordinator: coordinator, logger: logger)
            : nil
        groundControl = configuration.groundControl.map {
            GroundControlService(configuration: $0, name: configuration.name, coordinator: coordinator, logger: logger)
        }
    }

    public var description: String { "NodeService(\(configuration.name))" }

    public func run() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let transport = try await UDPTransport.bind(port: configuration.port, group: group, logger: logger)
        await node.attach(transport)
        let coordinator = self.coordinator
        await node.setUAVNumber(coordinator.initialUAVNumber.map(Int.init))
        let ad = await node.advertisement
        logger.info("node \(configuration.name) (\(node.nodeID)) \(configuration.role.rawValue) listening on UDP \(transport.port), mesh \(node.fingerprint)")

        let discovery = (configuration.advertise || configuration.discover) ? AvahiDiscovery(
            advertisement: configuration.advertise
                ? ServiceAdvertisement(name: configuration.name, type: NodeConfiguration.serviceType, port: UInt16(transport.port), txt: ad.txt)
                : nil,
            browse: configuration.discover ? [NodeConfiguration.serviceType] : [],
            logger: logger) : nil
        let node = self.node
        let targetSources = self.targetSources
        let control = ControlServer(path: configuration.controlSocket, group: group, logger: logger) { request in
            await Self.handle(request, node: node, coordinator: coordinator, targetSources: targetSources)
        }

        // A part that fails (the control socket cannot be bound, Avahi cannot be reached at all, …) stops the node
        // with its error instead of leaving it running without that part.
        let (failures, failed) = AsyncStream.makeStream(of: NodeFailure.self)
        let logger = self.logger
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                func essential(_ part: String, _ body: @escaping @Sendable () async throws -> Void) {
                    tasks.addTask {
                        do { try await body() } catch is CancellationError {} catch {
                            logger.critical("\(part) failed: \(error); stopping the node")
                            failed.yield(NodeFailure(part: part, underlying: "\(error)"))
                        }
                    }
                }
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
                    essential("discovery") { try await discovery.run() }
                    tasks.addTask {
                        for await event in discovery.events { await node.discovery(event) }
                    }
                }
                tasks.addTask {
                    for await event in node.events { await coordinator.handle(event) }
                }
                tasks.addTask {
                    // The coordinator's timers and the simulated vehicle: one tick every 50 ms.
                    let clock = ContinuousClock()
                    var next = clock.now
                    while !Task.isCancelled {
                        next = next.advanced(by: CoordinatorShell.tickInterval)
                        try? await clock.sleep(until: next)
                        await coordinator.tick()
                    }
                }
                if let link = coordinator.autopilotLink {
                    // A drone's autopilot over MAVLink: the link's bytes go to the coordinator shell's vehicle.
                    tasks.addTask { await link.run { bytes, end in await coordinator.autopilotReceived(bytes, endOfDatagram: end) } }
                }
                tasks.addTask {
                    // The coordinator's sends and number changes, in the order its core produced them.
                    for await out in coordinator.output {
                        switch out {
                        case .send(let type, let payload, let to, let reliable):
                            if reliable { await node.sendReliable(type, payload, to: to) } else { await node.sendUnreliable(type, payload, to: to) }
                        case .uavNumber(let n, let updateTXT):
                            await node.setUAVNumber(n.map(Int.init))
                            if updateTXT, configuration.advertise { discovery?.updateTXT(await node.advertisement.txt) }
                        case .refreshTXT:
                            if configuration.advertise { discovery?.updateTXT(await node.advertisement.txt) }
                        }
                    }
                }
                if let targetSources {
                    essential("target-source subscription") { try await targetSources.run(group: group) }
                }
                essential("control socket \(configuration.controlSocket)") { try await control.run() }
                // Runs until graceful shutdown or a part's failure: then goodbyes go out, Avahi withdraws, the
                // socket closes.
                tasks.addTask {
                    try? await gracefulShutdown()
                    failed.finish()
                }
                var failure: NodeFailure?
                for await f in failures { failure = f; break }
                // Goodbyes are queued on the channel's event loop before the close, so they leave first.
                await node.leave()
                await transport.close()
                tasks.cancelAll()
                if let failure { throw failure }
            }
        } onGracefulShutdown: {}
    }

    /// A part of the node that stopped with an error; the node stops with it.
    public struct NodeFailure: Error, CustomStringConvertible {
        public let part: String
        public let underlying: String
        public var description: String { "\(part) failed: \(underlying)" }
    }

    /// One control request (already checked field by field when it was decoded). What only the node can check —
    /// the drone command's words, the target's coordinates, whether an origin is known — gets a precise error here;
    /// the node keeps running.
    static func handle(_ request: ControlRequest, node: MeshNode, coordinator: CoordinatorShell,
                       targetSources: TargetSourceSubscription?) async -> ControlResponse {
        switch request {
        case .status, .peers:
            return ControlResponse(status: await coordinator.annotate(await node.status()))
        case .vehicles:
            return ControlResponse(vehicles: await coordinator.vehicles())
        case .airspace:
            return ControlResponse(airspace: await coordinator.airspace())
        case .sources:
            return ControlResponse(sources: await targetSources?.report()
                ?? TargetSourcesReport(subscribing: false, port: nil, sources: [], rejected: [:]))
        case .origin:
            guard let origin = await coordinator.origin() else {
                return ControlResponse(error: "origin: no map origin known yet (a station announces one from its [mission] origin)")
            }
            return ControlResponse(origin: origin)
        case .send(let send):
            let command: Command
            do {
                command = try FleetCommandParser.parse(send.args)
            } catch {
                return ControlResponse(error: "send: \(error)")
            }
            return ControlResponse(command: await coordinator.send(command, toUAV: UInt8(send.uav), takeover: send.takeover,
                                                                   timeout: .milliseconds(send.timeoutMs)))
        case .target(let target):
            let location: GeoPoint
            do {
                location = try FleetCommandParser.position(target.latitude, target.longitude, target.altitude)
            } catch {
                return ControlResponse(error: "target: \(error)")
            }
            let uav: UInt8? = switch target.to {
            case .uav(let n): UInt8(n)
            case .all: nil
            }
            return ControlResponse(target: await coordinator.target(location, uav: uav, follow: target.follow,
                                                                    timeout: .milliseconds(target.timeoutMs)))
        case .manual(let m):
            let a = m.axes.map { Int16($0) }
            let report = await coordinator.streamManualControl(
                (a[0], a[1], a[2], a[3]), to: m.uavs.map { UInt8($0) }, rate: m.rateHz, duration: .milliseconds(m.durationMs),
                takeover: m.takeover)
            return ControlResponse(manual: report)
        }
    }
}
