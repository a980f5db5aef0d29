import MeshTypes

/// Lost and forgotten peers: how often they are probed, a probe at once when one is heard again on the group, and the
/// forgotten peers kept for probing.
extension MembershipTable {
    /// A peer out of session (lost, or forgotten) was heard on the group channel, from `address` (its unicast socket).
    /// The first such datagram after `lostAfter` of silence means its link is back: it is probed there at once
    /// instead of at its next probe step (up to `reconnectInterval` later). Only the first: a peer heard on the group
    /// all along (lost to a stall, not to the link) gets no more probes than the tick gives it.
    public mutating func onHeardOutOfSession(id: NodeID, address: Address, now: MeshInstant)
        -> [MembershipDirective<Address>]
    {
        if var peer = peers[id], peer.state == .lost {
            let out = Self.probeBack(&peer, at: address, now: now, configuration: configuration)
            peers[id] = peer
            return out
        }
        if var gone = forgotten[id] {
            let out = Self.probeBack(&gone, at: address, now: now, configuration: configuration)
            forgotten[id] = gone
            return out
        }
        return []
    }

    fileprivate static func probeBack(
        _ peer: inout PeerRecord<Address>, at address: Address, now: MeshInstant,
        configuration: MembershipConfiguration
    ) -> [MembershipDirective<Address>] {
        // Heard before this loss (or before it was forgotten) counts as silence: a new episode starts afresh.
        let previous = peer.heardOutOfSession.flatMap { $0 >= peer.stateSince ? $0 : nil }
        peer.heardOutOfSession = now
        guard previous.map({ now - $0 >= configuration.lostAfter }) ?? true,
            // Not two initiations at nearly one moment (the later-stamped one would make the other a replay).
            peer.lastConnectAttempt.map({ now - $0 >= configuration.reconnectInterval / 10 }) ?? true
        else { return [] }
        if !peer.candidates.contains(address) { peer.candidates.append(address) }
        peer.lastConnectAttempt = now
        peer.attempted(address)
        return [.probe(peer: peer.id, address: address)]
    }

    /// The time between two probes of a lost or forgotten peer: its addresses are probed in turn, each once per
    /// `interval`. After a link comes back one address family may answer before the other (IPv6 link-local routes
    /// return with the carrier); one probe per interval taken in turn left the working address unprobed for a whole
    /// interval. All at once would not do either: two initiations stamped the same moment can arrive out of order, and
    /// the later-stamped one makes the other a replay.
    static func probeStep(_ interval: Duration, _ peer: PeerRecord<Address>) -> Duration {
        interval / max(1, peer.candidateOrder.count)
    }

    /// Keeps a forgotten peer's addresses for probing, within `forgottenLimit` (the longest gone goes first; its
    /// session state is closed then).
    mutating func remember(_ peer: PeerRecord<Address>, now: MeshInstant) -> [MembershipDirective<Address>] {
        guard configuration.forgottenLimit > 0, !peer.candidates.isEmpty || peer.address != nil else {
            return [.closeSession(peer: peer.id)]
        }
        var gone = peer
        gone.stateSince = now
        forgotten[peer.id] = gone
        var out: [MembershipDirective<Address>] = []
        while forgotten.count > configuration.forgottenLimit,
            let oldest = forgotten.values.min(by: { ($0.stateSince, $0.id) < ($1.stateSince, $1.id) })
        {
            forgotten[oldest.id] = nil
            out.append(.closeSession(peer: oldest.id))
        }
        return out
    }
}
