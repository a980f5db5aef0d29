/// A node's permanent identity: 16 random bytes made on first start and kept in the node's state directory.
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 16 bytes, big-endian halves.
    public let high: UInt64
    public let low: UInt64

    @inlinable
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A fresh random identity.
    public static func random() -> NodeID {
        var rng = SystemRandomNumberGenerator()
        return NodeID(high: rng.next(), low: rng.next())
    }

    /// Parses 32 hexadecimal digits.
    public init?(hex: some StringProtocol) {
        guard hex.count == 32, let h = UInt64(hex.prefix(16), radix: 16), let l = UInt64(hex.suffix(16), radix: 16)
        else {
            return nil
        }
        self.init(high: h, low: l)
    }

    /// 32 lowercase hexadecimal digits.
    public var hex: String { hex16(high) + hex16(low) }

    /// The first 8 hexadecimal digits, for logs and tables.
    public var short: String { String(hex.prefix(8)) }

    public var description: String { short }

    // Inlinable, with the hash: a node ID keys every per-peer table and is compared on every tick, from other
    // modules.
    @inlinable
    public static func < (a: NodeID, b: NodeID) -> Bool {
        (a.high, a.low) < (b.high, b.low)
    }

    @inlinable
    public static func == (a: NodeID, b: NodeID) -> Bool {
        a.high == b.high && a.low == b.low
    }

    /// One word into the hasher, not two: equal IDs give equal words, and IDs are random, so the two halves' sum
    /// spreads as well as both (a station hashes an ID several times per datagram and per peer on every tick).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(high &+ low)
    }
}

@inline(__always)
func hex16(_ v: UInt64) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
}
