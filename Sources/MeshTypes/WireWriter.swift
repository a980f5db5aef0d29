/// Appends big-endian fixed-width fields to a byte array: the writing half of `WireReader`.
public struct WireWriter {
    @usableFromInline var storage: [UInt8] = []
    /// The bytes written so far.
    @inlinable public var bytes: [UInt8] { storage }

    @inlinable public init(capacity: Int = 64) { storage.reserveCapacity(capacity) }

    @inlinable public mutating func u8(_ v: UInt8) { storage.append(v) }
    @inlinable public mutating func bool(_ v: Bool) { storage.append(v ? 1 : 0) }
    @inlinable public mutating func u16(_ v: UInt16) {
        storage.append(UInt8(v >> 8))
        storage.append(UInt8(truncatingIfNeeded: v))
    }
    @inlinable public mutating func u32(_ v: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) {
            storage.append(UInt8(truncatingIfNeeded: v >> UInt32(shift)))
        }
    }
    @inlinable public mutating func u64(_ v: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            storage.append(UInt8(truncatingIfNeeded: v >> UInt64(shift)))
        }
    }
    @inlinable public mutating func i16(_ v: Int16) { u16(UInt16(bitPattern: v)) }
    @inlinable public mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    @inlinable public mutating func nodeID(_ id: NodeID) {
        u64(id.high)
        u64(id.low)
    }
    @inlinable public mutating func bytes(_ b: [UInt8]) { storage.append(contentsOf: b) }

    /// A UTF-8 string of at most 255 bytes, preceded by its byte count (longer strings are cut at a character boundary).
    @inlinable public mutating func shortString(_ s: String) {
        var utf8 = Array(s.utf8)
        if utf8.count > 255 {
            var cut = 255
            while cut > 0 && (utf8[cut] & 0xC0) == 0x80 { cut -= 1 }
            utf8 = Array(utf8[0..<cut])
        }
        u8(UInt8(utf8.count))
        storage.append(contentsOf: utf8)
    }
}
