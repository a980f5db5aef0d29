import MeshTypes
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Round trips and link quality: heartbeat replies, replies asked for, and round trips measured by group echoes.
extension MembershipTable {
    /// A heartbeat sent `rtt` ago was answered; `asked` when it asked for the reply (only those count towards the
    /// peer's `linkQuality`).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func onHeartbeatReply(id: NodeID, rtt: Duration, asked: Bool = true, now: MeshInstant) {
        guard peers[id] != nil else { return }
        if asked { peers[id]!.heartbeatsAnswered += 1 }
        onRoundTrip(id: id, rtt: rtt, now: now)
    }

    /// A heartbeat that asks for a reply went to the peer (the layer above decides which do).
    public mutating func onReplyRequested(id: NodeID) {
        peers[id]?.heartbeatsSent += 1
    }

    /// A round trip to the peer measured another way (an echo of this node's group stamp).
    ///
    /// Smoothed as RFC 6298 does (a new sample weighs 1/8), but a sample that follows a long gap weighs more:
    /// `1 − exp(−gap / rttMemory)`, so the estimate forgets at the same pace in time however sparse its samples. On the
    /// group channel a node echoes one stamp per datagram among all it hears, so in a large fleet a peer's round trip
    /// is sampled every few seconds; at 1/8 per sample, a formation's backlog of hundreds of milliseconds still showed
    /// 30 s later (BENCHMARKS §10.8).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func onRoundTrip(id: NodeID, rtt: Duration, now: MeshInstant) {
        guard var peer = peers[id] else { return }
        if let old = peer.rtt {
            let gap = peer.rttSampledAt.map { (now - $0).secondsDouble } ?? 0
            let weight = max(0.125, 1 - exp(-gap / Self.rttMemory.secondsDouble))
            peer.rtt = old * (1 - weight) + rtt * weight
        } else {
            peer.rtt = rtt
        }
        peer.rttSampledAt = now
        peers[id] = peer
    }

    /// The time constant of the round-trip estimate's memory (``onRoundTrip(id:rtt:now:)``).
    public static var rttMemory: Duration { .seconds(2) }
}
