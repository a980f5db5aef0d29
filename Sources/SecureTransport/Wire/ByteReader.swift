import MeshTypes

/// Reads big-endian fields from a byte array, throwing `WireError` (never trapping) when bytes run out.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int
    /// What is being decoded, for error messages ("handshake initiation").
    let context: String

    init(_ bytes: [UInt8], offset: Int = 0, context: String) {
        self.bytes = bytes
        self.offset = offset
        self.context = context
    }

    var remaining: Int { bytes.count - offset }

    private func need(_ n: Int, _ field: String) throws(WireError) {
        guard n >= 0, remaining >= n else {
            throw WireError("truncated \(context): field \(field) needs \(n) bytes at offset \(offset), only \(max(0, remaining)) left")
        }
    }

    mutating func u8(_ field: String) throws(WireError) -> UInt8 {
        try need(1, field)
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16(_ field: String) throws(WireError) -> UInt16 {
        try need(2, field)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u32(_ field: String) throws(WireError) -> UInt32 {
        try need(4, field)
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(bytes[offset + i]) }
        offset += 4
        return v
    }

    mutating func u64(_ field: String) throws(WireError) -> UInt64 {
        try need(8, field)
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[offset + i]) }
        offset += 8
        return v
    }

    mutating func bytes(_ n: Int, _ field: String) throws(WireError) -> [UInt8] {
        try need(n, field)
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }
}
