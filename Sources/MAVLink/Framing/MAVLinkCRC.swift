/// CRC-16/MCRF4XX (the "X.25" CRC of MAVLink): polynomial 0x1021 reflected, initial value 0xFFFF,
/// no final XOR. MAVLink runs it over the frame after the start byte, then over the CRC_EXTRA byte.
public struct MAVLinkCRC: Sendable, Hashable {
    /// The running checksum.
    @inlinable public var value: UInt16 { state }
    @usableFromInline var state: UInt16 = 0xFFFF

    /// A fresh checksum (0xFFFF).
    @inlinable public init() {}

    /// Feeds one byte.
    @inlinable public mutating func update(_ byte: UInt8) {
        var tmp = byte ^ UInt8(truncatingIfNeeded: state)
        tmp ^= tmp &<< 4
        let t = UInt16(tmp)
        state = (state >> 8) ^ (t &<< 8) ^ (t &<< 3) ^ (t >> 4)
    }

    /// Feeds bytes (table-driven: one lookup per byte).
    @inlinable public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        Self.table.withUnsafeBufferPointer { table in
            for b in bytes { crc = (crc >> 8) ^ table[Int(UInt8(truncatingIfNeeded: crc) ^ b)] }
        }
        state = crc
    }

    /// `table[i]` is the effect of byte `i` on a zero register (reflected polynomial 0x8408).
    @usableFromInline static let table: [UInt16] = (0..<256).map { (i: Int) -> UInt16 in
        var crc = MAVLinkCRC()
        crc.state = 0
        crc.update(UInt8(i))
        return crc.state
    }

    /// Feeds bytes.
    @inlinable public mutating func update(_ bytes: some Sequence<UInt8>) {
        for b in bytes { update(b) }
    }

    /// The checksum of `bytes`.
    @inlinable public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc = MAVLinkCRC()
        crc.update(bytes)
        return crc.value
    }
}
