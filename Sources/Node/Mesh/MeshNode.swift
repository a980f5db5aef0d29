import ControlProtocol
import Discovery
import Foundation
import Logging
import Membership
import MeshCore
import MeshTypes
import NIOCore
import SecureTransport

/// The actor shell of one node: it owns the secure endpoint, the membership table and the per-peer reliable
/// channels, feeds them events (datagrams, discovery, ticks) and carries out their directives on the socket.
public actor MeshNode {
    public typealias Address = SocketAddress

    public let configuration: NodeConfiguration
    public let nodeID: NodeID
    public let incarnation: Incarnation
    public let fingerprint: String

    /// Everything that decides: sessions, membership, reliable channels (pure; this actor only does the I/O).
    private var core: MeshCore<Address>
    private var transport: UDPTransport?
    private var logger: Logger
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var avahiState = "starting"
    private var publishedName: String?
    private var discoveryKeys: [ServiceKey: (id: NodeID, address: Address)] = [:]
    private let eventsContinuation: AsyncStream<MeshEvent>.Continuation

    /// Peer and message events for the layers above (coordinator, demo output).
    public nonisolated let events: AsyncStream<MeshEvent>

    public init(configuration: NodeConfiguration, key: MeshKey, nodeID: NodeID, logger: Logger) {
        self.configuration = configuration
        self.nodeID = nodeID
        var rng = SystemRandomNumberGenerator()
        let incarnation: Incarnation = rng.next()
        self.incarnation = incarnation
        self.fingerprint = key.fingerprint
        self.core = MeshCore(
            key: key, localID: nodeID, incarnation: incarnation, role: configuration.role, name: configuration.name,
            uavNumber: configuration.uavNumber, membership: configuration.membership)
        self.logger = logger
        self.started = clock.now
        (events, eventsContinuation) = AsyncStream.makeStream(
            of: MeshEvent.self, bufferingPolicy: .bufferingNewest(10_000))
    }

    /// The TXT record this node publishes.
    public var advertisement: MeshAdvertisement {
        MeshAdvertisement(
            nodeID: nodeID, incarnation: incarnation, role: configuration.role, name: configuration.name,
            uavNumber: core.uavNumber, fingerprint: fingerprint)
    }

    func attach(_ transport: UDPTransport) {
        self.transport = transport
        for text in configuration.staticPeers {
            guard let endpoint = PeerEndpoint(parsing: text), let address = try? endpoint.socketAddress() else {
                continue
            }
            core.addStaticPeer(address)
        }
    }

    var now: MeshInstant {
        let d = clock.now - started
        return MeshInstant(nanoseconds: UInt64(max(0, d.wholeNanoseconds)))
    }

    private var wallClockMicros: UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }

    // MARK: - Events in

    func receive(_ datagram: UDPTransport.Datagram) {
        let t = now
        perform(core.onDatagram(datagram.bytes, from: datagram.from, now: t), now: t)
    }

    func tick() {
        let t = now
        perform(core.onTick(now: t, wallClockMicros: wallClockMicros), now: t)
    }

    func discovery(_ event: DiscoveryEvent) {
        let t = now
        switch event {
        case .daemonAvailable:
            avahiState = "running"
            logger.info("avahi-daemon available")
        case .daemonUnavailable(let reason):
            if avahiState != reason {
                logger.warning("avahi-daemon unavailable: \(reason); discovery paused, sessions continue")
            }
            avahiState = reason
            publishedName = nil
        case .published(let name):
            publishedName = name
            logger.info("published \(NodeConfiguration.serviceType) as '\(name)'")
            eventsContinuation.yield(.published(name: name, at: t))
        case .renamed(let from, let to):
            logger.notice("service name '\(from)' is taken on the link; using '\(to)'")
        case .publishFailed(let reason), .lookupFailed(let reason):
            logger.error("avahi: \(reason)")
        case .resolved(let record):
            discovered(record, now: t)
        case .removed(let key):
            if let (id, address) = discoveryKeys.removeValue(forKey: key) {
                logger.debug("DNS-SD record of \(id) on \(key) removed")
                perform(core.onDiscoveryRemoved(id: id, address: address, now: t), now: t)
            }
        }
    }

    private func discovered(_ record: ServiceRecord, now t: MeshInstant) {
        let ad: MeshAdvertisement
        do {
            ad = try MeshAdvertisement(txt: record.txt)
        } catch {
            logger.debug("ignoring \(record.key): \(error)")
            return
        }
        guard ad.nodeID != nodeID else { return }
        guard ad.fingerprint == fingerprint else {
            logger.debug(
                "ignoring '\(ad.name)' (\(ad.nodeID)): it belongs to another mesh (fingerprint \(ad.fingerprint))")
            return
        }
        let scope = record.isLinkLocal ? String(record.key.interfaceIndex) : nil
        guard
            let address = try? PeerEndpoint(host: record.address, port: Int(record.port), scope: scope).socketAddress()
        else { return }
        discoveryKeys[record.key] = (ad.nodeID, address)
        perform(
            core.onDiscovered(
                id: ad.nodeID, incarnation: ad.incarnation, name: ad.name, role: ad.role,
                uavNumber: ad.uavNumber, address: address, now: t), now: t)
    }

    // MARK: - Directives out

    private func perform(_ directives: [MeshCore<Address>.Directive], now t: MeshInstant) {
        for d in directives {
            switch d {
            case .send(let bytes, let to):
                transport?.send(bytes, to: to)
            case .peerState(let peer, let name, let from, let to):
                let label = name ?? peer.short
                if to == .lost || to == .left {
                    logger.notice("peer \(label) (\(peer)) \(from?.rawValue ?? "new") → \(to.rawValue)")
                } else {
                    logger.info("peer \(label) (\(peer)) \(from?.rawValue ?? "new") → \(to.rawValue)")
                }
                eventsContinuation.yield(.peerState(peer: peer, name: name, state: to, at: t))
            case .message(let type, let payload, let from, let reliable):
                eventsContinuation.yield(.message(type: type, payload: payload, from: from, reliable: reliable, at: t))
            case .rejected(let address, let reason, let log):
                if log {
                    if case .unknownReceiverIndex = reason {
                        // Normal right after a peer restarts or leaves: its last datagrams name a forgotten session.
                        logger.debug("dropped datagram from \(address.displayString): \(reason)")
                    } else {
                        logger.warning("refused datagram from \(address.displayString): \(reason)")
                    }
                }
                eventsContinuation.yield(.rejected(address: address.displayString, reason: "\(reason)", at: t))
            case .note(let level, let text):
                logger.log(level: Logger.Level(rawValue: level.rawValue) ?? .info, "\(text)")
            }
        }
        transport?.flush()
    }

    // MARK: - API for the layers above

    /// Sends a message on the peer's reliable-ordered channel (dropped without a session; refused, with a warning,
    /// when the window is full).
    public func sendReliable(_ type: UInt16, _ payload: [UInt8], to peer: NodeID) {
        let t = now
        perform(core.sendReliable(type, payload, to: peer, now: t), now: t)
    }

    /// Sends a message without delivery guarantee (telemetry, control streams).
    public func sendUnreliable(_ type: UInt16, _ payload: [UInt8], to peer: NodeID) {
        let t = now
        perform(core.sendUnreliable(type, payload, to: peer, now: t), now: t)
    }

    /// Sets the UAV number this node shows in its TXT record, hellos and status (the coordinator assigns it).
    public func setUAVNumber(_ number: Int?) {
        core.uavNumber = number
    }

    /// Tells every peer in session that this node is leaving (twice, against loss), so they see it go at once.
    func leave() {
        let t = now
        perform(core.leave(now: t), now: t)
        eventsContinuation.finish()
    }

    /// This node and every peer, for `fleetmesh status`.
    public func status() -> NodeStatus {
        let t = now
        let node = NodeStatus.LocalNode(
            id: nodeID.hex, name: configuration.name, publishedName: publishedName, role: configuration.role.rawValue,
            uavNumber: core.uavNumber, incarnation: String(incarnation, radix: 16), port: transport?.port ?? 0,
            fingerprint: fingerprint, uptimeMs: Int((t.nanoseconds) / 1_000_000), avahi: avahiState,
            rejections: core.rejections)
        let all = core.membership.peers.values.sorted { $0.id < $1.id }
        let peers = all.filter(\.isAuthenticated).map { p in
            NodeStatus.Peer(
                id: p.id.hex, name: p.name, role: p.role?.rawValue, uavNumber: p.uavNumber,
                address: (p.address ?? p.candidates.first)?.displayString, state: p.state.rawValue, hops: 1,
                incarnation: p.incarnation.map { String($0, radix: 16) },
                lastHeardMsAgo: p.lastHeard.map { Int((t - $0).wholeNanoseconds / 1_000_000) },
                rttMs: p.rtt.map { $0.secondsDouble * 1000 }, linkQuality: p.linkQuality,
                discoveredAtMs: core.firstSeen[p.id].map { Int($0.nanoseconds / 1_000_000) },
                establishedAtMs: core.firstEstablished[p.id].map { Int($0.nanoseconds / 1_000_000) },
                stateSinceMs: Int(p.stateSince.nanoseconds / 1_000_000))
        }
        let held = Set(peers.compactMap(\.name))
        let unverified = all.filter { !$0.isAuthenticated }.map { p in
            NodeStatus.UnverifiedAdvert(
                claimedID: p.id.hex, claimedName: p.name.flatMap { held.contains($0) ? nil : $0 },
                address: p.candidates.first?.displayString, state: p.state.rawValue,
                seenForMs: Int((t - (core.firstSeen[p.id] ?? t)).wholeNanoseconds / 1_000_000))
        }
        return NodeStatus(node: node, peers: peers, unverified: unverified)
    }
}

/// What a node reports to the layers above it.
public enum MeshEvent: Sendable {
    case published(name: String, at: MeshInstant)
    case peerState(peer: NodeID, name: String?, state: PeerState, at: MeshInstant)
    case message(type: UInt16, payload: [UInt8], from: NodeID, reliable: Bool, at: MeshInstant)
    case rejected(address: String, reason: String, at: MeshInstant)
}
