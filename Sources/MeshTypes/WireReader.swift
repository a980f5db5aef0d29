/// Reads big-endian fixed-width fields from a byte array, throwing `WireError` (never trapping) when bytes run out or a
/// value is out of range; every read names the field it was reading. Shared by every mesh codec. Field names are
/// autoclosures: one built by interpolation costs nothing unless the read fails.
public struct WireReader {
    @usableFromInline let bytes: [UInt8]
    @usableFromInline var position: Int
    /// Where the next read starts.
    @inlinable public var offset: Int { position }
    /// What is being decoded ("handshake initiation"), for error messages; nil names only the field.
    @usableFromInline let context: String?

    @inlinable
    public init(_ bytes: [UInt8], offset: Int = 0, context: String? = nil) {
        self.bytes = bytes
        self.position = offset
        self.context = context
    }

    /// Bytes not yet read.
    @inlinable public var remaining: Int { bytes.count - offset }

    @inlinable
    mutating func take(_ n: Int, _ field: @autoclosure () -> String) throws(WireError) -> ArraySlice<UInt8> {
        guard n >= 0, remaining >= n else {
            let what = context.map { "\($0): field \(field())" } ?? field()
            throw WireError("truncated \(what) needs \(n) bytes at offset \(offset), only \(max(0, remaining)) left")
        }
        defer { position += n }
        return bytes[offset..<offset + n]
    }

    @inlinable public mutating func u8(_ field: @autoclosure () -> String) throws(WireError) -> UInt8 {
        try take(1, field()).first!
    }

    @inlinable
    public mutating func u16(_ field: @autoclosure () -> String) throws(WireError) -> UInt16 {
        try take(2, field()).reduce(0) { $0 << 8 | UInt16($1) }
    }

    @inlinable
    public mutating func u32(_ field: @autoclosure () -> String) throws(WireError) -> UInt32 {
        try take(4, field()).reduce(0) { $0 << 8 | UInt32($1) }
    }

    @inlinable
    public mutating func u64(_ field: @autoclosure () -> String) throws(WireError) -> UInt64 {
        try take(8, field()).reduce(0) { $0 << 8 | UInt64($1) }
    }

    @inlinable public mutating func i16(_ field: @autoclosure () -> String) throws(WireError) -> Int16 {
        Int16(bitPattern: try u16(field()))
    }
    @inlinable public mutating func i32(_ field: @autoclosure () -> String) throws(WireError) -> Int32 {
        Int32(bitPattern: try u32(field()))
    }

    /// 0 or 1.
    @inlinable
    public mutating func bool(_ field: @autoclosure () -> String) throws(WireError) -> Bool {
        let at = offset
        let v = try u8(field())
        guard v <= 1 else { throw WireError("\(field()) at offset \(at): expected 0 or 1, found \(v)") }
        return v == 1
    }

    /// An enumeration tag, checked against the largest valid value.
    @inlinable
    public mutating func tag(_ field: @autoclosure () -> String, max: UInt8) throws(WireError) -> UInt8 {
        let at = offset
        let v = try u8(field())
        guard v <= max else { throw WireError("\(field()) at offset \(at): expected 0…\(max), found \(v)") }
        return v
    }

    /// A NodeID: `high` then `low`.
    @inlinable
    public mutating func nodeID(_ field: @autoclosure () -> String) throws(WireError) -> NodeID {
        NodeID(high: try u64(field() + ".high"), low: try u64(field() + ".low"))
    }

    /// A UTF-8 string preceded by its byte count (one byte).
    @inlinable
    public mutating func shortString(_ field: @autoclosure () -> String) throws(WireError) -> String {
        let n = Int(try u8(field() + ".length"))
        let s = try take(n, field())
        guard let str = String(validating: s, as: UTF8.self) else {
            throw WireError("\(field()): expected \(n) bytes of UTF-8, found invalid UTF-8")
        }
        return str
    }

    /// The next `n` bytes.
    @inlinable
    public mutating func bytes(_ n: Int, _ field: @autoclosure () -> String) throws(WireError) -> [UInt8] {
        Array(try take(n, field()))
    }

    /// Every byte not yet read.
    @inlinable
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[offset...])
    }

    /// Throws unless every byte has been read.
    @inlinable
    public func expectEnd(_ what: @autoclosure () -> String) throws(WireError) {
        guard remaining == 0 else {
            throw WireError(
                "\(what()): expected end of message at offset \(offset), found \(remaining) trailing byte(s)")
        }
    }
}
