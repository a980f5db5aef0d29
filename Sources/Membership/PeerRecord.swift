import MeshTypes

/// What this node knows of one peer.
public struct PeerRecord<Address: Hashable & Sendable>: Sendable {
    public let id: NodeID
    public var name: String?
    public var role: NodeRole?
    public var incarnation: Incarnation?
    public var uavNumber: Int?
    public var state: PeerState
    /// The address the session runs over, once established.
    public var address: Address?
    /// Addresses from discovery or configuration, in order of preference.
    public var candidates: [Address]
    public var lastHeard: MeshInstant?
    public var stateSince: MeshInstant
    public var establishedAt: MeshInstant?
    /// Smoothed round-trip time (heartbeat replies and group echoes), and when it was last sampled.
    public var rtt: Duration?
    public var rttSampledAt: MeshInstant?
    /// Heartbeats sent that asked for a reply, and replies to them, since the session was established: link quality.
    public var heartbeatsSent: UInt64 = 0
    public var heartbeatsAnswered: UInt64 = 0
    var lastConnectAttempt: MeshInstant?
    /// How many reconnection attempts have been made since the last session; picks the candidate to try.
    var attempts = 0
    var lastHeartbeat: MeshInstant?
    /// When a datagram of its on the group channel was last heard while it was out of session (lost or forgotten); one
    /// from before its `stateSince` belongs to an earlier episode.
    var heardOutOfSession: MeshInstant?

    init(id: NodeID, state: PeerState, now: MeshInstant) {
        self.id = id
        self.state = state
        self.candidates = []
        self.stateSince = now
    }

    /// The address for the next reconnection attempt: the session's last address first, then every other
    /// candidate in turn, so one unusable address (an IPv6 address still in duplicate-address detection, a
    /// stale record) cannot hold a peer in "handshaking" while another would work.
    func nextCandidate() -> Address? {
        let order = candidateOrder
        return order.isEmpty ? nil : order[attempts % order.count]
    }

    /// Records an attempt to `tried`, so the next one goes to the candidate after it.
    mutating func attempted(_ tried: Address) {
        let order = candidateOrder
        attempts = (order.firstIndex(of: tried) ?? attempts) + 1
    }

    /// Every address to try: the last session's first, then the other candidates.
    var candidateOrder: [Address] {
        (address.map { [$0] } ?? []) + candidates.filter { $0 != address }
    }

    /// Whether a handshake ever proved this peer's identity (as opposed to an unauthenticated DNS-SD advert only).
    public var isAuthenticated: Bool { establishedAt != nil }

    /// Share of the heartbeats that asked for a reply and got one (0…1), nil before any asked.
    public var linkQuality: Double? {
        heartbeatsSent == 0 ? nil : min(1, Double(heartbeatsAnswered) / Double(heartbeatsSent))
    }
}
