import MeshTypes

/// Reads big-endian fixed-width fields from a byte array; every read names the field it was reading when it throws.
struct WireReader {
    private let bytes: [UInt8]
    private(set) var offset: Int = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Bytes not yet read.
    var remaining: Int { bytes.count - offset }

    private mutating func take(_ n: Int, _ field: String) throws(WireError) -> ArraySlice<UInt8> {
        guard remaining >= n else {
            throw WireError("truncated \(field): expected \(n) byte(s) at offset \(offset), found \(remaining)")
        }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }

    mutating func u8(_ field: String) throws(WireError) -> UInt8 { try take(1, field).first! }

    mutating func bool(_ field: String) throws(WireError) -> Bool {
        let at = offset
        let v = try u8(field)
        guard v <= 1 else { throw WireError("\(field) at offset \(at): expected 0 or 1, found \(v)") }
        return v == 1
    }

    mutating func u16(_ field: String) throws(WireError) -> UInt16 {
        let s = try take(2, field)
        return s.reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func u32(_ field: String) throws(WireError) -> UInt32 {
        let s = try take(4, field)
        return s.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func u64(_ field: String) throws(WireError) -> UInt64 {
        let s = try take(8, field)
        return s.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func i16(_ field: String) throws(WireError) -> Int16 { Int16(bitPattern: try u16(field)) }
    mutating func i32(_ field: String) throws(WireError) -> Int32 { Int32(bitPattern: try u32(field)) }

    mutating func nodeID(_ field: String) throws(WireError) -> NodeID {
        NodeID(high: try u64(field + ".high"), low: try u64(field + ".low"))
    }

    mutating func shortString(_ field: String) throws(WireError) -> String {
        let n = Int(try u8(field + ".length"))
        let s = try take(n, field)
        guard let str = String(validating: s, as: UTF8.self) else {
            throw WireError("\(field): expected \(n) bytes of UTF-8, found invalid UTF-8")
        }
        return str
    }

    /// An enumeration tag, checked against the largest valid value.
    mutating func tag(_ field: String, max: UInt8) throws(WireError) -> UInt8 {
        let at = offset
        let v = try u8(field)
        guard v <= max else { throw WireError("\(field) at offset \(at): expected 0…\(max), found \(v)") }
        return v
    }

    /// Throws unless every byte has been read.
    func expectEnd(_ what: String) throws(WireError) {
        guard remaining == 0 else {
            throw WireError("\(what): expected end of message at offset \(offset), found \(remaining) trailing byte(s)")
        }
    }
}
