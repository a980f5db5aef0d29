/// Writes fields into a full-length (untruncated) MAVLink payload buffer, zero-initialised.
public struct MAVLinkPayloadWriter: Sendable {
    /// The payload bytes written so far (always `length` bytes long).
    @inlinable public var bytes: [UInt8] { storage }
    @usableFromInline var storage: [UInt8]

    /// Creates a zero-filled payload of `length` bytes.
    @inlinable public init(length: Int) { storage = [UInt8](repeating: 0, count: length) }

    /// Writes a scalar little-endian at `offset`; writes that would not fit are ignored.
    @inlinable public mutating func write<T: MAVLinkWireScalar>(_ value: T, at offset: Int) {
        guard offset >= 0, offset + T.wireSize <= bytes.count else { return }
        storage.withUnsafeMutableBytes { value.store(into: $0, at: offset) }
    }

    /// Writes exactly `count` scalars: missing elements are zero, extra elements are not sent.
    @inlinable public mutating func writeArray<T: MAVLinkWireScalar>(_ values: [T], at offset: Int, count: Int) {
        for i in 0..<min(count, values.count) { write(values[i], at: offset + i * T.wireSize) }
    }

    /// Writes a `char[length]` field: the string's UTF-8 bytes, cut at `length` bytes, NUL-padded.
    /// A string of exactly `length` bytes has no terminating NUL (as MAVLink allows).
    @inlinable public mutating func writeString(_ value: String, at offset: Int, length: Int) {
        var i = 0
        for byte in value.utf8 {
            guard i < length, offset + i < bytes.count else { break }
            storage[offset + i] = byte
            i += 1
        }
    }
}
