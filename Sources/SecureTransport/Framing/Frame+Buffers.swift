import MeshTypes

/// Frames read from and written to raw buffers: the mesh layer's hot path, with no array per frame body and no
/// field name built unless a frame is malformed (the errors are those of `decodeAll(_:)` over arrays).
extension Frame {
    /// Decodes every frame of a plaintext held in a buffer, like `decodeAll(_:)` over an array.
    public static func decodeAll(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> [Frame] {
        var frames: [Frame] = []
        var offset = 0
        var index = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 3 else {
                throw WireError(
                    "truncated frame: field length of frame \(index) needs 2 bytes at offset \(offset + 1), only "
                        + "\(bytes.count - offset - 1) left")
            }
            let kindByte = bytes[offset]
            let length = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            offset += 3
            guard bytes.count - offset >= length else {
                throw WireError(
                    "frame \(index) (kind \(kindByte)): length \(length) exceeds the \(bytes.count - offset) bytes left"
                )
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
            if let kind = Kind(rawValue: kindByte) {
                frames.append(try decodeBody(kind, body, index: index))
            }
            offset += length
            index += 1
        }
        return frames
    }

    /// One frame's body, with its fixed fields checked against its length.
    private static func decodeBody(_ kind: Kind, _ b: UnsafeRawBufferPointer, index: Int) throws(WireError) -> Frame {
        /// Throws unless `n` bytes of field `field` fit at `at`.
        func need(_ n: Int, at: Int, _ field: StaticString) throws(WireError) {
            guard b.count - at >= n else {
                throw WireError(
                    "truncated frame \(index) (\(kind)): field \(field) needs \(n) bytes at offset \(at), only "
                        + "\(max(0, b.count - at)) left")
            }
        }
        switch kind {
        case .unreliable:
            try need(2, at: 0, "type")
            return .unreliable(
                type: b.bigEndianUInt16(at: 0), payload: Array(UnsafeRawBufferPointer(rebasing: b[2...])))
        case .reliable:
            try need(8, at: 0, "sequence")
            try need(2, at: 8, "type")
            return .reliable(
                sequence: b.bigEndianUInt64(at: 0), type: b.bigEndianUInt16(at: 8),
                payload: Array(UnsafeRawBufferPointer(rebasing: b[10...])))
        case .ack:
            try need(8, at: 0, "cumulative")
            try need(8, at: 8, "selective")
            return .ack(cumulative: b.bigEndianUInt64(at: 0), selective: b.bigEndianUInt64(at: 8))
        case .heartbeat, .heartbeatReply:
            try need(4, at: 0, "id")
            try need(8, at: 4, "sentAtMicros")
            let (id, sent) = (b.bigEndianUInt32(at: 0), b.bigEndianUInt64(at: 4))
            return kind == .heartbeat
                ? .heartbeat(id: id, sentAtMicros: sent) : .heartbeatReply(id: id, sentAtMicros: sent)
        case .goodbye:
            try need(1, at: 0, "reason")
            return .goodbye(reason: b[0])
        case .echo:
            try need(8, at: 0, "peer")
            try need(8, at: 8, "peer")
            try need(8, at: 16, "sentAtMicros")
            try need(4, at: 24, "heldMicros")
            return .echo(
                peer: NodeID(high: b.bigEndianUInt64(at: 0), low: b.bigEndianUInt64(at: 8)),
                sentAtMicros: b.bigEndianUInt64(at: 16), heldMicros: b.bigEndianUInt32(at: 24))
        }
    }

    /// Encodes frames back to back into the start of `buffer`, like `encode(_:)` into an array; returns the bytes
    /// written. `buffer` needs the frames' `encodedSize` summed (checked: `WireError` otherwise).
    public static func encode(_ frames: [Frame], into buffer: UnsafeMutableRawBufferPointer) throws(WireError) -> Int {
        var at = 0
        for f in frames {
            let size = f.bodySize
            guard size <= maximumBodySize else {
                throw WireError("frame \(f.kind): body of \(size) bytes exceeds the maximum of \(maximumBodySize)")
            }
            guard buffer.count - at >= headerSize + size else {
                throw WireError("frames: \(buffer.count) bytes of buffer do not hold frame \(f.kind) at offset \(at)")
            }
            buffer[at] = f.kind.rawValue
            buffer.storeBigEndian(UInt16(size), at: at + 1)
            at += headerSize
            switch f {
            case .unreliable(let type, let payload):
                buffer.storeBigEndian(type, at: at)
                copy(payload, into: buffer, at: at + 2)
            case .reliable(let sequence, let type, let payload):
                buffer.storeBigEndian(sequence, at: at)
                buffer.storeBigEndian(type, at: at + 8)
                copy(payload, into: buffer, at: at + 10)
            case .ack(let cumulative, let selective):
                buffer.storeBigEndian(cumulative, at: at)
                buffer.storeBigEndian(selective, at: at + 8)
            case .heartbeat(let id, let sentAt), .heartbeatReply(let id, let sentAt):
                buffer.storeBigEndian(id, at: at)
                buffer.storeBigEndian(sentAt, at: at + 4)
            case .goodbye(let reason):
                buffer[at] = reason
            case .echo(let peer, let sentAt, let held):
                buffer.storeBigEndian(peer.high, at: at)
                buffer.storeBigEndian(peer.low, at: at + 8)
                buffer.storeBigEndian(sentAt, at: at + 16)
                buffer.storeBigEndian(held, at: at + 24)
            }
            at += size
        }
        return at
    }

    private static func copy(_ bytes: [UInt8], into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]).copyMemory(from: $0) }
    }
}
