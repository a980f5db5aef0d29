import Crypto
import Foundation
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
enum TransportMessage {
    static let headerSize = 13
    static let tagSize = 16
    static let minimumSize = headerSize + tagSize

    static func nonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
        var n = [UInt8](repeating: 0, count: 12)
        for i in 0..<8 { n[4 + i] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * i)) }
        // 12 bytes is always a valid ChaChaPoly nonce.
        return try! ChaChaPoly.Nonce(data: n)
    }

    static func header(receiverIndex: UInt32, counter: UInt64) -> [UInt8] {
        var h: [UInt8] = []
        h.reserveCapacity(headerSize)
        h.append(MessageType.transport.rawValue)
        h.appendBigEndian(receiverIndex)
        h.appendBigEndian(counter)
        return h
    }

    /// Seals `plaintext` into a complete datagram.
    static func seal(_ plaintext: [UInt8], receiverIndex: UInt32, counter: UInt64, key: SessionKey) -> [UInt8] {
        let header = header(receiverIndex: receiverIndex, counter: counter)
        // Sealing with a valid key and nonce cannot fail.
        let box = try! ChaChaPoly.seal(plaintext, using: key.key, nonce: nonce(counter), authenticating: header)
        var out = header
        out.reserveCapacity(headerSize + plaintext.count + tagSize)
        out.append(contentsOf: box.ciphertext)
        out.append(contentsOf: box.tag)
        return out
    }

    /// Opens a datagram at least `minimumSize` long; nil when the tag does not verify.
    static func open(_ datagram: [UInt8], counter: UInt64, key: SessionKey) -> [UInt8]? {
        let tagStart = datagram.count - tagSize
        guard tagStart >= headerSize,
            let box = try? ChaChaPoly.SealedBox(
                nonce: nonce(counter), ciphertext: datagram[headerSize..<tagStart], tag: datagram[tagStart...]),
            let plain = try? ChaChaPoly.open(box, using: key.key, authenticating: datagram[0..<headerSize])
        else { return nil }
        return Array(plain)
    }
}
