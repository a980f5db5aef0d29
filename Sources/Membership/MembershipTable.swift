import MeshTypes
import NIOCore

/// The membership core: every peer's state, driven by discovery, session and heartbeat events, with time
/// injected. Pure: it returns directives and never touches sockets or clocks.
///
/// Failure detection is by silence: any authenticated datagram from a peer counts as hearing it. A peer silent
/// for `suspectAfter` is suspect, for `lostAfter` lost; a goodbye marks a peer as left at once.
///
/// Recovery: whatever state a peer is in, any authenticated datagram from it (data, keepalive, a completed handshake
/// or rekey) makes it `established` again (`onHeard`, `onEstablished`). Never-established peers are connected every
/// `reconnectInterval`; lost peers are *probed* as often (a fresh handshake even while the old session looks usable,
/// rotating over every known address). A peer lost for `forgetAfter` leaves the table (status, sessions) but its
/// addresses are kept and probed at the same interval, so a link that comes back after any outage is back in
/// session within one interval plus a round trip; at most `forgottenLimit` such peers are kept (the longest gone
/// is dropped first), and one whose every DNS-SD record is withdrawn is dropped.
public struct MembershipTable<Address: Hashable & Sendable>: Sendable {
    public let configuration: MembershipConfiguration
    public let localID: NodeID
    public internal(set) var peers: [NodeID: PeerRecord<Address>] = [:]
    /// Configured unicast peers whose identity is not known until their handshake completes.
    private var staticAddresses: [Address: MeshInstant?] = [:]
    /// Peers lost for longer than `forgetAfter`: no longer listed, still probed at their last addresses.
    public internal(set) var forgotten: [NodeID: PeerRecord<Address>] = [:]

    public init(localID: NodeID, configuration: MembershipConfiguration = .init()) {
        self.localID = localID
        self.configuration = configuration
    }

    /// Adds a unicast address to connect to (routed networks where mDNS does not pass).
    public mutating func addStaticPeer(_ address: Address) {
        if staticAddresses[address] == nil { staticAddresses[address] = .some(nil) }
    }

    // MARK: - Events

    /// Discovery resolved a peer (or updated its record). Starts connecting if there is no live session.
    public mutating func onDiscovered(
        id: NodeID, incarnation: Incarnation?, name: String?, role: NodeRole?, uavNumber: Int?,
        address: Address, now: MeshInstant
    ) -> [MembershipDirective<Address>] {
        guard id != localID else { return [] }
        if peers[id] == nil, var gone = forgotten[id] {
            // A forgotten peer's record is back (the link often is too): one more address to probe, and a probe at
            // the next tick. It stays forgotten until it answers: an advert proves nothing, and its identity, session
            // address and reliable channel must survive a forged or stale one.
            if !gone.candidates.contains(address) { gone.candidates.append(address) }
            gone.lastConnectAttempt = nil
            forgotten[id] = gone
            return []
        }
        var out: [MembershipDirective<Address>] = []
        var peer =
            peers[id]
            ?? {
                out.append(.stateChanged(peer: id, from: nil, to: .discovered))
                return PeerRecord<Address>(id: id, state: .discovered, now: now)
            }()
        // An advert is unauthenticated (anyone can publish one with a real node's id): it names a peer only until a
        // handshake proves who it is; from then on only authenticated messages (handshake, hello) do.
        if !peer.isAuthenticated {
            if let name { peer.name = name }
            if let role { peer.role = role }
            peer.uavNumber = uavNumber
        }
        if !peer.candidates.contains(address) { peer.candidates.append(address) }
        let restarted = incarnation != nil && peer.incarnation != nil && incarnation != peer.incarnation
        switch peer.state {
        case .discovered, .lost, .left:
            if peer.state == .left, !restarted, incarnation == peer.incarnation {
                peers[id] = peer
                return out
            }
            out += Self.connect(&peer, to: address, now: now)
        case .handshaking:
            break
        case .established, .suspect:
            // The record shows a new incarnation before the restarted peer reached us: reconnect now.
            if restarted { out += Self.connect(&peer, to: address, now: now) }
        }
        peers[id] = peer
        return out
    }

    /// Discovery saw the address go away. Not a failure signal either way: records outlive dead hosts, and a live host
    /// cut off from the link loses its records at the others (their queries go unanswered, RFC 6762 §10.5). It only
    /// prunes candidates; the address the session last ran over stays, for a forgotten peer too, so both sides keep
    /// probing each other and keep the same reliable channel.
    public mutating func onDiscoveryRemoved(id: NodeID, address: Address) -> [MembershipDirective<Address>] {
        if var gone = forgotten[id] {
            if gone.address != address { gone.candidates.removeAll { $0 == address } }
            forgotten[id] = gone
            return []
        }
        guard var peer = peers[id] else { return [] }
        if peer.address != address { peer.candidates.removeAll { $0 == address } }
        peers[id] = peer
        return []
    }

    /// The secure endpoint established a session (new or rekeyed after loss, or with a new incarnation).
    public mutating func onEstablished(
        id: NodeID, incarnation: Incarnation, role: NodeRole, address: Address,
        now: MeshInstant
    ) -> [MembershipDirective<Address>] {
        guard id != localID else { return [] }
        var out: [MembershipDirective<Address>] = []
        let old: PeerState? = peers[id]?.state
        var peer =
            peers[id] ?? forgotten[id].map { gone in
                var revived = PeerRecord<Address>(id: id, state: .discovered, now: now)
                revived.name = gone.name
                revived.uavNumber = gone.uavNumber
                revived.candidates = gone.candidates
                revived.incarnation = gone.incarnation
                return revived
            } ?? PeerRecord(id: id, state: .discovered, now: now)
        forgotten[id] = nil
        if let previous = peer.incarnation, previous != incarnation {
            peer.rtt = nil
            peer.heartbeatsSent = 0
            peer.heartbeatsAnswered = 0
        }
        peer.incarnation = incarnation
        peer.role = role
        peer.address = address
        if !peer.candidates.contains(address) { peer.candidates.insert(address, at: 0) }
        peer.lastHeard = now
        peer.establishedAt = now
        peer.attempts = 0
        staticAddresses[address] = nil
        if peer.state != .established {
            peer.state = .established
            peer.stateSince = now
            out.append(.stateChanged(peer: id, from: old, to: .established))
        }
        peers[id] = peer
        return out
    }

    /// An authenticated datagram arrived from the peer (data, keepalive, a completed handshake or rekey). Whatever
    /// state the peer was in, it is `established` again.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func onHeard(id: NodeID, address: Address? = nil, now: MeshInstant) -> [MembershipDirective<
        Address
    >] {
        var out: [MembershipDirective<Address>] = []
        // In place, one lookup: called for every datagram a peer sends.
        var index = peers.index(forKey: id)
        if index == nil, !forgotten.isEmpty, let gone = forgotten.removeValue(forKey: id) {
            // A forgotten peer whose session state outlived its listing (a rekey, data on the old session).
            var revived = gone
            revived.state = .established
            revived.stateSince = now
            peers[id] = revived
            out.append(.stateChanged(peer: id, from: nil, to: .established))
            index = peers.index(forKey: id)
        }
        guard let index else { return out }
        Self.heard(&peers.values[index], id: id, address: address, now: now, into: &out)
        return out
    }

    @inline(__always)
    static func heard(
        _ peer: inout PeerRecord<Address>, id: NodeID, address: Address?, now: MeshInstant,
        into out: inout [MembershipDirective<Address>]
    ) {
        peer.lastHeard = now
        if let address { peer.address = address }
        if peer.state != .established {
            if peer.establishedAt == nil { peer.establishedAt = now }
            peer.attempts = 0
            out.append(.stateChanged(peer: id, from: peer.state, to: .established))
            peer.state = .established
            peer.stateSince = now
        }
    }

    /// The peer said goodbye: it is stopping cleanly.
    public mutating func onGoodbye(id: NodeID, now: MeshInstant) -> [MembershipDirective<Address>] {
        guard var peer = peers[id], peer.state != .left else { return [] }
        let old = peer.state
        peer.state = .left
        peer.stateSince = now
        peers[id] = peer
        return [.stateChanged(peer: id, from: old, to: .left), .closeSession(peer: id)]
    }

    /// A handshake towards the peer was started by either side.
    public mutating func onHandshakeStarted(id: NodeID, now: MeshInstant) -> [MembershipDirective<Address>] {
        guard var peer = peers[id], peer.state == .discovered else { return [] }
        peer.state = .handshaking
        peer.stateSince = now
        peers[id] = peer
        return [.stateChanged(peer: id, from: .discovered, to: .handshaking)]
    }

    /// Advances time: heartbeats, suspicion, loss, reconnection, forgetting. Peers for which `quiet` is true get no
    /// heartbeat this tick (they hear this node another way: its group datagrams); asked only of a peer due one.
    /// `allowance` is subtracted from every peer's silence before it is judged: how late this node itself has lately
    /// been in handling datagrams and ticks (its own backlog is not the peer's silence).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func onTick(
        now: MeshInstant, allowance: Duration = .zero, quiet: (NodeID) -> Bool = { _ in false }
    ) -> [MembershipDirective<Address>] {
        // Every peer is visited in place (no copy of its record in and out of the dictionary, no sorting of every
        // key on every 10 ms tick): only the peers that have something to say are sorted, so the directives come in
        // NodeID order whatever the dictionary's, as a simulation needs for a seed to replay.
        var said: [(id: NodeID, directives: [MembershipDirective<Address>])] = []
        var departed: [(id: NodeID, remember: Bool)] = []
        let configuration = configuration
        var index = peers.values.startIndex
        while index != peers.values.endIndex {
            let id = peers.keys[index]
            var directives: [MembershipDirective<Address>] = []
            let stays = Self.tick(
                &peers.values[index], id: id, now: now, allowance: allowance, configuration: configuration,
                quiet: quiet, into: &directives)
            switch stays {
            case .stays: break
            case .forgotten: departed.append((id, true))
            case .dropped: departed.append((id, false))
            }
            if !directives.isEmpty { said.append((id, directives)) }
            peers.values.formIndex(after: &index)
        }
        for (id, keep) in departed.sorted(by: { $0.id < $1.id }) {
            guard let peer = peers.removeValue(forKey: id), keep else { continue }
            // Unlisted, but its session state stays (sessions expire by themselves, the reliable channel lives on):
            // the other side may still hold its own, and both must agree when the link is back.
            let directives = remember(peer, now: now)
            if !directives.isEmpty { said.append((id, directives)) }
        }
        var out: [MembershipDirective<Address>] = []
        if said.count > 1 { said.sort { $0.id < $1.id } }
        for (_, directives) in said { out += directives }
        for id in [NodeID](forgotten.keys).sorted() {
            guard var gone = forgotten[id],
                gone.lastConnectAttempt.map({ now - $0 >= Self.probeStep(configuration.reconnectInterval, gone) })
                    ?? true,
                let address = gone.nextCandidate()
            else { continue }
            gone.lastConnectAttempt = now
            gone.attempted(address)
            forgotten[id] = gone
            out.append(.probe(peer: id, address: address))
        }
        for (address, last) in staticAddresses where last.map({ now - $0 >= configuration.reconnectInterval }) ?? true {
            staticAddresses[address] = .some(now)
            out.append(.connect(expecting: nil, address: address))
        }
        return out
    }

    /// The earliest instant at which `onTick` may have something to do, for the same `allowance`: a shell that
    /// sleeps until then instead of ticking every 10 ms misses nothing. Never later than the real next deadline, and
    /// it may be earlier (a tick then finds nothing due). `quietUntil(id)`: until when a peer that `quiet` would spare
    /// a heartbeat is sure to stay so (nil: not quiet now); it must agree with the `quiet` given to `onTick`. Nil:
    /// nothing is scheduled.
    public func nextDeadline(
        now: MeshInstant, allowance: Duration = .zero, quietUntil: (NodeID) -> MeshInstant? = { _ in nil }
    ) -> MeshInstant? {
        var best: MeshInstant?
        @inline(__always) func consider(_ t: MeshInstant) { if best.map({ t < $0 }) ?? true { best = t } }
        let c = configuration
        for (id, peer) in peers {
            switch peer.state {
            case .established, .suspect:
                // Silence is judged net of the allowance: it moves these deadlines later.
                if let heard = peer.lastHeard {
                    consider(heard + allowance + (peer.state == .established ? c.suspectAfter : c.lostAfter))
                }
                let due = peer.lastHeartbeat.map { $0 + c.heartbeatInterval } ?? now
                // A peer quiet until after its heartbeat falls due needs none before then.
                if let quiet = quietUntil(id), quiet > due { consider(quiet) } else { consider(due) }
            case .discovered, .handshaking, .lost:
                if peer.state == .lost { consider(peer.stateSince + c.forgetAfter) }
                guard !peer.candidateOrder.isEmpty else { continue }
                let interval = peer.state == .lost ? Self.probeStep(c.reconnectInterval, peer) : c.reconnectInterval
                consider(peer.lastConnectAttempt.map { $0 + interval } ?? now)
            case .left:
                consider(peer.stateSince + c.forgetAfter)
            }
        }
        for gone in forgotten.values where !gone.candidateOrder.isEmpty {
            consider(gone.lastConnectAttempt.map { $0 + Self.probeStep(c.reconnectInterval, gone) } ?? now)
        }
        for last in staticAddresses.values { consider(last.map { $0 + c.reconnectInterval } ?? now) }
        return best
    }

    /// What becomes of a peer after a tick.
    enum TickOutcome { case stays, forgotten, dropped }

    /// One peer's timers on a tick, on its record in place: heartbeats, suspicion, loss, reconnection, forgetting.
    @inline(__always)
    static func tick(
        _ peer: inout PeerRecord<Address>, id: NodeID, now: MeshInstant, allowance: Duration,
        configuration: MembershipConfiguration, quiet: (NodeID) -> Bool,
        into out: inout [MembershipDirective<Address>]
    ) -> TickOutcome {
        switch peer.state {
        case .established, .suspect:
            let silent = peer.lastHeard.map { now - $0 - allowance } ?? .zero
            if silent >= configuration.lostAfter {
                out.append(.stateChanged(peer: id, from: peer.state, to: .lost))
                peer.state = .lost
                peer.stateSince = now
                peer.lastConnectAttempt = now
            } else {
                if silent >= configuration.suspectAfter, peer.state == .established {
                    out.append(.stateChanged(peer: id, from: .established, to: .suspect))
                    peer.state = .suspect
                    peer.stateSince = now
                }
                if peer.lastHeartbeat.map({ now - $0 >= configuration.heartbeatInterval }) ?? true, !quiet(id) {
                    peer.lastHeartbeat = now
                    out.append(.sendHeartbeat(to: id))
                }
            }
        case .discovered, .handshaking, .lost:
            if peer.state == .lost, now - peer.stateSince >= configuration.forgetAfter { return .forgotten }
            let interval =
                peer.state == .lost
                ? probeStep(configuration.reconnectInterval, peer) : configuration.reconnectInterval
            if peer.lastConnectAttempt.map({ now - $0 >= interval }) ?? true, let address = peer.nextCandidate() {
                if peer.state == .lost {
                    peer.lastConnectAttempt = now
                    peer.attempted(address)
                    out.append(.probe(peer: id, address: address))
                } else {
                    out += Self.connect(&peer, to: address, now: now)
                }
            }
        case .left:
            if now - peer.stateSince >= configuration.forgetAfter { return .dropped }
        }
        return .stays
    }

    private static func connect(_ peer: inout PeerRecord<Address>, to address: Address, now: MeshInstant)
        -> [MembershipDirective<Address>]
    {
        peer.lastConnectAttempt = now
        peer.attempted(address)
        var out: [MembershipDirective<Address>] = [.connect(expecting: peer.id, address: address)]
        if peer.state == .discovered || peer.state == .left {
            out.append(.stateChanged(peer: peer.id, from: peer.state, to: .handshaking))
            peer.state = .handshaking
            peer.stateSince = now
        }
        return out
    }

    /// Peers in the given states, sorted by id.
    public func peers(in states: Set<PeerState>) -> [PeerRecord<Address>] {
        peers.values.filter { states.contains($0.state) }.sorted { $0.id < $1.id }
    }
}

extension MembershipTable {
    /// Records who a peer says it is (its hello message), for peers met by handshake only.
    public mutating func updateIdentity(id: NodeID, name: String, uavNumber: Int?) {
        guard var peer = peers[id] else { return }
        peer.name = name
        peer.uavNumber = uavNumber
        peers[id] = peer
    }
}
