import Membership
import MeshTypes
import NIOCore
import SecureTransport

/// The mesh layer of one node as a pure state machine: the secure endpoint (handshakes, sessions), the membership
/// table (failure detection, reconnection) and one reliable channel per peer, glued together with the rules that tie
/// them (an authenticated datagram of any kind counts as hearing its sender; a session that comes back resumes the
/// reliable channel; a restarted peer gets a fresh channel and a hello).
///
/// Generic over the address type: a socket address in the node's actor (`NodeShell`, through `NodeCore`), an integer in the simulations. Time is injected
/// (`now` everywhere, the wall clock at each `onTick`); it returns ``Directive``s and never touches a socket, clock or
/// task. The actor shell feeds it datagrams, discovery records and ticks, and carries out what it returns, in order.
public struct MeshCore<Address: Hashable & Sendable>: Sendable {
    public let localID: NodeID
    public let incarnation: Incarnation
    public let name: String
    /// The UAV number this node announces in its hellos.
    public var uavNumber: Int?
    public internal(set) var endpoint: SecureEndpoint<Address>
    public internal(set) var membership: MembershipTable<Address>
    var channels: [NodeID: ReliableChannel] = [:]
    /// Each peer's clock against this node's, from heartbeats (`PeerClock`).
    var clocks: [NodeID: PeerClock] = [:]
    private var heartbeatCounter: UInt32 = 0
    /// Rejected datagrams counted by category, for status.
    public internal(set) var rejections: [String: Int] = [:]
    /// Every round trip measured (heartbeat replies and group echoes), for the node's metrics.
    public internal(set) var roundTrips = LatencyHistogram()
    private var rejectionLogged: [Address: MeshInstant] = [:]
    /// The last problem noted with each address that refused or ignored a handshake (`MeshCore+HandshakeProblems`).
    var notedHandshakeProblems: [Address: HandshakeProblem] = [:]
    /// When each peer was first discovered and first in session (for status and start-up benchmarks).
    public private(set) var firstSeen: [NodeID: MeshInstant] = [:]
    public private(set) var firstEstablished: [NodeID: MeshInstant] = [:]
    var leaving = false
    /// The earliest deadline an event scheduled since the shell last asked (`takeWakeHint`).
    var wakeHint: MeshInstant?
    /// How late this node has lately been itself (``onOwnDelay(_:now:)``).
    var ownDelay = OwnDelay()
    /// When the datagram being handled arrived, if the shell knows (``onDatagram(_:from:now:arrivedAt:)``).
    var arrival: MeshInstant?
    /// The segment's group channel, when on (`GroupSettings`).
    var group: GroupState?
    /// When heartbeats and replies went to each peer, and when it was last heard by unicast (`UnicastRhythm`).
    var rhythm = UnicastRhythm()
    /// Largest plaintext packed into one datagram.
    public static var datagramBudget: Int { 1200 }

    public init(
        key: MeshKey, localID: NodeID, incarnation: Incarnation, role: NodeRole, name: String, uavNumber: Int?,
        membership: MembershipConfiguration = .init(), transport: SecureTransportConfiguration = .default,
        group: GroupSettings? = nil, random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.localID = localID
        self.incarnation = incarnation
        self.name = name
        self.uavNumber = uavNumber
        self.endpoint = SecureEndpoint(
            key: key, localID: localID, incarnation: incarnation, role: role, configuration: transport, random: random)
        self.membership = MembershipTable(localID: localID, configuration: membership)
        self.group = group.map {
            GroupState(channel: GroupChannel(meshKey: key, localID: localID, incarnation: incarnation), settings: $0)
        }
    }

    // MARK: - Events

    /// A unicast address to keep connecting to (routed networks where mDNS does not pass).
    public mutating func addStaticPeer(_ address: Address) {
        membership.addStaticPeer(address)
        wakeHint = MeshInstant(nanoseconds: 0)  // dialled on the next tick
    }

    /// A datagram that waited longer than this for the node (`arrivedAt` to `now`) is dropped unread, counted under
    /// ``staleCategory``. A node short of CPU otherwise works through a queue of the past (seen in CI: 4,096 queued
    /// datagrams, 20 to 35 s old, each opened and acted on) and never catches up; what such a datagram carried is stale
    /// (heartbeats every 50 ms, telemetry ten times a second) or is sent again (reliable messages, handshakes). Half
    /// ``OwnDelay/limit``: the silence allowed for the node's own lateness still covers the datagrams it reads.
    public static var staleDatagramAge: Duration { OwnDelay.limit / 2 }
    /// The rejection category of datagrams dropped for their wait (``staleDatagramAge``).
    public static var staleCategory: String { "stale" }

    /// One datagram from the socket.
    // The entry points the node (SocketAddress) and the simulations (Int) call are pre-specialised for both: the
    // generic code paid for metadata lookups and unspecialised dictionaries on every datagram and tick.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func onDatagram(
        _ bytes: [UInt8], from address: Address, now: MeshInstant, arrivedAt: MeshInstant? = nil
    ) -> [Directive] {
        if let arrivedAt, now - arrivedAt > Self.staleDatagramAge {
            rejections[Self.staleCategory, default: 0] += 1
            return []
        }
        // Clock samples are taken at the datagram's arrival: the time it waited for this node is not link delay.
        arrival = arrivedAt
        defer { arrival = nil }
        var out: [Directive] = []
        if bytes.first == MessageType.group.rawValue {
            onGroupDatagram(bytes, from: address, now: now, into: &out)
        } else {
            bytes.withUnsafeBytes { onSessionDatagram($0, from: address, now: now, into: &out) }
        }
        return out
    }

    /// A datagram of the secure endpoint's (handshakes, transport messages), opened into a buffer on the stack: a
    /// transport message on a confirmed session, the usual case, is decrypted, framed and handled without a copy.
    private mutating func onSessionDatagram(
        _ datagram: UnsafeRawBufferPointer, from address: Address, now t: MeshInstant, into out: inout [Directive]
    ) {
        withUnsafeTemporaryAllocation(byteCount: max(1, datagram.count), alignment: 16) { plaintext in
            let opened: SecureEndpoint<Address>.Opened
            do {
                opened = try endpoint.open(datagram, from: address, into: plaintext, now: t)
            } catch {
                // Not reached: the buffer is as large as the datagram.
                out.append(.note(.warning, "datagram from \(address) not opened: \(error)"))
                return
            }
            switch opened {
            case .delivered(let count, let from):
                received(UnsafeRawBufferPointer(rebasing: plaintext[0..<count]), from: from, now: t, into: &out)
            case .keepalive(let from):
                received(nil, from: from, now: t, into: &out)
            case .directives(let directives):
                apply(directives, now: t, into: &out)
            }
        }
    }

    /// An authenticated transport message from `peer` (`frames` nil: an empty keepalive): the peer is heard, its
    /// frames are handled, and only then is its arrival kept for `UnicastRhythm` (a heartbeat's answer depends on
    /// when the datagram before it came).
    mutating func received(
        _ frames: UnsafeRawBufferPointer?, from peer: NodeID, now t: MeshInstant, into out: inout [Directive]
    ) {
        apply(membership.onHeard(id: peer, now: t), now: t, into: &out)
        if let frames { deliver(frames, from: peer, now: t, into: &out) }
        rhythm.peers[peer, default: .init()].heard = t
    }

    /// The wall clock (microseconds since the Unix epoch) at `now`, for handshake timestamps; give it before the first
    /// event (`SecureEndpoint.noteWallClock`). Each tick notes it again.
    public mutating func noteWallClock(_ micros: UInt64, now: MeshInstant) {
        endpoint.noteWallClock(micros, now: now)
    }

    /// Advances every timer: handshakes and rekeys, heartbeats, suspicion and loss, probes, reliable retransmissions.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func onTick(now: MeshInstant, wallClockMicros: UInt64) -> [Directive] {
        var out: [Directive] = []
        apply(endpoint.tick(now: now, wallClockMicros: wallClockMicros), now: now, into: &out)
        if !leaving {
            // Peers heard on the group lately hear this node there too: no unicast heartbeats for them, once their
            // clock is estimated (a new session's first round trip comes from heartbeats at once, not from an echo
            // that may take a second or two: a scheduled command needs it).
            // So do peers that other datagrams from this node reached within the heartbeat interval (at least one
            // heartbeat every `UnicastRhythm.heartbeatFloor` still goes, for their estimate of this node's clock).
            let group = group
            let clocks = clocks
            let rhythm = rhythm
            let interval = membership.configuration.heartbeatInterval
            let ticked = membership.onTick(now: now, allowance: ownDelay.allowance(now: now)) { id in
                Self.quietUntil(id, now: now, clocks: clocks, group: group, rhythm: rhythm, interval: interval) != nil
            }
            apply(ticked, now: now, into: &out)
            groupTick(now: now, into: &out)
        }
        // Only channels with a deadline due have work; sorted so that a simulation is the same for a seed. Each is
        // changed in place: a copy taken out of the dictionary would copy its whole window (1,024 slots) on write.
        let due = channels.compactMap { id, channel in (channel.nextDeadline.map { $0 <= now } ?? false) ? id : nil }
        for id in due.sorted() {
            // A lost or forgotten peer's channel waits: retransmitting its whole window every second into an outage
            // costs CPU and airtime for nothing (and reaching a peer that cannot answer, made it flap back and forth
            // at the other side). When it is in session again, everything in the window goes at once (`.returned`).
            guard Self.inSession(membership.peers[id]?.state), let actions = channels[id]?.tick(now: now) else {
                continue
            }
            perform(actions, peer: id, now: now, into: &out)
        }
        return out
    }

    /// The peer's clock minus this node's, as its heartbeats show it (`PeerClock`); nil while there are no recent samples
    /// both ways (no session, or just established).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public func clockOffset(of peer: NodeID, now: MeshInstant) -> Duration? {
        clocks[peer]?.offset(now: now)
    }

    /// Whether a peer in this state is in session (its reliable channel runs).
    static func inSession(_ state: PeerState?) -> Bool { state == .established || state == .suspect }

    /// Discovery resolved a peer's record (already checked to belong to this mesh).
    public mutating func onDiscovered(
        id: NodeID, incarnation: Incarnation?, name: String?, role: NodeRole?, uavNumber: Int?, address: Address,
        now: MeshInstant
    ) -> [Directive] {
        guard id != localID else { return [] }
        if firstSeen[id] == nil { firstSeen[id] = now }
        wakeBy(now)  // a new address is dialled on the next tick
        var out: [Directive] = []
        apply(
            membership.onDiscovered(
                id: id, incarnation: incarnation, name: name, role: role, uavNumber: uavNumber,
                address: address, now: now), now: now, into: &out)
        return out
    }

    /// Discovery withdrew one of a peer's records.
    public mutating func onDiscoveryRemoved(id: NodeID, address: Address, now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        apply(membership.onDiscoveryRemoved(id: id, address: address), now: now, into: &out)
        return out
    }

    /// Sends a message on the peer's reliable-ordered channel. Without a channel (no session yet) it is dropped with a
    /// note; a full window is refused with a note. `supersedes`: the earlier message with that key still in flight is
    /// obsolete (`ReliableChannel.SupersedeKey`).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func sendReliable(
        _ type: UInt16, _ payload: [UInt8], to peer: NodeID, now: MeshInstant,
        supersedes key: ReliableChannel.SupersedeKey? = nil
    ) -> [Directive] {
        guard channels[peer] != nil else { return [] }
        var out: [Directive] = []
        do {
            guard let actions = try channels[peer]?.send(type: type, payload: payload, now: now, supersedes: key)
            else { return [] }
            perform(actions, peer: peer, now: now, into: &out)
        } catch {
            out.append(.note(.warning, "reliable send to \(peer) refused: \(error)"))
        }
        return out
    }

    /// Says goodbye to every peer in session (twice, against loss) and stops reconnecting.
    public mutating func leave(now: MeshInstant) -> [Directive] {
        leaving = true
        var out: [Directive] = []
        for peer in membership.peers(in: [.established, .suspect]) {
            sendFrames([.goodbye(reason: 0)], to: peer.id, now: now, into: &out)
            sendFrames([.goodbye(reason: 0)], to: peer.id, now: now, into: &out)
        }
        return out
    }

    // MARK: - Gluing the layers

    private func wallClock(_ now: MeshInstant) -> UInt64 { endpoint.wallClock(now) }

    mutating func apply(
        _ directives: [SecureEndpoint<Address>.Directive], now t: MeshInstant, into out: inout [Directive]
    ) {
        for d in directives {
            switch d {
            case .send(let bytes, let to):
                out.append(.send(bytes, to: to))
            case .established(let info):
                if firstSeen[info.id] == nil { firstSeen[info.id] = t }
                if firstEstablished[info.id] == nil { firstEstablished[info.id] = t }
                // A restart shows as a new incarnation, whether the endpoint still knew the old one or (after its
                // sessions expired) only membership did. The reliable channel lives as long as both incarnations: it
                // survives rekeys, expired sessions and outages of any length (what waited in it is sent on when the
                // peer is back), and starts over only with a restarted peer, on both sides at once.
                let known =
                    info.previousIncarnation ?? membership.peers[info.id]?.incarnation
                    ?? membership.forgotten[info.id]?.incarnation
                if let known, known != info.incarnation {
                    out.append(.note(.info, "peer \(info.id) restarted (incarnation \(info.incarnation)); new session"))
                    channels[info.id] = nil
                    clocks[info.id] = nil
                    rhythm.peers[info.id] = nil
                    group?.forget(info.id)
                }
                let fresh = channels[info.id] == nil
                if fresh { channels[info.id] = ReliableChannel() }
                apply(
                    membership.onEstablished(
                        id: info.id, incarnation: info.incarnation, role: info.role,
                        address: info.address, now: t), now: t, into: &out)
                if fresh {
                    out += sendReliable(
                        NodeMessageType.hello, HelloMessage(name: name, uavNumber: uavNumber).encode(),
                        to: info.id, now: t)
                } else {
                    // A new session after the old one expired: what went out on the old one may never arrive.
                    resumeChannel(with: info.id, .heard, now: t, into: &out)
                }
            case .deliver(let plaintext, let from):
                plaintext.withUnsafeBytes { received($0, from: from, now: t, into: &out) }
            case .keepalive(let from):
                received(nil, from: from, now: t, into: &out)
            case .rekeyed(let id):
                // A completed handshake is an authenticated exchange: it brings a silent peer back like any datagram.
                out.append(.note(.debug, "session with \(id) rekeyed"))
                apply(membership.onHeard(id: id, address: endpoint.peerInfo(id)?.address, now: t), now: t, into: &out)
                // The peer may have started this session because it lost ours (it forgot us, or its copy expired
                // while it could not hear us): what went out on the old one may never arrive. It hears us now, so
                // what waited goes again at once and the rest within an RTO (at most once per RTO: a burst of
                // rekeys cannot turn into a burst of resends).
                resumeChannel(with: id, .heard, now: t, into: &out)
            case .rejected(let address, let reason):
                rejections[reason.category, default: 0] += 1
                noteHandshakeProblem(address, category: reason.category, problem: reason.description, now: t)
                // One log line per address per 5 s: a flood of junk must not flood the log.
                let log = rejectionLogged[address].map { t - $0 >= .seconds(5) } ?? true
                if log { rejectionLogged[address] = t }
                out.append(.rejected(address, reason, log: log))
            case .handshakeAbandoned(let address, let expected):
                noteHandshakeProblem(
                    address, category: "unanswered",
                    problem: "handshake unanswered (\(expected.map(\.short) ?? "unknown node")): nothing came back",
                    now: t)
                out.append(
                    .note(
                        .debug,
                        "handshake to \(address) (\(expected.map(\.short) ?? "unknown")) unanswered; giving up for now")
                )
            case .expired(let id):
                out.append(.note(.debug, "every session with \(id) expired"))
            }
        }
    }

    mutating func apply(
        _ directives: [MembershipDirective<Address>], now t: MeshInstant, into out: inout [Directive]
    ) {
        for d in directives {
            switch d {
            case .connect(let expecting, let address):
                apply(
                    endpoint.connect(to: address, expecting: expecting, now: t, wallClockMicros: wallClock(t)), now: t,
                    into: &out)
            case .probe(let peer, let address):
                apply(
                    endpoint.connect(to: address, expecting: peer, renew: true, now: t, wallClockMicros: wallClock(t)),
                    now: t, into: &out)
            case .sendHeartbeat(let peer):
                heartbeatCounter = (heartbeatCounter &+ 1) & ~UnicastRhythm.quietBit
                let asks = rhythm.heartbeatAsks(peer, now: t)
                if asks { membership.onReplyRequested(id: peer) }
                let id = asks ? heartbeatCounter : heartbeatCounter | UnicastRhythm.quietBit
                sendFrames([.heartbeat(id: id, sentAtMicros: t.nanoseconds / 1000)], to: peer, now: t, into: &out)
            case .stateChanged(let peer, let from, let to):
                wakeBy(t)  // a new state has timers of its own (a first heartbeat, a reconnection)
                out.append(.peerState(peer: peer, name: membership.peers[peer]?.name, from: from, to: to))
                if to == .established, from != .established {
                    rhythm.restart(peer)
                    // Back after an outage (suspect, lost, or forgotten: `from` nil): everything waiting in the reliable
                    // window goes now, also what was sent just before, over a session the peer may no longer hold.
                    resumeChannel(with: peer, .returned, now: t, into: &out)
                }
            case .closeSession(let peer):
                endpoint.forget(peer)
                channels[peer] = nil
                clocks[peer] = nil
                rhythm.peers[peer] = nil
                group?.forget(peer)
            }
        }
    }
}
