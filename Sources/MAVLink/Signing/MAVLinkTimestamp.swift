/// A MAVLink signing timestamp: 10 µs units since 2015-01-01 00:00:00 UTC, 48 bits on the wire.
public struct MAVLinkTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds from the Unix epoch to the MAVLink signing epoch (2015-01-01 00:00:00 UTC).
    public static let unixEpochOffsetSeconds: UInt64 = 1_420_070_400
    /// Timestamp units per second (one unit is 10 µs).
    public static let unitsPerSecond: UInt64 = 100_000
    /// Largest value the 48-bit wire field holds.
    public static let max = MAVLinkTimestamp(rawValue: 0xFFFF_FFFF_FFFF)

    /// Units of 10 µs since the MAVLink epoch (masked to 48 bits).
    public var rawValue: UInt64

    /// Wraps a raw value (masked to 48 bits).
    public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFFFF_FFFF_FFFF }

    /// Converts Unix time in seconds; times before 2015 map to 0.
    public init(unixTimeSeconds: Double) {
        let since = unixTimeSeconds - Double(Self.unixEpochOffsetSeconds)
        self.init(rawValue: since <= 0 ? 0 : UInt64(since * Double(Self.unitsPerSecond)))
    }

    /// This timestamp as Unix time in seconds.
    public var unixTimeSeconds: Double {
        Double(rawValue) / Double(Self.unitsPerSecond) + Double(Self.unixEpochOffsetSeconds)
    }

    /// Orders by raw value.
    public static func < (a: MAVLinkTimestamp, b: MAVLinkTimestamp) -> Bool { a.rawValue < b.rawValue }

    /// The raw value.
    public var description: String { "\(rawValue)" }
}
