import ControlProtocol
import Coordinator
import Dashboard
import Discovery
import FlightLog
import Foundation
import Logging
import MeshTypes
import NIOPosix
import SecureTransport
import ServiceLifecycle

/// A FleetMesh node as the `Service`s it is made of, for one `ServiceGroup`: the UDP socket, the timers, the event
/// routing between mesh, coordinator and DNS-SD, Avahi, the autopilot link (drones flying one), the target-source
/// subscription, the control socket, the ground-control endpoint, the dashboard (stations) and the metrics listener
/// (`[metrics]`). On graceful shutdown (SIGTERM, SIGINT) the parts stop in reverse order: the metrics listener, the
/// dashboard, the ground-control endpoint and the control socket first, then Avahi withdraws the record, and last every peer is told goodbye and the socket closes. A part the node
/// cannot run without that fails stops the node the same way, with its error; the dashboard or the metrics listener
/// failing (its port taken) is logged and the node runs on without it.
public struct NodeServices: CustomStringConvertible {
    public let configuration: NodeConfiguration
    /// The node's actor: its `NodeCore` (mesh layer and coordinator) and, on a drone, the vehicle.
    public let shell: NodeShell
    /// Subscriptions to target sources (`_loc-broadcaster._udp`), if `[targets] subscribe` is on or sources are configured.
    public let targetSources: TargetSourceSubscription?
    /// Stations with `[ground_control]`: the MAVLink endpoint for ground-control software.
    public let groundControl: GroundControlService?
    /// The process's one Avahi client (nil when the node neither advertises nor browses anything): the mesh
    /// record, `_mavlink._udp`, and the browsers for peers and target sources all go through it.
    public let discovery: AvahiDiscovery?
    /// The one clock the node runs on: its actor's time, the timers, the ground-control streams, target sources and
    /// the dashboard's live pictures.
    public let clock: ContinuousClock
    private let logger: Logger

    /// Loads the key file and state directory and builds the node's actors; errors name the file and the problem.
    public init(configuration: NodeConfiguration, logger: Logger) throws {
        let keyText: String
        do {
            keyText = try String(contentsOfFile: configuration.keyFile, encoding: .utf8)
        } catch {
            throw ConfigError(
                file: configuration.keyFile, field: "",
                problem:
                    "cannot read the mesh key file (\(NodeConfiguration.reason(error))); make one with `fleetmesh keygen \(configuration.keyFile)`"
            )
        }
        let key: MeshKey
        do {
            key = try MeshKey(fileContents: keyText, path: configuration.keyFile)
        } catch {
            throw ConfigError(file: configuration.keyFile, field: "", problem: "\(error)")
        }
        // A key others can read is a key others have: say so (`fleetmesh doctor` fails it), and run on.
        var info = stat()
        if stat(configuration.keyFile, &info) == 0, info.st_mode & 0o077 != 0 {
            logger.warning(
                "the mesh key file \(configuration.keyFile) has mode 0\(String(info.st_mode & 0o777, radix: 8)): other users can read the mesh key; chmod 600 \(configuration.keyFile)"
            )
        }
        let state = try NodeState.open(directory: configuration.stateDirectory)
        self.configuration = configuration
        self.logger = logger
        let clock = ContinuousClock()
        self.clock = clock
        let shell = try NodeShell(
            configuration: configuration, key: key, nodeID: state.nodeID, clock: clock, logger: logger)
        self.shell = shell
        let subscribe = configuration.subscribeToTargetSources
        let browseSources = subscribe && configuration.discover
        let needsAvahi =
            configuration.advertise || configuration.discover || browseSources
            || configuration.groundControl?.advertise == true
        let discovery = needsAvahi ? try AvahiDiscovery(logger: logger) : nil
        self.discovery = discovery
        targetSources =
            subscribe || !configuration.targetSources.isEmpty
            ? TargetSourceSubscription(
                node: state.nodeID, name: configuration.name, meshKey: key.bytes, fingerprint: key.fingerprint,
                staticSources: configuration.targetSources, discovery: browseSources ? discovery : nil,
                coordinator: shell, clock: clock, logger: logger)
            : nil
        groundControl = configuration.groundControl.map {
            GroundControlService(
                configuration: $0, name: configuration.name, coordinator: shell,
                discovery: $0.advertise ? discovery : nil, clock: clock, logger: logger)
        }
    }

    public var description: String { "NodeServices(\(configuration.name))" }

    /// Binds the UDP socket (an error here stops the node before anything runs) and returns the node's services in
    /// start order, each with what its ending means for the group.
    public func services() async throws -> [ServiceGroupConfiguration.ServiceConfiguration] {
        let transport = try await UDPTransport.bind(
            port: configuration.port, group: MultiThreadedEventLoopGroup.singleton, logger: logger,
            multicast: configuration.usesGroup ? .init(interfaces: configuration.groupInterfaces) : nil,
            networkNamespace: configuration.networkNamespace,
            // Group datagrams wait for the node's next tick (`NodeShell.receiveHeld`) instead of waking it each.
            holding: MessageType.group.rawValue)
        let discovery = self.discovery
        await shell.attach(transport, discovery: discovery)
        let ad = await shell.advertisement
        logger.info(
            "node \(configuration.name) (\(shell.nodeID)) \(configuration.role.rawValue) listening on UDP \(transport.port), mesh \(shell.fingerprint)"
        )

        // The mesh's part of the Avahi client: its record and the peers' records. With the group channel, peers find
        // each other by group, and a browsed record is resolved only if its node stays unknown (`resolveFoundRecords`).
        let meshDiscovery = discovery.map {
            $0.subscribe(
                browsing: configuration.discover ? [NodeConfiguration.serviceType] : [],
                publishing: configuration.advertise ? NodeConfiguration.serviceType : nil,
                resolvingFound: !configuration.usesGroup)
        }
        if configuration.advertise {
            discovery?.publish(
                ServiceAdvertisement(
                    name: configuration.name, type: NodeConfiguration.serviceType, port: UInt16(transport.port),
                    txt: ad.txt))
        }
        let (shell, targetSources) = (self.shell, self.targetSources)
        let control = ControlServer(
            path: configuration.controlSocket, group: MultiThreadedEventLoopGroup.singleton, logger: logger
        ) {
            await ControlRequestHandler.handle($0, shell: shell, targetSources: targetSources)
        }

        // The socket stops last (goodbyes, then close); a part that ends on its own, or fails, takes the node down
        // gracefully.
        let whole: ServiceGroupConfiguration.ServiceConfiguration.TerminationBehavior = .gracefullyShutdownGroup
        func essential(_ part: String, _ service: any Service) -> ServiceGroupConfiguration.ServiceConfiguration {
            .init(
                service: EssentialService(part: part, service: service, logger: logger),
                successTerminationBehavior: .ignore, failureTerminationBehavior: whole)
        }
        func helper(_ service: any Service) -> ServiceGroupConfiguration.ServiceConfiguration {
            .init(service: service, successTerminationBehavior: .ignore, failureTerminationBehavior: whole)
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: MeshTransportService(shell: shell, transport: transport),
                successTerminationBehavior: whole, failureTerminationBehavior: whole),
            helper(NodeTickService(shell: shell, clock: clock)),
        ]
        // The flight log early in the list, so that on shutdown it stops late and writes what the other parts did.
        // The shipper before the recorder: it stops after it, and its last pass ships the recorder's last batch.
        if shell.flightRecords != nil, let postgres = configuration.flightLog.postgres {
            services.append(
                helper(
                    FlightShippingService(
                        target: postgres,
                        file: configuration.flightLog.file(stateDirectory: configuration.stateDirectory),
                        shell: shell, logger: logger)))
        }
        if let records = shell.flightRecords {
            services.append(helper(flightRecorder(records)))
        }
        // The Avahi client before the part that reads the mesh's events from it, so that on shutdown the reader stops
        // first and the client's end (its streams finishing) is no surprise to the group.
        if let discovery { services.append(essential("discovery", discovery)) }
        if let meshDiscovery { services.append(helper(DiscoveryEventService(shell: shell, events: meshDiscovery))) }
        if let link = shell.autopilotLink {
            services.append(helper(AutopilotLinkService(link: link, coordinator: shell)))
        }
        if let targetSources { services.append(essential("target-source subscription", targetSources)) }
        services.append(essential("control socket \(configuration.controlSocket)", control))
        if let groundControl { services.append(helper(groundControl)) }
        if let dashboard = configuration.dashboard {
            let backend = DashboardBackend(
                answer: { await ControlRequestHandler.handle($0, shell: shell, targetSources: targetSources) },
                vehicleUpdates: { await shell.observeVehicles() },
                manualSample: { await shell.manualSample(toUAV: $0.uav, axes: $0.axes, takeover: $0.takeover) },
                metrics: { await shell.metricsExposition() },
                flightLogPath: configuration.flightLog.enabled
                    ? configuration.flightLog.file(stateDirectory: configuration.stateDirectory) : nil)
            services.append(
                helper(DashboardService(configuration: dashboard, backend: backend, clock: clock, logger: logger)))
        }
        if let metrics = configuration.metrics {
            services.append(helper(MetricsService(configuration: metrics, shell: shell, logger: logger)))
        }
        // Last: under systemd (`Type=notify`) it says "ready" once the rest runs, and "stopping" first.
        if let notifier = SystemdNotifier.fromEnvironment() {
            services.append(
                helper(
                    SystemdService(
                        notifier: notifier, shell: shell, advertises: configuration.advertise, clock: clock,
                        logger: logger)))
        }
        return services
    }

    /// The flight log's writer, with this start's metadata.
    func flightRecorder(_ records: FlightRecordQueue) -> FlightRecorderService {
        let origin = configuration.mapOrigin.map { "\($0.latitude), \($0.longitude), \($0.altitude)" }
        let run = RunRecord(
            startedMs: FlightRecorderService.nowMs(), node: shell.nodeID.hex, name: configuration.name,
            role: configuration.role.rawValue, incarnation: String(shell.incarnation, radix: 16),
            softwareVersion: FleetMeshVersion.current, configDigest: configuration.digest, mapOrigin: origin)
        return FlightRecorderService(
            settings: configuration.flightLog,
            file: configuration.flightLog.file(stateDirectory: configuration.stateDirectory),
            queue: records, shell: shell, runRecord: run, logger: logger)
    }
}
