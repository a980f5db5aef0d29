/// A fixed-size value that MAVLink puts on the wire little-endian: the integer types, `Float`, `Double`.
public protocol MAVLinkWireScalar: Sendable {
    /// Size on the wire in bytes.
    static var wireSize: Int { get }
    /// Reads the value from `raw` at `offset`; the caller guarantees `offset + wireSize <= raw.count`.
    static func load(from raw: UnsafeRawBufferPointer, at offset: Int) -> Self
    /// Writes the value into `raw` at `offset`; the caller guarantees room for `wireSize` bytes.
    func store(into raw: UnsafeMutableRawBufferPointer, at offset: Int)
    /// The value whose bytes are all zero.
    static var zero: Self { get }
}

extension MAVLinkWireScalar where Self: FixedWidthInteger {
    /// Size on the wire in bytes.
    @inlinable public static var wireSize: Int { MemoryLayout<Self>.size }
    /// Reads a little-endian integer.
    @inlinable public static func load(from raw: UnsafeRawBufferPointer, at offset: Int) -> Self {
        Self(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Self.self))
    }
    /// Writes a little-endian integer.
    @inlinable public func store(into raw: UnsafeMutableRawBufferPointer, at offset: Int) {
        raw.storeBytes(of: self.littleEndian, toByteOffset: offset, as: Self.self)
    }
}

extension UInt8: MAVLinkWireScalar {}
extension Int8: MAVLinkWireScalar {}
extension UInt16: MAVLinkWireScalar {}
extension Int16: MAVLinkWireScalar {}
extension UInt32: MAVLinkWireScalar {}
extension Int32: MAVLinkWireScalar {}
extension UInt64: MAVLinkWireScalar {}
extension Int64: MAVLinkWireScalar {}

extension Float: MAVLinkWireScalar {
    /// Size on the wire in bytes.
    public static var wireSize: Int { 4 }
    /// Reads a little-endian IEEE 754 binary32.
    @inlinable public static func load(from raw: UnsafeRawBufferPointer, at offset: Int) -> Float {
        Float(bitPattern: UInt32.load(from: raw, at: offset))
    }
    /// Writes a little-endian IEEE 754 binary32.
    @inlinable public func store(into raw: UnsafeMutableRawBufferPointer, at offset: Int) {
        bitPattern.store(into: raw, at: offset)
    }
}

extension Double: MAVLinkWireScalar {
    /// Size on the wire in bytes.
    public static var wireSize: Int { 8 }
    /// Reads a little-endian IEEE 754 binary64.
    @inlinable public static func load(from raw: UnsafeRawBufferPointer, at offset: Int) -> Double {
        Double(bitPattern: UInt64.load(from: raw, at: offset))
    }
    /// Writes a little-endian IEEE 754 binary64.
    @inlinable public func store(into raw: UnsafeMutableRawBufferPointer, at offset: Int) {
        bitPattern.store(into: raw, at: offset)
    }
}
