import Crypto
import MeshTypes
import NIOCore

/// The pure (sans-IO) secure transport of one node: handshakes, session table, encryption, replay protection and rekeying
/// for every peer, generic over the shell's address type (a socket address in production, an integer in simulation).
///
/// The shell feeds it events — `connect`, `receive`, `send`, `tick` — with the current time, and carries out the returned
/// `Directive`s in order. It never reads a clock, opens a socket or spawns a task.
public struct SecureEndpoint<Address: Hashable & Sendable>: Sendable {
    /// This node's identity.
    public let localID: NodeID
    /// This node's incarnation, sent in every handshake message.
    public let incarnation: Incarnation
    /// This node's role, sent in every handshake message.
    public let role: NodeRole
    /// Timings and limits.
    public let configuration: SecureTransportConfiguration

    let crypto: HandshakeCrypto
    var random: any RandomNumberGenerator & Sendable
    var peers: [NodeID: Peer] = [:]
    /// Unanswered initiations, oldest first (an array keeps every iteration order deterministic).
    var pending: [PendingInitiation] = []
    /// Answered handshakes waiting for the initiator's first transport message, by peer, oldest first. Several are
    /// kept (up to `unconfirmedPerPeer`): an initiator probing over IPv4 and IPv6 at once may confirm either answer,
    /// and its responses can arrive in either order.
    var unconfirmed: [NodeID: [UnconfirmedSession]] = [:]
    /// How many answered, unconfirmed handshakes are kept per peer.
    static var unconfirmedPerPeer: Int { 4 }
    var indexOwners: [UInt32: IndexOwner] = [:]
    /// Highest initiation timestamp accepted per peer; survives `forget` so old initiations stay refused.
    var highestTimestamps: [NodeID: UInt64] = [:]
    var lastSentTimestamp: UInt64 = 0
    /// The wall clock minus `now`, in microseconds, as of the latest `connect` or `tick`: the timestamp of an
    /// initiation sent while receiving (`hurryHandshake`), where no wall clock is passed in.
    var wallOffsetMicros: Int64 = 0
    /// When a session next expires or is due for a rekey (nil: look at every session on the next tick). A tick every
    /// 10 ms then costs nothing per peer in between; installing a session, and a counter reaching
    /// `rekeyAfterMessages`, set it back to nil.
    var sessionSweepAt: MeshInstant?
    /// Initiations replaced by fresher ones, by their index (`SecureEndpoint+LateAnswers`).
    var replaced: [UInt32: ReplacedInitiation] = [:]
    /// Paths whose answers came late, by address and by peer: initiations there are spaced further apart.
    var slowAddresses: [Address: SlowPath] = [:]
    var slowPeers: [NodeID: SlowPath] = [:]

    /// An endpoint for the mesh of `key`. `random` draws session indices and ephemeral keys; inject a seeded generator
    /// for reproducible simulations (never in production).
    public init(
        key: MeshKey, localID: NodeID, incarnation: Incarnation, role: NodeRole,
        configuration: SecureTransportConfiguration = .default,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.crypto = HandshakeCrypto(key: key)
        self.localID = localID
        self.incarnation = incarnation
        self.role = role
        self.configuration = configuration
        self.random = random
    }

    // MARK: Events

    /// Starts a handshake with whoever listens at `address`. With `expecting`, the responder must be that node
    /// (otherwise `.rejected(address, .nodeIDMismatch)`). Without `renew`, does nothing when the expected peer already
    /// has a usable session at that address; with `renew` (a peer gone silent: its session may be dead on the other
    /// side) a fresh handshake starts anyway, and its completion proves the peer is there in both directions.
    ///
    /// While a handshake to `address` is pending, a call sends its next initiation now if the last one left at least
    /// `handshakeRetransmitInitial` ago (so a caller probing every 500 ms is not held back by the backoff), and does
    /// nothing otherwise. A handshake to another address of the same expected peer is replaced: one attempt per peer
    /// at a time.
    ///
    /// Unanswered initiations are resent by `tick` after 250 ms, doubling up to 2 s. Each resend is a *fresh*
    /// initiation (new ephemeral key, index and timestamp), because the responder refuses a timestamp it has already
    /// accepted; a late response to a superseded initiation is refused as `unknownReceiverIndex`.
    public mutating func connect(
        to address: Address, expecting: NodeID? = nil, renew: Bool = false, now: MeshInstant, wallClockMicros: UInt64
    ) -> [Directive] {
        if let expecting, expecting == localID { return [] }
        noteWallClock(wallClockMicros, now: now)
        if let p = pending.first(where: { $0.address == address }) {
            guard now - p.lastSentAt >= initiationSpacing(to: address, expecting: p.expected ?? expecting, now: now),
                now - p.startedAt < configuration.handshakeAttemptTimeout
            else { return [] }
            let message = startInitiation(
                to: address, expecting: p.expected ?? expecting, startedAt: p.startedAt, now: now,
                retransmitDelay: p.retransmitDelay, wallClockMicros: wallClockMicros)
            return [.send(message, to: address)]
        }
        if let expecting, !renew, let peer = peers[expecting], peer.address == address, let s = peer.current,
            !isExpired(s, now)
        {
            return []
        }
        // One handshake at a time per expected peer: trying another of its addresses replaces the attempt at the
        // previous one (a late answer to that is refused as `unknownReceiverIndex`).
        if let expecting, let p = pending.first(where: { $0.expected == expecting }) {
            // On a slow path the attempt at the other address is left to be answered first.
            if let spacing = slowSpacing(to: p.address, expecting: expecting, now: now), now - p.lastSentAt < spacing {
                return []
            }
            replacePending(where: { $0.expected == expecting }, now: now)
        }
        let message = startInitiation(
            to: address, expecting: expecting, startedAt: now, now: now,
            retransmitDelay: configuration.handshakeRetransmitInitial, wallClockMicros: wallClockMicros)
        return [.send(message, to: address)]
    }

    /// Processes one received datagram. Never traps, whatever the bytes.
    // Pre-specialised for the production address type and the simulations' `Int`: the generic version pays for
    // metadata lookups on every dictionary access (about 25% of a seal+open round trip).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func receive(_ datagram: [UInt8], from address: Address, now: MeshInstant) -> [Directive] {
        guard let first = datagram.first else { return [.rejected(address, .unknownMessageType(nil))] }
        switch MessageType(rawValue: first) {
        case .initiation: return handleInitiation(datagram, from: address, now: now)
        case .response: return handleResponse(datagram, from: address, now: now)
        case .transport: return handleTransport(datagram, from: address, now: now)
        // Group datagrams are the group channel's (their own socket), never a session's.
        case .group, nil: return [.rejected(address, .unknownMessageType(first))]
        }
    }

    /// Processes one received datagram held in a `ByteBuffer` (its readable bytes).
    public mutating func receive(_ datagram: ByteBuffer, from address: Address, now: MeshInstant) -> [Directive] {
        receive(Array(datagram.readableBytesView), from: address, now: now)
    }

    /// Encrypts `plaintext` for `peer` on its current session. An empty plaintext is a keepalive: the peer accepts
    /// it (confirming a fresh session and updating the address) but delivers nothing.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func send(_ plaintext: [UInt8], to peer: NodeID, now: MeshInstant) throws(SecureTransportError)
        -> [Directive]
    {
        let s = try nextSend(to: peer, now: now)
        let datagram = TransportMessage.seal(plaintext, receiverIndex: s.remoteIndex, counter: s.counter, key: s.key)
        return [.send(datagram, to: s.address)]
    }

    /// What the next transport message to a peer is sealed with: its current session's remote index and send key, the
    /// counter (taken: the session's send counter moves on) and the peer's address.
    struct Outgoing {
        var remoteIndex: UInt32
        var counter: UInt64
        var key: SessionKey
        var address: Address
    }

    /// Takes the next send counter of `peer`'s current session; throws `.noSession` when it has none usable.
    mutating func nextSend(to peer: NodeID, now: MeshInstant) throws(SecureTransportError) -> Outgoing {
        // In place, by index: `peers[peer]` would copy the peer (retaining and releasing every key and window of its
        // sessions), and `peers[peer]!.current!…` goes through the dictionary's `modify` of an optional value, which
        // unspecialized (debug builds) allocates.
        let limits = configuration
        guard let i = peers.index(forKey: peer), let out = peers.values[i].takeSend(now: now, limits: limits) else {
            throw .noSession(peer)
        }
        if out.counter + 1 >= limits.rekeyAfterMessages { sessionSweepAt = nil }
        return out
    }

    /// Advances timers: resends and abandons handshakes, starts rekeys, drops expired sessions.
    /// Call it at `nextDeadline` (or periodically, e.g. every 100 ms).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func tick(now: MeshInstant, wallClockMicros: UInt64) -> [Directive] {
        noteWallClock(wallClockMicros, now: now)
        var out: [Directive] = []
        // Handshakes in flight (iterating a snapshot: a resend replaces its entry).
        for p in pending {
            if now - p.startedAt >= configuration.handshakeAttemptTimeout {
                removePending { $0.localIndex == p.localIndex }
                out.append(.handshakeAbandoned(p.address, expected: p.expected))
            } else if now >= p.nextRetransmitAt {
                let delay = min(p.retransmitDelay * 2, configuration.handshakeRetransmitMax)
                let message = startInitiation(
                    to: p.address, expecting: p.expected, startedAt: p.startedAt, now: now,
                    retransmitDelay: delay, wallClockMicros: wallClockMicros)
                out.append(.send(message, to: p.address))
            }
        }
        // Answered handshakes never confirmed.
        for (id, list) in unconfirmed where list.contains(where: { isExpired($0.session, now) }) {
            let (expired, kept) = (
                list.filter { isExpired($0.session, now) }, list.filter { !isExpired($0.session, now) }
            )
            for u in expired { indexOwners[u.session.localIndex] = nil }
            unconfirmed[id] = kept.isEmpty ? nil : kept
        }
        // Sessions, when one may expire or be due for a rekey: only those peers have work (sorted: a simulation is
        // the same for a seed).
        if let at = sessionSweepAt, now < at { return out }
        let due = peers.compactMap { id, peer -> NodeID? in
            if let s = peer.current, isExpired(s, now) || needsRekey(s, now: now) { return id }
            if let s = peer.previous, isExpired(s, now) { return id }
            return nil
        }
        defer { sessionSweepAt = nextSessionDeadline() }
        for id in due.sorted() {
            guard var peer = peers[id] else { continue }
            if let s = peer.current, isExpired(s, now) {
                indexOwners[s.localIndex] = nil
                peer.current = nil
            }
            if let s = peer.previous, isExpired(s, now) {
                indexOwners[s.localIndex] = nil
                peer.previous = nil
            }
            if peer.current == nil && peer.previous == nil {
                peers[id] = nil
                out.append(.expired(id))
                continue
            }
            peers[id] = peer
            if let s = peer.current, needsRekey(s, now: now), !hasPending(for: peer) {
                let message = startInitiation(
                    to: peer.address, expecting: id, startedAt: now, now: now,
                    retransmitDelay: configuration.handshakeRetransmitInitial, wallClockMicros: wallClockMicros)
                out.append(.send(message, to: peer.address))
            }
        }
        return out
    }

    /// Drops every session and pending handshake with `peer`. Its initiation timestamps stay remembered.
    public mutating func forget(_ peer: NodeID) {
        for u in unconfirmed.removeValue(forKey: peer) ?? [] { indexOwners[u.session.localIndex] = nil }
        guard let p = peers.removeValue(forKey: peer) else {
            removePending { $0.expected == peer }
            return
        }
        for s in p.allSessions { indexOwners[s.localIndex] = nil }
        removePending { $0.expected == peer || ($0.expected == nil && $0.address == p.address) }
    }

    // MARK: Queries

    /// The session table, ordered by NodeID. Lists peers that still have a session (current or previous).
    public var sessions: [SessionSummary] {
        peers.keys.sorted().compactMap { id in
            guard let p = peers[id], let s = p.current ?? p.previous else { return nil }
            return SessionSummary(
                peer: id, address: p.address, incarnation: p.incarnation, role: p.role, establishedAt: p.establishedAt,
                currentSessionStartedAt: s.createdAt, lastReceived: p.lastReceived, isInitiator: s.isInitiator)
        }
    }

    /// The peer's identity as currently known (`previousIncarnation` is always nil here), if it has a session.
    public func peerInfo(_ peer: NodeID) -> PeerInfo? {
        peers[peer].map {
            PeerInfo(
                id: $0.id, incarnation: $0.incarnation, role: $0.role, address: $0.address, previousIncarnation: nil)
        }
    }

    /// Whether `send` to `peer` would succeed at `now`.
    public func hasSession(with peer: NodeID, now: MeshInstant) -> Bool {
        guard let s = peers[peer]?.current else { return false }
        return !isExpired(s, now) && s.sendCounter < configuration.rejectAfterMessages
    }

    /// Addresses with a handshake in flight.
    public var pendingHandshakes: [Address] { pending.map(\.address) }

    /// The earliest instant at which `tick` has something to do (nil: nothing scheduled).
    public var nextDeadline: MeshInstant? {
        var best: MeshInstant?
        func consider(_ t: MeshInstant) { if best.map({ t < $0 }) ?? true { best = t } }
        for list in unconfirmed.values { for u in list { consider(u.session.createdAt + configuration.rejectAfter) } }
        for p in pending {
            consider(p.nextRetransmitAt)
            consider(p.startedAt + configuration.handshakeAttemptTimeout)
        }
        // Asked after every mesh tick (MeshCore.nextDeadline): no array per peer.
        for peer in peers.values {
            if let s = peer.current { consider(s.createdAt + configuration.rejectAfter) }
            if let s = peer.previous { consider(s.createdAt + configuration.rejectAfter) }
            if let s = peer.current, !hasPending(for: peer) {
                consider(s.createdAt + (s.isInitiator ? configuration.rekeyAfter : configuration.responderRekeyAfter))
            }
        }
        return best
    }

    // MARK: Helpers

    /// The earliest time a session expires or an initiator or responder rekeys by age (a rekey waiting for a
    /// handshake in flight keeps it in the past, so it is looked at again on every tick, as before).
    func nextSessionDeadline() -> MeshInstant? {
        var earliest: MeshInstant?
        for peer in peers.values {
            if let s = peer.current {
                let rekey = s.isInitiator ? configuration.rekeyAfter : configuration.responderRekeyAfter
                let at = s.createdAt + min(rekey, configuration.rejectAfter)
                earliest = min(earliest ?? at, at)
            }
            if let s = peer.previous {
                let at = s.createdAt + configuration.rejectAfter
                earliest = min(earliest ?? at, at)
            }
        }
        return earliest
    }

    func isExpired(_ s: Session, _ now: MeshInstant) -> Bool {
        now - s.createdAt >= configuration.rejectAfter
    }

    func needsRekey(_ s: Session, now: MeshInstant) -> Bool {
        let age = now - s.createdAt
        if s.isInitiator {
            return age >= configuration.rekeyAfter || s.sendCounter >= configuration.rekeyAfterMessages
        }
        return age >= configuration.responderRekeyAfter
    }

    func hasPending(for peer: Peer) -> Bool {
        pending.contains { $0.expected == peer.id || ($0.expected == nil && $0.address == peer.address) }
    }

    mutating func removePending(where predicate: (PendingInitiation) -> Bool) {
        for p in pending where predicate(p) { indexOwners[p.localIndex] = nil }
        pending.removeAll(where: predicate)
    }

    /// A session index not in use.
    mutating func freshIndex() -> UInt32 {
        while true {
            let i = UInt32(truncatingIfNeeded: random.next())
            if indexOwners[i] == nil { return i }
        }
    }

    /// A fresh ephemeral X25519 private key (raw bytes) and its public key.
    mutating func freshEphemeral() -> (privateKey: [UInt8], publicKey: [UInt8]) {
        let key = (try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: random.bytes32())) ?? .init()
        return (Array(key.rawRepresentation), Array(key.publicKey.rawRepresentation))
    }

    /// The wall clock (microseconds since the Unix epoch) at `now`. `connect` and `tick` note it too; a shell gives it
    /// once before its first event, so an initiation sent before the first tick (a peer heard or discovered at once)
    /// carries the wall clock, not the time since the process started: a responder that accepted a timestamp from
    /// this node's previous run refuses anything lower as a replay.
    public mutating func noteWallClock(_ micros: UInt64, now: MeshInstant) {
        wallOffsetMicros = Int64(bitPattern: micros) &- Int64(now.nanoseconds / 1000)
    }

    /// The wall clock (microseconds) at `now`, from the one given last to `connect` or `tick`; handshake timestamps
    /// come from it.
    public func wallClock(_ now: MeshInstant) -> UInt64 {
        UInt64(bitPattern: max(0, Int64(now.nanoseconds / 1000) &+ wallOffsetMicros))
    }
}
