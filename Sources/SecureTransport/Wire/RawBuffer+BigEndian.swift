/// Big-endian integer helpers for reading wire messages in place (no copy into an array).
extension UnsafeRawBufferPointer {
    /// Reads a big-endian `UInt16` at `offset`; the caller has checked the length.
    @inline(__always)
    func bigEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    /// Reads a big-endian `UInt32` at `offset`; the caller has checked the length.
    @inline(__always)
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Reads a big-endian `UInt64` at `offset`; the caller has checked the length.
    @inline(__always)
    func bigEndianUInt64(at offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

/// Big-endian integer helpers for building wire messages in place.
extension UnsafeMutableRawBufferPointer {
    /// Writes `v` big-endian at `offset`; the caller has checked the length.
    @inline(__always)
    func storeBigEndian(_ v: UInt16, at offset: Int) {
        storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    /// Writes `v` big-endian at `offset`; the caller has checked the length.
    @inline(__always)
    func storeBigEndian(_ v: UInt32, at offset: Int) {
        storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    /// Writes `v` big-endian at `offset`; the caller has checked the length.
    @inline(__always)
    func storeBigEndian(_ v: UInt64, at offset: Int) {
        storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt64.self)
    }
}
