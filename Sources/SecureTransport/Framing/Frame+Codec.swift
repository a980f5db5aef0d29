import MeshTypes

extension Frame {
    /// The body's length in bytes.
    public var bodySize: Int {
        switch self {
        case .unreliable(_, let p): 2 + p.count
        case .reliable(_, _, let p): 10 + p.count
        case .ack: 16
        case .heartbeat, .heartbeatReply: 12
        case .goodbye: 1
        case .echo: 28
        }
    }

    /// The frame's encoded size, header included.
    public var encodedSize: Int { Self.headerSize + bodySize }

    /// Appends the encoded frame. Throws when the payload exceeds the 65,535-byte body limit.
    public func encode(into out: inout [UInt8]) throws(WireError) {
        let size = bodySize
        guard size <= Self.maximumBodySize else {
            throw WireError("frame \(kind): body of \(size) bytes exceeds the maximum of \(Self.maximumBodySize)")
        }
        out.append(kind.rawValue)
        out.appendBigEndian(UInt16(size))
        switch self {
        case .unreliable(let type, let payload):
            out.appendBigEndian(type)
            out.append(contentsOf: payload)
        case .reliable(let sequence, let type, let payload):
            out.appendBigEndian(sequence)
            out.appendBigEndian(type)
            out.append(contentsOf: payload)
        case .ack(let cumulative, let selective):
            out.appendBigEndian(cumulative)
            out.appendBigEndian(selective)
        case .heartbeat(let id, let sentAt), .heartbeatReply(let id, let sentAt):
            out.appendBigEndian(id)
            out.appendBigEndian(sentAt)
        case .goodbye(let reason):
            out.append(reason)
        case .echo(let peer, let sentAt, let held):
            out.appendBigEndian(peer.high)
            out.appendBigEndian(peer.low)
            out.appendBigEndian(sentAt)
            out.appendBigEndian(held)
        }
    }

    /// Encodes frames back to back into one plaintext.
    public static func encode(_ frames: [Frame]) throws(WireError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(frames.reduce(0) { $0 + $1.encodedSize })
        for f in frames { try f.encode(into: &out) }
        return out
    }

    /// Decodes every frame of a plaintext. Frames of unknown kind are skipped; a known kind whose body is shorter than
    /// its fixed fields, or a length running past the end, throws. Bytes a known fixed-size body has beyond its fields
    /// are ignored (room for later extensions).
    public static func decodeAll(_ bytes: [UInt8]) throws(WireError) -> [Frame] {
        let decoded = bytes.withUnsafeBytes { b in Result { () throws(WireError) in try decodeAll(b) } }
        return try decoded.get()
    }
}
