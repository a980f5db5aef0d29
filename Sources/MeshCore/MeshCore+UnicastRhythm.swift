import Membership
import MeshTypes

/// How often a session's own heartbeats, and replies to them, go when other traffic already proves what they prove
/// (PROTOCOL.md §6.2, "Heartbeats carried by traffic").
///
/// A peer judges this node by silence, and any authenticated datagram breaks it: a heartbeat in a 50 ms gap that a
/// telemetry message or a control sample has just filled tells the peer nothing. A reply to every heartbeat doubled
/// the datagrams of every session, for round trips that change slowly. So, per peer:
/// - a heartbeat is skipped while a datagram went to the peer within the heartbeat interval, once its clock is
///   estimated, and as long as one heartbeat went within ``heartbeatFloor`` (the peer's estimate of this node's
///   clock needs a stamp every so often);
/// - a heartbeat asks for a reply (``quietBit`` clear) when it is among the first ``requestsAtStart`` of a session or
///   the last one that asked left ``requestInterval`` ago or more; the others carry ``quietBit``;
/// - a heartbeat is answered when it asks, or when the peer was silent for more than two heartbeat intervals before
///   it: after an outage the reply is what tells the peer it is heard again (its reliable window resumes at once).
///
/// The share of heartbeats answered (`PeerRecord.linkQuality`) counts only those that asked.
struct UnicastRhythm: Sendable {
    struct Peer: Sendable {
        /// The last sealed datagram sent to the peer (any frames).
        var sent: MeshInstant?
        /// The last heartbeat sent to the peer.
        var heartbeat: MeshInstant?
        /// The last heartbeat sent to the peer that asked for a reply.
        var requested: MeshInstant?
        /// Heartbeats that asked for a reply since the session (re)started.
        var requests = 0
        /// The last unicast datagram heard from the peer.
        var heard: MeshInstant?
    }

    /// Bit 31 of a heartbeat's `id`: the sender asks for no reply. A node of an earlier build answers it anyway.
    static var quietBit: UInt32 { 0x8000_0000 }
    /// A heartbeat goes at least this often to a peer in session, whatever else goes to it.
    static var heartbeatFloor: Duration { .milliseconds(500) }
    /// Past a session's first requests, a heartbeat asks for a reply at most this often.
    static var requestInterval: Duration { .milliseconds(500) }
    /// The first heartbeats of a session all ask for a reply: the peer's round trip is measured at once.
    static var requestsAtStart: Int { 4 }

    var peers: [NodeID: Peer] = [:]

    /// Until when the heartbeat due to `peer` can be skipped (nil: not now): while something else reached it within
    /// `interval`, and a heartbeat went within `heartbeatFloor`.
    func carriedUntil(_ peer: NodeID, interval: Duration, now: MeshInstant) -> MeshInstant? {
        guard let p = peers[peer], let sent = p.sent, let heartbeat = p.heartbeat else { return nil }
        let until = min(sent + interval, heartbeat + Self.heartbeatFloor)
        return now < until ? until : nil
    }

    /// A heartbeat to `peer` leaves now: whether it asks for a reply (and it is counted if so).
    mutating func heartbeatAsks(_ peer: NodeID, now: MeshInstant) -> Bool {
        var p = peers[peer] ?? Peer()
        p.heartbeat = now
        let asks = p.requests < Self.requestsAtStart || p.requested.map { now - $0 >= Self.requestInterval } ?? true
        if asks {
            p.requests += 1
            p.requested = now
        }
        peers[peer] = p
        return asks
    }

    /// Whether a heartbeat from `peer` with this `id`, arriving now, is answered: it asks, or the peer was silent
    /// longer than two heartbeat intervals before it.
    func answers(_ id: UInt32, from peer: NodeID, interval: Duration, now: MeshInstant) -> Bool {
        id & Self.quietBit == 0 || peers[peer]?.heard.map { now - $0 > interval * 2 } ?? true
    }

    /// A session with `peer` (re)started after silence: its first heartbeats ask for replies again.
    mutating func restart(_ peer: NodeID) {
        peers[peer]?.requests = 0
    }
}
