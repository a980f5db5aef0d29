import MeshTypes

/// The membership core: every peer's state, driven by discovery, session and heartbeat events, with time
/// injected. Pure: it returns directives and never touches sockets or clocks.
///
/// Failure detection is by silence: any authenticated datagram from a peer counts as hearing it. A peer silent
/// for `suspectAfter` is suspect, for `lostAfter` lost. Lost and never-established peers are reconnected every
/// `reconnectInterval` at their last known addresses; a goodbye marks a peer as left at once.
public struct MembershipTable<Address: Hashable & Sendable>: Sendable {
    public let configuration: MembershipConfiguration
    public let localID: NodeID
    public private(set) var peers: [NodeID: PeerRecord<Address>] = [:]
    /// Configured unicast peers whose identity is not known until their handshake completes.
    private var staticAddresses: [Address: MeshInstant?] = [:]

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
    public mutating func onDiscovered(id: NodeID, incarnation: Incarnation?, name: String?, role: NodeRole?, uavNumber: Int?,
                                      address: Address, now: MeshInstant) -> [MembershipDirective<Address>] {
        guard id != localID else { return [] }
        var out: [MembershipDirective<Address>] = []
        var peer = peers[id] ?? {
            out.append(.stateChanged(peer: id, from: nil, to: .discovered))
            return PeerRecord(id: id, state: .discovered, now: now)
        }()
        if let name { peer.name = name }
        if let role { peer.role = role }
        peer.uavNumber = uavNumber
        if !peer.candidates.contains(address) { peer.candidates.append(address) }
        let restarted = incarnation != nil && peer.incarnation != nil && incarnation != peer.incarnation
        switch peer.state {
        case .discovered, .lost, .left:
            if peer.state == .left, !restarted, incarnation == peer.incarnation { peers[id] = peer; return out }
            out += connect(&peer, to: address, now: now)
        case .handshaking:
            break
        case .established, .suspect:
            // The record shows a new incarnation before the restarted peer reached us: reconnect now.
            if restarted { out += connect(&peer, to: address, now: now) }
        }
        peers[id] = peer
        return out
    }

    /// Discovery saw the address go away. Not a failure signal (records outlive dead hosts); it only prunes candidates.
    public mutating func onDiscoveryRemoved(id: NodeID, address: Address) {
        guard var peer = peers[id] else { return }
        if peer.address != address { peer.candidates.removeAll { $0 == address } }
        peers[id] = peer
    }

    /// The secure endpoint established a session (new or rekeyed after loss, or with a new incarnation).
    public mutating func onEstablished(id: NodeID, incarnation: Incarnation, role: NodeRole, address: Address,
                                       now: MeshInstant) -> [MembershipDirective<Address>] {
        guard id != localID else { return [] }
        var out: [MembershipDirective<Address>] = []
        var peer = peers[id] ?? PeerRecord(id: id, state: .discovered, now: now)
        let old: PeerState? = peers[id]?.state
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

    /// An authenticated datagram arrived from the peer.
    public mutating func onHeard(id: NodeID, address: Address? = nil, now: MeshInstant) -> [MembershipDirective<Address>] {
        guard var peer = peers[id] else { return [] }
        peer.lastHeard = now
        if let address { peer.address = address }
        var out: [MembershipDirective<Address>] = []
        if peer.state == .suspect || peer.state == .lost {
            out.append(.stateChanged(peer: id, from: peer.state, to: .established))
            peer.state = .established
            peer.stateSince = now
        }
        peers[id] = peer
        return out
    }

    /// A heartbeat sent `rtt` ago was answered.
    public mutating func onHeartbeatReply(id: NodeID, rtt: Duration, now: MeshInstant) {
        guard var peer = peers[id] else { return }
        peer.heartbeatsAnswered += 1
        // RFC 6298-style smoothing (alpha 1/8).
        if let old = peer.rtt { peer.rtt = old * 0.875 + rtt * 0.125 } else { peer.rtt = rtt }
        peers[id] = peer
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

    /// Advances time: heartbeats, suspicion, loss, reconnection, forgetting.
    public mutating func onTick(now: MeshInstant) -> [MembershipDirective<Address>] {
        var out: [MembershipDirective<Address>] = []
        for id in peers.keys.sorted() {
            guard var peer = peers[id] else { continue }
            switch peer.state {
            case .established, .suspect:
                let silent = peer.lastHeard.map { now - $0 } ?? .zero
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
                    if peer.lastHeartbeat.map({ now - $0 >= configuration.heartbeatInterval }) ?? true {
                        peer.lastHeartbeat = now
                        peer.heartbeatsSent += 1
                        out.append(.sendHeartbeat(to: id))
                    }
                }
            case .discovered, .handshaking, .lost:
                if peer.state == .lost, now - peer.stateSince >= configuration.forgetAfter {
                    peers[id] = nil
                    out.append(.closeSession(peer: id))
                    continue
                }
                if peer.lastConnectAttempt.map({ now - $0 >= configuration.reconnectInterval }) ?? true,
                   let address = peer.nextCandidate() {
                    out += connect(&peer, to: address, now: now)
                }
            case .left:
                if now - peer.stateSince >= configuration.forgetAfter {
                    peers[id] = nil
                    continue
                }
            }
            peers[id] = peer
        }
        for (address, last) in staticAddresses where last.map({ now - $0 >= configuration.reconnectInterval }) ?? true {
            staticAddresses[address] = .some(now)
            out.append(.connect(expecting: nil, address: address))
        }
        return out
    }

    private func connect(_ peer: inout PeerRecord<Address>, to address: Address, now: MeshInstant) -> [MembershipDirective<Address>] {
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
