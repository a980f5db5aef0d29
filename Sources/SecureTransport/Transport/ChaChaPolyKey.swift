internal import CCryptoBoringSSL
import Crypto

/// A ChaCha20-Poly1305 key set up once, sealing and opening between caller-provided buffers without allocating.
///
/// swift-crypto's `ChaChaPoly.seal`/`open` set the key up again for every message and return `Data` (an AEAD context
/// object, the ciphertext, the tag and the combined box: several heap allocations and copies per datagram). This keeps
/// one BoringSSL `EVP_AEAD_CTX` per key — BoringSSL being the library swift-crypto itself is built on, whose C module
/// `CCryptoBoringSSL` every target depending on `Crypto` can import — and calls its scatter/gather AEAD directly, so
/// a datagram costs the cipher and nothing else. The algorithm and the bytes are the same as `ChaChaPoly`'s (RFC 8439;
/// the tests check one against the other).
///
/// Seal and open may run concurrently on one key (BoringSSL documents them as such); the context is never changed after
/// `init`.
final class ChaChaPolyKey: @unchecked Sendable {
    /// The Poly1305 tag's size.
    static let tagSize = 16
    /// The nonce's size.
    static let nonceSize = 12

    private let context: UnsafeMutablePointer<EVP_AEAD_CTX>

    /// A context for `key`, which must be 32 bytes (every session, group and sender key is).
    init(_ key: SymmetricKey) {
        context = .allocate(capacity: 1)
        CCryptoBoringSSL_EVP_AEAD_CTX_zero(context)
        let status = key.withUnsafeBytes { k in
            CCryptoBoringSSL_EVP_AEAD_CTX_init(
                context, CCryptoBoringSSL_EVP_aead_chacha20_poly1305(),
                k.baseAddress?.assumingMemoryBound(to: UInt8.self),
                k.count, Self.tagSize, nil)
        }
        precondition(status == 1, "ChaCha20-Poly1305 key of \(key.bitCount / 8) bytes: 32 expected")
    }

    deinit {
        CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(context)
        context.deallocate()
    }

    /// Encrypts `plaintext` into `ciphertext` (exactly `plaintext.count` bytes; may be the same memory) and writes the
    /// tag into `tag` (16 bytes), authenticating `associatedData` too. The caller has checked the sizes.
    func seal(
        nonce: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        ciphertext: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) {
        assert(nonce.count == Self.nonceSize && ciphertext.count == plaintext.count && tag.count == Self.tagSize)
        var tagLength = 0
        let status = CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(
            context, ciphertext.bytes, tag.bytes, &tagLength, Self.tagSize, nonce.bytes, nonce.count,
            plaintext.bytes, plaintext.count, nil, 0, associatedData.bytes, associatedData.count)
        // Sealing with a valid context, a 12-byte nonce and room for the tag cannot fail.
        precondition(status == 1 && tagLength == Self.tagSize, "ChaCha20-Poly1305 seal failed")
    }

    /// Checks `tag` over `ciphertext` and `associatedData` and, when it verifies, decrypts `ciphertext` into `plaintext`
    /// (exactly `ciphertext.count` bytes; may be the same memory). Returns false, leaving `plaintext` zeroed, when the
    /// tag does not verify.
    func open(
        nonce: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        assert(nonce.count == Self.nonceSize && plaintext.count == ciphertext.count && tag.count == Self.tagSize)
        let status = CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(
            context, plaintext.bytes, nonce.bytes, nonce.count, ciphertext.bytes, ciphertext.count, tag.bytes,
            tag.count, associatedData.bytes, associatedData.count)
        guard status == 1 else {
            // A forged or damaged datagram: BoringSSL noted why on this thread's error queue; nobody reads it.
            CCryptoBoringSSL_ERR_clear_error()
            return false
        }
        return true
    }

    /// The 12-byte nonce of `counter` (four zero bytes, then the counter as u64 little-endian), on the stack.
    @inline(__always)
    static func withNonce<R>(_ counter: UInt64, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        var nonce: (UInt32, UInt32, UInt32) = (
            0, UInt32(truncatingIfNeeded: counter).littleEndian, UInt32(truncatingIfNeeded: counter >> 32).littleEndian
        )
        return withUnsafeBytes(of: &nonce, body)
    }
}

extension UnsafeRawBufferPointer {
    /// The first byte's address as C's `const uint8_t *` (nil when empty, which BoringSSL accepts with a zero length).
    fileprivate var bytes: UnsafePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}

extension UnsafeMutableRawBufferPointer {
    /// The first byte's address as C's `uint8_t *`.
    fileprivate var bytes: UnsafeMutablePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}
