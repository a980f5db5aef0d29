import Crypto
import Foundation

/// A symmetric key that may cross concurrency domains, with its ChaCha20-Poly1305 context set up once.
///
/// `SymmetricKey` is an immutable value type whose storage is never mutated after creation, but swift-crypto 3.x does
/// not declare it `Sendable`; this wrapper states that fact in one place. `aead` seals and opens datagrams under the
/// key without setting it up again (or allocating) per datagram.
struct SessionKey: @unchecked Sendable {
    let key: SymmetricKey
    let aead: ChaChaPolyKey

    init(_ key: SymmetricKey) {
        self.key = key
        aead = ChaChaPolyKey(key)
    }

    init(bytes: some ContiguousBytes) { self.init(SymmetricKey(data: bytes)) }
}
