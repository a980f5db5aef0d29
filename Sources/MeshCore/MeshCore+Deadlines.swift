import Membership
import MeshTypes
import NIOCore
import SecureTransport

/// When the shell must tick next: the core's deadlines and the hints events leave.
extension MeshCore {
    /// The earliest instant at which `onTick` may have something to do: handshakes and rekeys, heartbeats, suspicion
    /// and loss, probes and reconnections, group presence, reliable retransmissions and acknowledgements. Never later
    /// than the real next deadline (it may be earlier: a tick then finds nothing due); nil: nothing is scheduled. A
    /// shell may sleep until then instead of ticking every 10 ms, as long as it asks again after every other event
    /// (a datagram can schedule an acknowledgement 5 ms ahead).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public func nextDeadline(now: MeshInstant) -> MeshInstant? {
        var best = endpoint.nextDeadline
        func consider(_ t: MeshInstant?) { if let t, best.map({ t < $0 }) ?? true { best = t } }
        if !leaving {
            let interval = membership.configuration.heartbeatInterval
            consider(
                membership.nextDeadline(now: now, allowance: ownDelay.allowance(now: now)) { id in
                    Self.quietUntil(id, now: now, clocks: clocks, group: group, rhythm: rhythm, interval: interval)
                })
            if let presence = groupPresence { consider(group?.lastSent.map { $0 + presence.interval } ?? now) }
        }
        for (id, channel) in channels where Self.inSession(membership.peers[id]?.state) {
            consider(channel.nextDeadline)
        }
        return best
    }

    /// Until when `peer` needs no unicast heartbeat (nil: it needs them when due), once its clock is estimated: while
    /// it was heard on the group within `freshness` (it hears this node there too), or while other datagrams reach
    /// it (`UnicastRhythm.carriedUntil`). `onTick` skips heartbeats while this is set; `nextDeadline` waits for its
    /// end. Static, on copies: `onTick` asks it while the membership table is being changed.
    static func quietUntil(
        _ id: NodeID, now: MeshInstant, clocks: [NodeID: PeerClock], group: GroupState?, rhythm: UnicastRhythm,
        interval: Duration
    ) -> MeshInstant? {
        guard clocks[id]?.oneWayDelay(now: now) != nil else { return nil }
        var until = rhythm.carriedUntil(id, interval: interval, now: now)
        if let group, let heard = group.heard[id], now - heard < group.settings.freshness {
            until = max(until ?? heard, heard + group.settings.freshness)
        }
        return until
    }

    /// The earliest deadline that events since the last call scheduled (nil: none), and forgets it: a shell that
    /// sleeps until `nextDeadline` asks after every event, in O(1), whether it must wake earlier. Only deadlines an
    /// event can bring closer are noted (a reliable channel's acknowledgement or retransmission, a peer's change of
    /// state, a peer discovered or dialled); the others only move later, and `nextDeadline` finds them on the next
    /// tick.
    public mutating func takeWakeHint() -> MeshInstant? {
        defer { wakeHint = nil }
        return wakeHint
    }

    mutating func wakeBy(_ t: MeshInstant) {
        if wakeHint.map({ t < $0 }) ?? true { wakeHint = t }
    }
}
