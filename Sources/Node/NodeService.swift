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
            if request.command == "sources" {
                return ControlResponse(sources: await targetSources?.report()
                    ?? TargetSourcesReport(subscribing: false, port: nil, sources: [], rejected: [:]))
            }
            return await Self.handle(request, node: node, coordinator: coordinator)
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

    static let knownCommands = "status, peers, vehicles, airspace, send, target, origin, sources, manual"

    /// One control request. Bad input gets a precise error; the node keeps running.
    static func handle(_ request: ControlRequest, node: MeshNode, coordinator: CoordinatorShell) async -> ControlResponse {
        switch request.command {
        case "status", "peers":
            return ControlResponse(status: await coordinator.annotate(await node.status()))
        case "vehicles":
            return ControlResponse(vehicles: await coordinator.vehicles())
        case "airspace":
            return ControlResponse(airspace: await coordinator.airspace())
        case "origin":
            guard let origin = await coordinator.origin() else {
                return ControlResponse(error: "origin: no map origin known yet (a station announces one from its [mission] origin)")
            }
            return ControlResponse(origin: origin)
        case "send":
            guard let uav = request.uav, (1...250).contains(uav) else {
                return ControlResponse(error: "send: \"uav\" must be a UAV number 1–250, found \(request.uav.map(String.init) ?? "none")")
            }
            let command: Command
            do {
                command = try FleetCommandParser.parse(request.args ?? [])
            } catch {
                return ControlResponse(error: "send: \(error)")
            }
            let timeoutMs = request.timeoutMs ?? 30_000
            guard (1...600_000).contains(timeoutMs) else {
                return ControlResponse(error: "send: \"timeoutMs\" must be 1–600000, found \(timeoutMs)")
            }
            return ControlResponse(command: await coordinator.send(command, toUAV: UInt8(uav), takeover: request.takeover ?? false,
                                                                   timeout: .milliseconds(timeoutMs)))
        case "target":
            guard let lat = request.latitude, let lon = request.longitude, let alt = request.altitude else {
                return ControlResponse(error: "target: \"latitude\", \"longitude\" and \"altitude\" are required")
            }
            let location: GeoPoint
            do {
                location = try FleetCommandParser.position(lat, lon, alt)
            } catch {
                return ControlResponse(error: "target: \(error)")
            }
            let all = request.all ?? false
            if let uav = request.uav {
                guard !all else { return ControlResponse(error: "target: give either \"uav\" or \"all\", not both") }
                guard (1...250).contains(uav) else { return ControlResponse(error: "target: \"uav\" must be a UAV number 1–250, found \(uav)") }
            } else if !all {
                return ControlResponse(error: "target: say which drones: \"uav\" (1–250) or \"all\": true")
            }
            let timeoutMs = min(max(request.timeoutMs ?? 10_000, 1), 600_000)
            return ControlResponse(target: await coordinator.target(location, uav: request.uav.map { UInt8($0) },
                                                                    follow: request.follow ?? false, timeout: .milliseconds(timeoutMs)))
        case "manual":
            let numbers = request.uavs ?? request.uav.map { [$0] } ?? []
            guard !numbers.isEmpty, numbers.count <= 250, numbers.allSatisfy({ (1...250).contains($0) }) else {
                return ControlResponse(error: "manual: \"uavs\" must list UAV numbers 1–250, found \(numbers)")
            }
            let rate = request.rateHz ?? 100
            guard rate.isFinite, (1...1000).contains(rate) else {
                return ControlResponse(error: "manual: \"rateHz\" must be 1–1000, found \(rate)")
            }
            let ms = request.durationMs ?? 5000
            guard (1...600_000).contains(ms) else { return ControlResponse(error: "manual: \"durationMs\" must be 1–600000, found \(ms)") }
            let axes = request.axes ?? [0, 0, 0, 0]
            guard axes.count == 4, axes.allSatisfy({ (-1000...1000).contains($0) }) else {
                return ControlResponse(error: "manual: \"axes\" must be four numbers x, y, z, r within -1000…1000, found \(axes)")
            }
            let report = await coordinator.streamManualControl(
                (Int16(axes[0]), Int16(axes[1]), Int16(axes[2]), Int16(axes[3])), to: numbers.map { UInt8($0) },
                rate: rate, duration: .milliseconds(ms), takeover: request.takeover ?? false)
            return ControlResponse(manual: report)
        default:
            return ControlResponse(error: "unknown command '\(request.command)' (known: \(knownCommands))")
        }
    }
}
