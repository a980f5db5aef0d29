import MeshTypes

/// Handshakes on a slow path. Every resend is a fresh initiation that replaces the one before, so an answer slower
/// than the resends (a node short of CPU: its queue, and its peer's, hold datagrams for hundreds of milliseconds)
/// always answers an initiation already replaced, and the handshake never completes (seen in the lab: up to 325
/// attempts per node in 20 s). The endpoint keeps the last initiations it replaced; an authentic answer to one of them
/// measures the path's round trip, and for a while the initiations to that peer (and address) are spaced at least
/// twice that round trip apart, so the next one is answered before it is replaced. On a path that answers in time
/// nothing changes: a lost link is still probed as fast as the caller asks.
extension SecureEndpoint {
    /// An initiation replaced by a fresher one, kept so a late answer to it can be recognised (and never used).
    struct ReplacedInitiation: Sendable {
        var address: Address
        var expected: NodeID?
        var message: [UInt8]
        var sentAt: MeshInstant
    }

    /// How long initiations to one peer or address are spaced after a late answer, and until when.
    struct SlowPath: Sendable, Equatable {
        var spacing: Duration
        var until: MeshInstant
    }

    /// How many replaced initiations are kept (each for at most twice the longest resend delay).
    static var replacedLimit: Int { 32 }
    /// How long a measured slow path is remembered after its latest late answer.
    static var slowPathMemory: Duration { .seconds(30) }

    /// Drops the pending initiations matching `predicate` for fresher ones, keeping them as replaced.
    mutating func replacePending(where predicate: (PendingInitiation) -> Bool, now: MeshInstant) {
        for p in pending where predicate(p) {
            replaced[p.localIndex] = ReplacedInitiation(
                address: p.address, expected: p.expected, message: p.message, sentAt: p.lastSentAt)
        }
        removePending(where: predicate)
        let oldest = now - configuration.handshakeRetransmitMax * 2
        if replaced.count > Self.replacedLimit || replaced.values.contains(where: { $0.sentAt < oldest }) {
            replaced = replaced.filter { $0.value.sentAt >= oldest }
            while replaced.count > Self.replacedLimit,
                let first = replaced.min(by: { $0.value.sentAt < $1.value.sentAt })
            {
                replaced[first.key] = nil
            }
        }
    }

    /// A response naming no pending initiation: if it authentically answers a replaced one, the round trip it took is
    /// remembered for that peer and address. The answer itself is never used (the caller refuses it).
    mutating func noteLateAnswer(_ d: [UInt8], receiverIndex: UInt32, now: MeshInstant) {
        guard let r = replaced[receiverIndex],
            crypto.verify(
                mac: d[HandshakeResponse.macOffset...], over: r.message, Array(d[..<HandshakeResponse.macOffset]))
        else { return }
        replaced[receiverIndex] = nil
        let roundTrip = now - r.sentAt
        guard roundTrip * 2 > configuration.handshakeRetransmitInitial else { return }
        let path = SlowPath(
            spacing: min(roundTrip * 2, configuration.handshakeRetransmitMax), until: now + Self.slowPathMemory)
        slowAddresses = slowAddresses.filter { now < $0.value.until }
        slowPeers = slowPeers.filter { now < $0.value.until }
        slowAddresses[r.address] = path
        if let peer = r.expected { slowPeers[peer] = path }
        // The attempt under way there waits as long before its resend (its deadline moves, so a caller that sleeps
        // until `nextDeadline` finds it due).
        for i in pending.indices
        where pending[i].address == r.address || (r.expected != nil && pending[i].expected == r.expected) {
            let lastSent = pending[i].lastSentAt
            pending[i].retransmitDelay = max(pending[i].retransmitDelay, path.spacing)
            pending[i].nextRetransmitAt = lastSent + pending[i].retransmitDelay
        }
    }

    /// The least time between two initiations to `address` (and `peer`): the initial resend delay, or more on a path
    /// that answered late.
    func initiationSpacing(to address: Address, expecting peer: NodeID?, now: MeshInstant) -> Duration {
        max(configuration.handshakeRetransmitInitial, slowSpacing(to: address, expecting: peer, now: now) ?? .zero)
    }

    /// The spacing a late answer asked for on the way to `address` or `peer` (nil: none remembered).
    func slowSpacing(to address: Address, expecting peer: NodeID?, now: MeshInstant) -> Duration? {
        var spacing: Duration?
        if let s = slowAddresses[address], now < s.until { spacing = s.spacing }
        if let peer, let s = slowPeers[peer], now < s.until { spacing = max(spacing ?? .zero, s.spacing) }
        return spacing
    }

    /// The slow paths measured and still remembered, by peer: the spacing kept for each.
    public func slowHandshakePaths(now: MeshInstant) -> [NodeID: Duration] {
        slowPeers.filter { now < $0.value.until }.mapValues(\.spacing)
    }
}
