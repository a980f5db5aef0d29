import Coordinator
import Discovery
import Logging
import MAVLinkBridge
import MeshTypes
import NIOCore
import NIOPosix
import ServiceLifecycle

/// A station's endpoint for ground-control software (QGroundControl, MAVProxy, MAVSDK, pymavlink): a UDP port
/// (14550 by default) where every drone of the mesh appears under its UAV number, and where the commands it sends
/// are routed into the mesh like `fleetmesh send`. Advertised as `_mavlink._udp` over DNS-SD (through the node's
/// Avahi client), so QGroundControl finds it. A `Service`: on graceful shutdown the record is withdrawn and the socket
/// closed.
public final class GroundControlService: Service, CustomStringConvertible {
    public let configuration: GroundControlConfiguration
    let name: String
    let coordinator: NodeShell
    /// The node's Avahi client, if the endpoint is advertised.
    let discovery: AvahiDiscovery?
    /// The node's clock (its streams and timers run on it).
    let clock: ContinuousClock
    let logger: Logger

    init(
        configuration: GroundControlConfiguration, name: String, coordinator: NodeShell,
        discovery: AvahiDiscovery?, clock: ContinuousClock = ContinuousClock(), logger: Logger
    ) {
        self.clock = clock
        self.configuration = configuration
        self.name = name
        self.coordinator = coordinator
        self.discovery = discovery
        self.logger = logger
    }

    public var description: String { "GroundControlService(\(name), UDP \(configuration.port))" }

    public func run() async throws {
        // A port held by another program (QGroundControl on this laptop) must not stop the station: say so and retry.
        var transport: UDPTransport?
        var complained = false
        while transport == nil {
            do {
                transport = try await UDPTransport.bind(
                    port: configuration.port, group: MultiThreadedEventLoopGroup.singleton, logger: logger)
            } catch {
                await coordinator.noteGroundControl(
                    "cannot bind UDP \(configuration.port): \(error); retrying every 5 s")
                if !complained {
                    logger.error(
                        "ground control: cannot bind UDP port \(configuration.port) (\(error)); is QGroundControl or another program using it on this machine? Set [ground_control] port. Retrying every 5 s"
                    )
                }
                complained = true
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(5)) }
                if Task.isShuttingDownGracefully || Task.isCancelled { return }
            }
        }
        guard let transport else { return }
        await coordinator.noteGroundControl("listening on UDP \(transport.port)")
        let targets = configuration.targets.compactMap { try? PeerEndpoint(parsing: $0)?.socketAddress() }
        let endpoint = GroundControlEndpoint(
            transport: transport, coordinator: coordinator, fixedDestinations: targets, clock: clock, logger: logger)
        let type = GroundControlConfiguration.serviceType
        let published = discovery?.subscribe(browsing: [], publishing: type)
        discovery?.publish(
            ServiceAdvertisement(name: name, type: type, port: UInt16(transport.port), txt: ["fleetmesh": "1"]))
        logger.info(
            "ground control: MAVLink on UDP \(transport.port)\(configuration.advertise ? ", advertised as \(GroundControlConfiguration.serviceType)" : "")\(targets.isEmpty ? "" : ", streaming to \(targets.map(\.displayString).joined(separator: ", "))")"
        )
        let coordinator = self.coordinator
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    for await datagram in transport.datagrams { await endpoint.receive(datagram) }
                }
                tasks.addTask {
                    // Streams and timers: 20 Hz, on absolute deadlines.
                    let clock = self.clock
                    await clock.every(.milliseconds(50), from: clock.now) { await endpoint.tick() }
                }
                tasks.addTask {
                    for await (ticket, answer) in coordinator.groundControlAnswers.stream {
                        await endpoint.answer(ticket, answer)
                    }
                }
                if let published {
                    tasks.addTask {
                        for await event in published {
                            switch event {
                            case .publishFailed(let reason):
                                self.logger.warning(
                                    "ground control: cannot publish \(GroundControlConfiguration.serviceType): \(reason)"
                                )
                            case .published(let n):
                                self.logger.info(
                                    "ground control: published \(GroundControlConfiguration.serviceType) as '\(n)'")
                            default: break
                            }
                        }
                    }
                }
                try? await gracefulShutdown()
                await transport.close()
                tasks.cancelAll()
            }
        } onGracefulShutdown: {
        }
    }
}

/// The actor that owns the `GroundControlBridge` core and carries out its directives.
actor GroundControlEndpoint {
    private var bridge: GroundControlBridge<SocketAddress>
    private let transport: UDPTransport
    private let coordinator: NodeShell
    private let logger: Logger
    private let clock: ContinuousClock
    private let started: ContinuousClock.Instant

    init(
        transport: UDPTransport, coordinator: NodeShell, fixedDestinations: [SocketAddress], clock: ContinuousClock,
        logger: Logger
    ) {
        self.clock = clock
        self.transport = transport
        self.coordinator = coordinator
        self.logger = logger
        bridge = GroundControlBridge(fixedDestinations: fixedDestinations)
        started = clock.now
    }

    private var now: MeshInstant { MeshInstant(nanoseconds: UInt64(max(0, (clock.now - started).wholeNanoseconds))) }

    func receive(_ datagram: UDPTransport.Datagram) async {
        await carry(bridge.receive(datagram.bytes, from: datagram.from, now: now))
    }

    func tick() async {
        let picture = await coordinator.groundControlPicture()
        let vehicles = picture.vehicles.compactMap { v in
            v.uavNumber.map {
                GroundControlBridge<SocketAddress>.Vehicle(uavNumber: $0, state: v.state, isStale: v.isStale)
            }
        }
        await carry(bridge.tick(vehicles: vehicles, originAltitude: picture.originAltitude, now: now))
    }

    func answer(_ ticket: UInt64, _ answer: CommandAnswer) async {
        await carry(bridge.onAnswer(ticket: ticket, answer, now: now))
    }

    /// Carries out directives in order; sends leave in one flush at the end.
    private func carry(_ directives: [GroundControlBridge<SocketAddress>.Directive]) async {
        var wrote = false
        for d in directives {
            switch d {
            case .send(let bytes, let to):
                transport.send(bytes, to: to)
                wrote = true
            case .command(let command, let uav, let ticket):
                if wrote {
                    transport.flush()
                    wrote = false
                }
                await coordinator.submitForGroundControl(command, toUAV: uav, ticket: ticket)
            case .manualControl(let sample, let uav):
                await coordinator.sendManualControl(sample, toUAV: uav)
            case .peerJoined(let p):
                logger.info(
                    "ground control: \(p.address.displayString) (system \(p.systemID), component \(p.componentID)) connected"
                )
            case .peerLeft(let p):
                logger.info(
                    "ground control: \(p.address.displayString) (system \(p.systemID)) silent for 10 s; streams to it stop"
                )
            case .note(let text):
                logger.notice("ground control: \(text)")
            }
        }
        if wrote { transport.flush() }
    }
}
