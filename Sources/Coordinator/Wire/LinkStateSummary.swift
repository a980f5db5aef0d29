import MeshTypes

/// Which advertisement of each origin a node holds, without their contents: sent to a neighbour whose session just
/// came up instead of the whole database. The neighbour asks for those it lacks or holds older when the summary
/// arrives (`LinkStateRequest`), so a new session costs 32 bytes per origin plus what really differs then
/// (PROTOCOL.md §7.1a).
public struct LinkStateSummary: Hashable, Sendable {
    /// One origin's advertisement as the sender holds it.
    public struct Entry: Hashable, Sendable {
        public var origin: NodeID
        public var incarnation: Incarnation
        public var sequence: UInt64

        public init(origin: NodeID, incarnation: Incarnation, sequence: UInt64) {
            self.origin = origin
            self.incarnation = incarnation
            self.sequence = sequence
        }

        /// The entry of an advertisement.
        public init(_ lsa: LinkStateAdvertisement) {
            self.init(origin: lsa.origin, incarnation: lsa.incarnation, sequence: lsa.sequence)
        }

        /// Whether this version supersedes `other`'s (same origin): the larger sequence, ties broken by the larger
        /// incarnation. The one rule for advertisements and summaries (`LinkStateAdvertisement.isNewer(than:)`).
        public func supersedes(_ other: Entry) -> Bool {
            (sequence, incarnation) > (other.sequence, other.incarnation)
        }
    }

    /// The sender's own advertisement's entry first, then its database's, by origin.
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// At most this many entries (a larger fleet is far beyond a link's capacity anyway).
    public static let maxEntries = 4096
    /// A node sends its summary in parts of at most this many entries (1,026 bytes), its requests with at most
    /// `originsPerRequest` origins: each fits one datagram of the mesh layer's budget, so none relies on IP
    /// fragmentation and a node of an earlier build (which read at most 2,048 bytes of a datagram) reads them whole.
    public static let entriesPerMessage = 32
    /// See `entriesPerMessage`.
    public static let originsPerRequest = 64
}

/// The origins whose advertisements a node asks a neighbour for, after the neighbour's summary listed them newer
/// than it holds or unknown to it.
public struct LinkStateRequest: Hashable, Sendable {
    public var origins: [NodeID]

    public init(origins: [NodeID]) { self.origins = origins }
}

extension LinkStateRequest {
    func write(to w: inout WireWriter) {
        let listed = origins.prefix(LinkStateSummary.maxEntries)
        w.u16(UInt16(listed.count))
        for o in listed { w.nodeID(o) }
    }

    init(from r: inout WireReader) throws(WireError) {
        self.init(
            origins: try readCountedList(&r, "request", itemSize: 16) { r, i throws(WireError) in
                try r.nodeID("request.origins[\(i)]")
            })
    }
}

extension LinkStateSummary {
    func write(to w: inout WireWriter) {
        let listed = entries.prefix(Self.maxEntries)
        w.u16(UInt16(listed.count))
        for e in listed {
            w.nodeID(e.origin)
            w.u64(e.incarnation)
            w.u64(e.sequence)
        }
    }

    init(from r: inout WireReader) throws(WireError) {
        self.init(
            entries: try readCountedList(&r, "summary", itemSize: 32) { r, i throws(WireError) in
                let origin = try r.nodeID("summary.entries[\(i)].origin")
                let incarnation = try r.u64("summary.entries[\(i)].incarnation")
                return Entry(
                    origin: origin, incarnation: incarnation, sequence: try r.u64("summary.entries[\(i)].sequence"))
            })
    }
}

/// A u16 count (at most `LinkStateSummary.maxEntries`), then exactly that many items of `itemSize` bytes filling the
/// rest of the payload: summaries and requests.
private func readCountedList<T>(
    _ r: inout WireReader, _ field: String, itemSize: Int,
    item: (inout WireReader, Int) throws(WireError) -> T
) throws(WireError) -> [T] {
    let countAt = r.offset
    let count = Int(try r.u16("\(field).count"))
    guard count <= LinkStateSummary.maxEntries else {
        throw WireError(
            "\(field).count at offset \(countAt): expected ≤ \(LinkStateSummary.maxEntries), found \(count)")
    }
    guard r.remaining == count * itemSize else {
        throw WireError(
            "\(field) items: expected \(count) × \(itemSize) = \(count * itemSize) bytes, found \(r.remaining)")
    }
    var items: [T] = []
    items.reserveCapacity(count)
    for i in 0..<count { items.append(try item(&r, i)) }
    return items
}
