import ControlProtocol
import Coordinator
import Discovery
import Foundation
import LocBroadcaster
import Logging
import MeshTypes
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The node's side of the loc-broadcaster protocol (docs/PROTOCOL.md §9): browses `_loc-broadcaster._udp` (and dials
/// the configured `[targets] sources`), subscribes to every source of this mesh from its own UDP socket, and passes
/// each authenticated target update to the coordinator, which floods it to the drones it addresses. The protocol
/// logic is `TargetSubscriber`; this actor owns the socket, the browser and the timer.
public actor TargetSourceSubscription: Service {
    /// How often subscriptions are checked for renewal.
    static let tickInterval: Duration = .milliseconds(250)

    private var core: TargetSubscriber<SocketAddress>
    private let fingerprint: String
    private let staticSources: [String]
    /// The process's Avahi client, if sources are found over DNS-SD.
    private let discovery: AvahiDiscovery?
    private let coordinator: NodeShell
    private let logger: Logger
    private var transport: UDPTransport?
    private var recordsByKey: [ServiceKey: (name: String, address: SocketAddress)] = [:]
    private var rejectLoggedAt: [SocketAddress: ContinuousClock.Instant] = [:]
    private let clock: ContinuousClock
    private let started: ContinuousClock.Instant

    /// A subscription for this node; with `discovery`, sources are also found over DNS-SD (else only
    /// `staticSources`).
    public init(
        node: NodeID, name: String, meshKey: [UInt8], fingerprint: String, staticSources: [String],
        discovery: AvahiDiscovery?, coordinator: NodeShell, clock: ContinuousClock = ContinuousClock(),
        logger: Logger
    ) {
        self.clock = clock
        core = TargetSubscriber(node: node, name: name, meshKey: meshKey, senderID: UInt64.random(in: 1...UInt64.max))
        self.fingerprint = fingerprint
        self.staticSources = staticSources
        self.discovery = discovery
        self.coordinator = coordinator
        self.logger = logger
        started = clock.now
    }

    private var now: MeshInstant {
        MeshInstant(nanoseconds: UInt64(max(0, (clock.now - started).wholeNanoseconds)))
    }

    /// Binds the socket and runs until cancelled or the node shuts down.
    public func run() async throws {
        let transport = try await UDPTransport.bind(
            port: 0, group: MultiThreadedEventLoopGroup.singleton, logger: logger)
        self.transport = transport
        logger.info("subscribing to target sources (\(LocBroadcasterDatagram.serviceType)) from UDP \(transport.port)")
        for text in staticSources {
            guard let endpoint = PeerEndpoint(parsing: text), let address = try? endpoint.socketAddress() else {
                logger.warning("target source \(text): not a numeric address; skipped")
                continue
            }
            carryOut(core.onSourceFound(name: text, address: address, now: now))
        }
        let sources = discovery?.subscribe(browsing: [LocBroadcasterDatagram.serviceType])
        do {
            try await cancelWhenGracefulShutdown { try await self.runTasks(transport: transport, sources: sources) }
        } catch is CancellationError {
        } catch {
            await transport.close()
            throw error
        }
        await transport.close()
    }

    private func runTasks(transport: UDPTransport, sources: AsyncStream<DiscoveryEvent>?) async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                for await datagram in transport.datagrams { await self.receive(datagram) }
            }
            tasks.addTask {
                let clock = self.clock
                await clock.every(Self.tickInterval, from: clock.now) { await self.tick() }
            }
            if let sources {
                tasks.addTask {
                    for await event in sources { await self.discovered(event) }
                }
            }
            try await tasks.next()
            tasks.cancelAll()
        }
    }

    private func receive(_ datagram: UDPTransport.Datagram) async {
        let directives = core.onDatagram(datagram.bytes, from: datagram.from, now: now)
        for d in directives {
            if case .target(let update, let source) = d {
                await coordinator.injectTarget(update.target, source: source)
            }
        }
        carryOut(directives)
    }

    private func tick() {
        carryOut(core.onTick(now: now))
    }

    private func discovered(_ event: DiscoveryEvent) {
        switch event {
        case .resolved(let record):
            guard record.txt["fp"] == fingerprint else {
                logger.debug(
                    "target source '\(record.key.name)' belongs to another mesh (fingerprint \(record.txt["fp"] ?? "none")); ignored"
                )
                return
            }
            guard record.txt["v"] == "1" else {
                logger.warning(
                    "target source '\(record.key.name)' speaks loc-broadcaster version \(record.txt["v"] ?? "none"); this node speaks 1; ignored"
                )
                return
            }
            let scope = record.isLinkLocal ? String(record.key.interfaceIndex) : nil
            guard
                let address = try? PeerEndpoint(host: record.address, port: Int(record.port), scope: scope)
                    .socketAddress()
            else { return }
            if recordsByKey[record.key] == nil {
                logger.info("target source '\(record.key.name)' at \(address.displayString)")
            }
            recordsByKey[record.key] = (record.key.name, address)
            carryOut(core.onSourceFound(name: record.key.name, address: address, now: now))
        case .removed(let key):
            guard let (name, address) = recordsByKey.removeValue(forKey: key) else { return }
            logger.info("target source '\(name)' at \(address.displayString) withdrawn")
            core.onSourceRemoved(name: name, address: address)
        default:
            break
        }
    }

    private func carryOut(_ directives: [TargetSubscriber<SocketAddress>.Directive]) {
        for d in directives {
            switch d {
            case .send(let bytes, let to):
                transport?.send(bytes, to: to)
            case .target(let update, let source):
                logger.trace(
                    "target from \(source): \(update.target.location.latitude) \(update.target.location.longitude) \(update.target.location.altitude)"
                )
            case .rejected(let from, let error):
                // One line per address per 5 s: junk must not flood the log.
                let t = clock.now
                if rejectLoggedAt[from].map({ t - $0 >= .seconds(5) }) ?? true {
                    rejectLoggedAt[from] = t
                    logger.warning("refused a target-source datagram from \(from.displayString): \(error)")
                }
            }
        }
        transport?.flush()
    }

    /// What the subscriber knows, for `fleetmesh sources`.
    public func report() -> TargetSourcesReport {
        let t = now
        return TargetSourcesReport(
            subscribing: true, port: transport?.port,
            sources: core.sourceReports.map { s in
                TargetSourceReport(
                    name: s.name, addresses: s.addresses.map(\.displayString), targets: s.targets,
                    lastTargetMsAgo: s.lastTargetAt.map { Int((t - $0).wholeNanoseconds / 1_000_000) },
                    lastAddress: s.lastTarget.map { Self.describe($0.address) },
                    lastLatitude: s.lastTarget?.location.latitude, lastLongitude: s.lastTarget?.location.longitude,
                    lastAltitude: s.lastTarget?.location.altitude)
            }, rejected: core.rejectedCounts)
    }

    static func describe(_ address: TargetAddress) -> String {
        switch address {
        case .all: return "all"
        case .uav(let n): return "UAV \(n)"
        case .group(let ns): return "UAV " + ns.map(String.init).joined(separator: ",")
        }
    }
}
