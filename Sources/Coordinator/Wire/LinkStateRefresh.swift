import MeshTypes

/// An unchanged advertisement refreshed, without its contents: its origin, incarnation and new sequence number, and
/// the sequence number from which its contents have not changed. A node holding that origin's advertisement of the
/// same incarnation at `unchangedSince` or later takes the new sequence number for it; any other asks the neighbour
/// it came from for the advertisement (`LinkStateRequest`). 40 bytes instead of the advertisement's 38, its name and
/// 16 per neighbour: every node's refresh crosses the whole fleet every 10 s, the one part of the traffic whose total
/// grows as the square of the fleet (PROTOCOL.md §7.1b; BENCHMARKS §10.16).
public struct LinkStateRefresh: Hashable, Sendable {
    public var origin: NodeID
    public var incarnation: Incarnation
    public var sequence: UInt64
    public var unchangedSince: UInt64

    public init(origin: NodeID, incarnation: Incarnation, sequence: UInt64, unchangedSince: UInt64) {
        self.origin = origin
        self.incarnation = incarnation
        self.sequence = sequence
        self.unchangedSince = unchangedSince
    }

    /// The refresh of `lsa`, unchanged since `unchangedSince`.
    public init(_ lsa: LinkStateAdvertisement, unchangedSince: UInt64) {
        self.init(
            origin: lsa.origin, incarnation: lsa.incarnation, sequence: lsa.sequence, unchangedSince: unchangedSince)
    }

    /// Whether `held` (the same origin's) has the contents this refresh stands for.
    public func covers(_ held: LinkStateAdvertisement) -> Bool {
        held.incarnation == incarnation && held.sequence >= unchangedSince
    }
}

extension LinkStateRefresh {
    func write(to w: inout WireWriter) {
        w.nodeID(origin)
        w.u64(incarnation)
        w.u64(sequence)
        w.u64(unchangedSince)
    }

    init(from r: inout WireReader) throws(WireError) {
        let origin = try r.nodeID("refresh.origin")
        let incarnation = try r.u64("refresh.incarnation")
        let sequence = try r.u64("refresh.sequence")
        let since = try r.u64("refresh.unchangedSince")
        guard since <= sequence else {
            throw WireError("refresh.unchangedSince: \(since) is after the sequence number \(sequence)")
        }
        self.init(origin: origin, incarnation: incarnation, sequence: sequence, unchangedSince: since)
    }
}
