import Discovery
import Foundation
import Logging
import Membership
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

    private var endpoint: SecureEndpoint<Address>
    private var membership: MembershipTable<Address>
    private var channels: [NodeID: ReliableChannel] = [:]
    private var transport: UDPTransport?
    private var logger: Logger
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var uavNumber: Int?
    private var avahiState = "starting"
    private var publishedName: String?
    private var heartbeatCounter: UInt32 = 0
    private var rejectionLog: [Address: MeshInstant] = [:]
    private var rejections: [String: Int] = [:]
    private var firstSeen: [NodeID: MeshInstant] = [:]
    private var firstEstablished: [NodeID: MeshInstant] = [:]
    private var discoveryKeys: [ServiceKey: NodeID] = [:]
    private var leaving = false
    private let eventsContinuation: AsyncStream<MeshEvent>.Continuation

    /// Peer and message events for the layers above (coordinator, demo output).
    public nonisolated let events: AsyncStream<MeshEvent>

    public init(configuration: NodeConfiguration, key: MeshKey, nodeID: NodeID, logger: Logger) {
        self.configuration = configuration
        self.nodeID = nodeID
        var rng = SystemRandomNumberGenerator()
        self.incarnation = rng.next()
        self.fingerprint = key.fingerprint
        self.endpoint = SecureEndpoint(key: key, localID: nodeID, incarnation: incarnation, role: configuration.role)
        self.membership = MembershipTable(localID: nodeID, configuration: configuration.membership)
        self.logger = logger
        self.started = clock.now
        self.uavNumber = configuration.uavNumber
        (events, eventsContinuation) = AsyncStream.makeStream(of: MeshEvent.self, bufferingPolicy: .bufferingNewest(10_000))
    }

    /// The TXT record this node publishes.
    public var advertisement: MeshAdvertisement {
        MeshAdvertisement(nodeID: nodeID, incarnation: incarnation, role: configuration.role, name: configuration.name,
                          uavNumber: uavNumber, fingerprint: fingerprint)
    }

    func attach(_ transport: UDPTransport) {
        self.transport = transport
        for text in configuration.staticPeers {
            guard let endpoint = PeerEndpoint(parsing: text), let address = try? endpoint.socketAddress() else { continue }
            membership.addStaticPeer(address)
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
        apply(endpoint.receive(datagram.bytes, from: datagram.from, now: t), now: t)
        transport?.flush()
    }

    func tick() {
        let t = now
        apply(endpoint.tick(now: t, wallClockMicros: wallClockMicros), now: t)
        if !leaving { apply(membership.onTick(now: t), now: t) }
        for id in channels.keys.sorted() {
            guard var channel = channels[id] else { continue }
            let actions = channel.tick(now: t)
            channels[id] = channel
            perform(actions, peer: id, now: t)
        }
        transport?.flush()
    }

    func discovery(_ event: DiscoveryEvent) {
        let t = now
        switch event {
        case .daemonAvailable:
            avahiState = "running"
            logger.info("avahi-daemon available")
        case .daemonUnavailable(let reason):
            if avahiState != reason { logger.warning("avahi-daemon unavailable: \(reason); discovery paused, sessions continue") }
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
            if let id = discoveryKeys.removeValue(forKey: key) {
                logger.debug("DNS-SD record of \(id) on \(key) removed")
            }
        }
        transport?.flush()
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
            logger.debug("ignoring '\(ad.name)' (\(ad.nodeID)): it belongs to another mesh (fingerprint \(ad.fingerprint))")
            return
        }
        let scope = record.isLinkLocal ? String(record.key.interfaceIndex) : nil
        guard let address = try? PeerEndpoint(host: record.address, port: Int(record.port), scope: scope).socketAddress() else { return }
        discoveryKeys[record.key] = ad.nodeID
        if firstSeen[ad.nodeID] == nil { firstSeen[ad.nodeID] = t }
        apply(membership.onDiscovered(id: ad.nodeID, incarnation: ad.incarnation, name: ad.name, role: ad.role,
                                      uavNumber: ad.uavNumber, address: address, now: t), now: t)
    }

    // MARK: - Directives out

    private func apply(_ directives: [SecureEndpoint<Address>.Directive], now t: MeshInstant) {
        for d in directives {
            switch d {
            case .send(let bytes, let to):
                transport?.send(bytes, to: to)
            case .established(let info):
                if firstSeen[info.id] == nil { firstSeen[info.id] = t }
                if firstEstablished[info.id] == nil { firstEstablished[info.id] = t }
                // A restart shows as a new incarnation, whether the endpoint still knew the old one or (after
                // its sessions expired) only membership did. The reliable channel starts over with it.
                let known = info.previousIncarnation ?? membership.peers[info.id]?.incarnation
                if let known, known != info.incarnation {
                    logger.info("peer \(info.id) restarted (incarnation \(info.incarnation)); new session")
                    channels[info.id] = nil
                }
                if channels[info.id] == nil {
                    channels[info.id] = ReliableChannel()
                    sendReliable(NodeMessageType.hello, HelloMessage(name: configuration.name, uavNumber: uavNumber).encode(),
                                 to: info.id, now: t)
                }
                apply(membership.onEstablished(id: info.id, incarnation: info.incarnation, role: info.role,
                                               address: info.address, now: t), now: t)
            case .deliver(let plaintext, let from):
                apply(membership.onHeard(id: from, address: nil, now: t), now: t)
                deliver(plaintext, from: from, now: t)
            case .rejected(let address, let reason):
                rejections[reason.category, default: 0] += 1
                // One log line per address per 5 s: a flood of junk must not flood the log.
                if rejectionLog[address].map({ t - $0 >= .seconds(5) }) ?? true {
                    rejectionLog[address] = t
                    if case .unknownReceiverIndex = reason {
                        // Normal right after a peer restarts or leaves: its last datagrams name a forgotten session.
                        logger.debug("dropped datagram from \(address.displayString): \(reason)")
                    } else {
                        logger.warning("refused datagram from \(address.displayString): \(reason)")
                    }
                }
                eventsContinuation.yield(.rejected(address: address.displayString, reason: "\(reason)", at: t))
            case .rekeyed(let id):
                logger.debug("session with \(id) rekeyed")
            case .handshakeAbandoned(let address, let expected):
                logger.debug("handshake to \(address.displayString) (\(expected.map(\.short) ?? "unknown")) unanswered; giving up for now")
            case .expired(let id):
                logger.debug("every session with \(id) expired")
            }
        }
    }

    private func apply(_ directives: [MembershipDirective<Address>], now t: MeshInstant) {
        for d in directives {
            switch d {
            case .connect(let expecting, let address):
                let out = endpoint.connect(to: address, expecting: expecting, now: t, wallClockMicros: wallClockMicros)
                apply(out, now: t)
            case .sendHeartbeat(let peer):
                heartbeatCounter &+= 1
                sendFrames([.heartbeat(id: heartbeatCounter, sentAtMicros: t.nanoseconds / 1000)], to: peer, now: t)
            case .stateChanged(let peer, let from, let to):
                let name = membership.peers[peer]?.name ?? peer.short
                if to == .lost || to == .left {
                    logger.notice("peer \(name) (\(peer)) \(from?.rawValue ?? "new") → \(to.rawValue)")
                } else {
                    logger.info("peer \(name) (\(peer)) \(from?.rawValue ?? "new") → \(to.rawValue)")
                }
                eventsContinuation.yield(.peerState(peer: peer, name: membership.peers[peer]?.name, state: to, at: t))
            case .closeSession(let peer):
                endpoint.forget(peer)
                channels[peer] = nil
            }
        }
    }

    private func deliver(_ plaintext: [UInt8], from peer: NodeID, now t: MeshInstant) {
        let frames: [Frame]
        do {
            frames = try Frame.decodeAll(plaintext)
        } catch {
            logger.warning("malformed frames from \(peer): \(error)")
            return
        }
        var replies: [Frame] = []
        for frame in frames {
            switch frame {
            case .heartbeat(let id, let sent):
                replies.append(.heartbeatReply(id: id, sentAtMicros: sent))
            case .heartbeatReply(_, let sent):
                let rtt = Duration.microseconds(Int64(t.nanoseconds / 1000) - Int64(sent))
                if rtt >= .zero { membership.onHeartbeatReply(id: peer, rtt: rtt, now: t) }
            case .goodbye:
                apply(membership.onGoodbye(id: peer, now: t), now: t)
            case .reliable, .ack:
                guard var channel = channels[peer] else { continue }
                let actions = channel.receive(frame: frame, now: t)
                channels[peer] = channel
                perform(actions, peer: peer, now: t)
            case .unreliable(let type, let payload):
                handleMessage(type: type, payload: payload, from: peer, reliable: false, now: t)
            }
        }
        if !replies.isEmpty { sendFrames(replies, to: peer, now: t) }
    }

    private func perform(_ actions: [ReliableChannel.Action], peer: NodeID, now t: MeshInstant) {
        var frames: [Frame] = []
        for action in actions {
            switch action {
            case .transmit(let frame): frames.append(frame)
            case .deliver(let type, let payload): handleMessage(type: type, payload: payload, from: peer, reliable: true, now: t)
            }
        }
        if !frames.isEmpty { sendFrames(frames, to: peer, now: t) }
    }

    private func handleMessage(type: UInt16, payload: [UInt8], from peer: NodeID, reliable: Bool, now t: MeshInstant) {
        switch type {
        case NodeMessageType.hello:
            do {
                let hello = try HelloMessage(decoding: payload)
                membership.updateIdentity(id: peer, name: hello.name, uavNumber: hello.uavNumber)
            } catch {
                logger.warning("malformed hello from \(peer): \(error)")
            }
        default:
            eventsContinuation.yield(.message(type: type, payload: payload, from: peer, reliable: reliable, at: t))
        }
    }

    /// Packs frames into as few datagrams as fit (1,200-byte plaintext budget) and seals them for `peer`.
    private func sendFrames(_ frames: [Frame], to peer: NodeID, now t: MeshInstant) {
        var batch: [Frame] = []
        var size = 0
        func flushBatch() {
            guard !batch.isEmpty else { return }
            do {
                let plaintext = try Frame.encode(batch)
                apply(try endpoint.send(plaintext, to: peer, now: t), now: t)
            } catch {
                logger.debug("cannot send to \(peer): \(error)")
            }
            batch.removeAll()
            size = 0
        }
        for frame in frames {
            if size + frame.encodedSize > 1200 { flushBatch() }
            batch.append(frame)
            size += frame.encodedSize
        }
        flushBatch()
    }

    // MARK: - API for the layers above

    /// Sends a message on the peer's reliable-ordered channel. Throws when the window is full or there is no session.
    public func sendReliable(_ type: UInt16, _ payload: [UInt8], to peer: NodeID, now t: MeshInstant? = nil) {
        let t = t ?? now
        guard var channel = channels[peer] else { return }
        do {
            let actions = try channel.send(type: type, payload: payload, now: t)
            channels[peer] = channel
            perform(actions, peer: peer, now: t)
        } catch {
            logger.warning("reliable send to \(peer) refused: \(error)")
        }
        transport?.flush()
    }

    /// Sends a message without delivery guarantee (telemetry, control streams).
    public func sendUnreliable(_ type: UInt16, _ payload: [UInt8], to peer: NodeID) {
        sendFrames([.unreliable(type: type, payload: payload)], to: peer, now: now)
        transport?.flush()
    }

    /// Sets the UAV number this node shows in its TXT record, hellos and status (the coordinator assigns it).
    public func setUAVNumber(_ number: Int?) {
        uavNumber = number
    }

    /// Tells every peer in session that this node is leaving (twice, against loss), so they see it go at once.
    func leave() {
        leaving = true
        let t = now
        for peer in membership.peers(in: [.established, .suspect]) {
            sendFrames([.goodbye(reason: 0)], to: peer.id, now: t)
            sendFrames([.goodbye(reason: 0)], to: peer.id, now: t)
        }
        transport?.flush()
        eventsContinuation.finish()
    }

    /// This node and every peer, for `fleetmesh status`.
    public func status() -> NodeStatus {
        let t = now
        let node = NodeStatus.LocalNode(
            id: nodeID.hex, name: configuration.name, publishedName: publishedName, role: configuration.role.rawValue,
            uavNumber: uavNumber, incarnation: String(incarnation, radix: 16), port: transport?.port ?? 0,
            fingerprint: fingerprint, uptimeMs: Int((t.nanoseconds) / 1_000_000), avahi: avahiState,
            rejections: rejections)
        let peers = membership.peers.values.sorted { $0.id < $1.id }.map { p in
            NodeStatus.Peer(
                id: p.id.hex, name: p.name, role: p.role?.rawValue, uavNumber: p.uavNumber,
                address: (p.address ?? p.candidates.first)?.displayString, state: p.state.rawValue, hops: 1,
                incarnation: p.incarnation.map { String($0, radix: 16) },
                lastHeardMsAgo: p.lastHeard.map { Int((t - $0).wholeNanoseconds / 1_000_000) },
                rttMs: p.rtt.map { $0.secondsDouble * 1000 }, linkQuality: p.linkQuality,
                discoveredAtMs: firstSeen[p.id].map { Int($0.nanoseconds / 1_000_000) },
                establishedAtMs: firstEstablished[p.id].map { Int($0.nanoseconds / 1_000_000) })
        }
        return NodeStatus(node: node, peers: peers)
    }
}

/// What a node reports to the layers above it.
public enum MeshEvent: Sendable {
    case published(name: String, at: MeshInstant)
    case peerState(peer: NodeID, name: String?, state: PeerState, at: MeshInstant)
    case message(type: UInt16, payload: [UInt8], from: NodeID, reliable: Bool, at: MeshInstant)
    case rejected(address: String, reason: String, at: MeshInstant)
}
