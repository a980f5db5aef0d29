import MeshTypes

/// An encrypted transport message:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | type = 3 |
/// | 1 | 4 | receiver index (u32 BE) |
/// | 5 | 8 | counter (u64 BE) |
/// | 13 | n | ChaCha20-Poly1305 ciphertext of the plaintext |
/// | 13+n | 16 | Poly1305 tag |
///
/// Nonce (12 bytes): four zero bytes then the counter as u64 little-endian. Associated data: bytes 0..<13.
///
/// Sealing and opening work between caller-provided buffers and allocate nothing; the array forms are built on them.
enum TransportMessage {
    static let headerSize = 13
    static let tagSize = 16
    static let minimumSize = headerSize + tagSize

    /// Seals `plaintext` into `out` (at least `plaintext.count + minimumSize` bytes, checked by the caller); returns
    /// the datagram's length. `out` must not overlap `plaintext`.
    static func seal(
        _ plaintext: UnsafeRawBufferPointer, receiverIndex: UInt32, counter: UInt64, key: SessionKey,
        into out: UnsafeMutableRawBufferPointer
    ) -> Int {
        let size = plaintext.count + minimumSize
        precondition(out.count >= size, "transport message: \(size) bytes do not fit in \(out.count)")
        out[0] = MessageType.transport.rawValue
        out.storeBigEndian(receiverIndex, at: 1)
        out.storeBigEndian(counter, at: 5)
        let tagStart = headerSize + plaintext.count
        ChaChaPolyKey.withNonce(counter) { nonce in
            key.aead.seal(
                nonce: nonce, plaintext: plaintext,
                associatedData: UnsafeRawBufferPointer(rebasing: out[0..<headerSize]),
                ciphertext: UnsafeMutableRawBufferPointer(rebasing: out[headerSize..<tagStart]),
                tag: UnsafeMutableRawBufferPointer(rebasing: out[tagStart..<size]))
        }
        return size
    }

    /// Opens a datagram at least `minimumSize` long into `plaintext` (at least `datagram.count - minimumSize` bytes,
    /// checked by the caller); returns the plaintext's length, or nil when the tag does not verify.
    static func open(
        _ datagram: UnsafeRawBufferPointer, counter: UInt64, key: SessionKey,
        into plaintext: UnsafeMutableRawBufferPointer
    ) -> Int? {
        let tagStart = datagram.count - tagSize
        guard tagStart >= headerSize, plaintext.count >= tagStart - headerSize else { return nil }
        let opened = ChaChaPolyKey.withNonce(counter) { nonce in
            key.aead.open(
                nonce: nonce, ciphertext: UnsafeRawBufferPointer(rebasing: datagram[headerSize..<tagStart]),
                tag: UnsafeRawBufferPointer(rebasing: datagram[tagStart...]),
                associatedData: UnsafeRawBufferPointer(rebasing: datagram[0..<headerSize]),
                plaintext: UnsafeMutableRawBufferPointer(rebasing: plaintext[0..<(tagStart - headerSize)]))
        }
        return opened ? tagStart - headerSize : nil
    }

    /// Seals `plaintext` into a complete datagram.
    static func seal(_ plaintext: [UInt8], receiverIndex: UInt32, counter: UInt64, key: SessionKey) -> [UInt8] {
        plaintext.withUnsafeBytes { p in
            [UInt8](unsafeUninitializedCapacity: p.count + minimumSize) { out, count in
                count = seal(
                    p, receiverIndex: receiverIndex, counter: counter, key: key,
                    into: UnsafeMutableRawBufferPointer(out))
            }
        }
    }

    /// Opens a datagram at least `minimumSize` long; nil when the tag does not verify.
    static func open(_ datagram: [UInt8], counter: UInt64, key: SessionKey) -> [UInt8]? {
        guard datagram.count >= minimumSize else { return nil }
        var ok = false
        let plain = datagram.withUnsafeBytes { d in
            [UInt8](unsafeUninitializedCapacity: d.count - minimumSize) { out, count in
                let n = open(d, counter: counter, key: key, into: UnsafeMutableRawBufferPointer(out))
                ok = n != nil
                count = n ?? 0
            }
        }
        return ok ? plain : nil
    }
}
