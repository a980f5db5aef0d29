import Crypto
import Foundation

/// A symmetric key that may cross concurrency domains.
///
/// `SymmetricKey` is an immutable value type whose storage is never mutated after creation, but swift-crypto 3.x does
/// not declare it `Sendable`; this wrapper states that fact in one place.
struct SessionKey: @unchecked Sendable {
    let key: SymmetricKey

    init(_ key: SymmetricKey) { self.key = key }
    init(bytes: some ContiguousBytes) { key = SymmetricKey(data: bytes) }
}
