/// Big-endian integer helpers for building and reading wire messages.
extension Array where Element == UInt8 {
    /// Appends `v` big-endian.
    mutating func appendBigEndian(_ v: UInt16) {
        append(UInt8(truncatingIfNeeded: v >> 8))
        append(UInt8(truncatingIfNeeded: v))
    }

    /// Appends `v` big-endian.
    mutating func appendBigEndian(_ v: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    /// Appends `v` big-endian.
    mutating func appendBigEndian(_ v: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    /// Reads a big-endian `UInt32` at `offset`; the caller has checked the length.
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(self[offset + i]) }
        return v
    }

    /// Reads a big-endian `UInt64` at `offset`; the caller has checked the length.
    func bigEndianUInt64(at offset: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(self[offset + i]) }
        return v
    }
}
