import Crypto

/// A 32-byte MAVLink 2 signing secret.
public struct MAVLinkSigningKey: Sendable, Hashable {
    /// The secret bytes (always 32).
    public let bytes: [UInt8]

    /// Errors making a key.
    public enum Error: Swift.Error, Hashable, Sendable {
        /// The key was not 32 bytes long.
        case wrongLength(expected: Int, found: Int)
    }

    /// Wraps 32 secret bytes.
    /// - Throws: ``Error/wrongLength(expected:found:)`` for any other length.
    public init(bytes: [UInt8]) throws(MAVLinkSigningKey.Error) {
        guard bytes.count == 32 else { throw .wrongLength(expected: 32, found: bytes.count) }
        self.bytes = bytes
    }

    /// Derives a key as SHA-256 of a passphrase's UTF-8 bytes (the MAVProxy / QGroundControl convention).
    public init(passphrase: String) {
        self.bytes = Array(SHA256.hash(data: Array(passphrase.utf8)))
    }
}
