/// Reads fields out of a (possibly truncated) MAVLink payload.
///
/// MAVLink 2 senders drop trailing zero bytes, so any byte at or past the end of the received payload
/// reads as zero ("zero-extension"). Bytes past the last field the receiver knows are ignored. The reader
/// borrows the payload's memory: use it only inside the `withUnsafeBytes` closure that made it.
public struct MAVLinkPayloadReader {
    @usableFromInline let raw: UnsafeRawBufferPointer

    /// Wraps payload bytes.
    @inlinable public init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    /// The number of payload bytes actually received.
    @inlinable public var count: Int { raw.count }

    /// Reads a scalar at `offset`; missing bytes read as zero.
    @inlinable public func read<T: MAVLinkWireScalar>(_: T.Type, at offset: Int) -> T {
        if offset + T.wireSize <= raw.count { return T.load(from: raw, at: offset) }
        if offset >= raw.count { return T.zero }
        return withUnsafeTemporaryAllocation(byteCount: T.wireSize, alignment: 8) { tmp in
            for i in 0..<T.wireSize { tmp[i] = offset + i < raw.count ? raw[offset + i] : 0 }
            return T.load(from: UnsafeRawBufferPointer(tmp), at: 0)
        }
    }

    /// Reads `count` consecutive scalars starting at `offset`.
    @inlinable public func readArray<T: MAVLinkWireScalar>(_: T.Type, at offset: Int, count: Int) -> [T] {
        (0..<count).map { read(T.self, at: offset + $0 * T.wireSize) }
    }

    /// Reads a `char[length]` field: bytes up to the first NUL (or all `length`), decoded as UTF-8 with
    /// invalid sequences replaced by U+FFFD.
    @inlinable public func readString(at offset: Int, length: Int) -> String {
        let end = min(offset + length, raw.count)
        guard offset < end else { return "" }
        var stop = offset
        while stop < end && raw[stop] != 0 { stop += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[offset..<stop]), as: UTF8.self)
    }
}
