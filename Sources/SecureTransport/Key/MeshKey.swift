import Crypto
import Foundation

/// The 32-byte secret every node of one mesh shares. Only nodes holding the same key can complete a handshake.
///
/// Stored in a key file as 64 lowercase hexadecimal digits followed by a newline.
public struct MeshKey: Sendable, Equatable {
    /// The key's 32 bytes.
    public let bytes: [UInt8]

    /// The number of bytes in a mesh key.
    public static let byteCount = 32

    /// A fresh random key from the system's cryptographically secure generator.
    public static func generate() -> MeshKey {
        var rng = SystemRandomNumberGenerator()
        return MeshKey(unchecked: (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &rng) })
    }

    /// A key from exactly 32 bytes.
    public init(bytes: [UInt8]) throws(MeshKeyError) {
        guard bytes.count == Self.byteCount else { throw .wrongLength(found: bytes.count) }
        self.bytes = bytes
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses a key file's contents: 64 hexadecimal digits (either case accepted), optionally followed by one `\n`
    /// or `\r\n`. `path` only appears in error messages.
    public init(fileContents: String, path: String) throws(MeshKeyError) {
        var text = Substring(fileContents)
        // "\r\n" is a single Character in Swift.
        if text.last == "\n" || text.last == "\r\n" { text = text.dropLast() }
        let characters = Array(text)
        // Report a bad character first when the length is right; otherwise report the length.
        guard characters.count == 2 * Self.byteCount else {
            throw .wrongFileLength(path: path, found: characters.count)
        }
        var out: [UInt8] = []
        out.reserveCapacity(Self.byteCount)
        var high: UInt8 = 0
        for (position, c) in characters.enumerated() {
            guard let nibble = c.hexDigitValue, c.isASCII else {
                throw .nonHexadecimalCharacter(path: path, position: position, character: c)
            }
            if position % 2 == 0 { high = UInt8(nibble) } else { out.append(high << 4 | UInt8(nibble)) }
        }
        self.bytes = out
    }

    /// The key file's contents: 64 lowercase hexadecimal digits and a newline.
    public var fileContents: String {
        bytes.hexString + "\n"
    }

    /// 16 lowercase hexadecimal digits identifying the key without revealing it:
    /// the first 8 bytes of HKDF-SHA256(ikm: key, salt: empty, info: "fleetmesh v1 fingerprint").
    /// Published in DNS-SD TXT records so nodes of different meshes on one network never try to join each other.
    public var fingerprint: String {
        let derived = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: bytes),
            salt: [UInt8](),
            info: Array(KeyLabels.fingerprint.utf8),
            outputByteCount: 8)
        return derived.withUnsafeBytes { Array($0) }.hexString
    }
}

extension MeshKey: CustomStringConvertible {
    /// Never prints the key itself, only its fingerprint.
    public var description: String { "MeshKey(fingerprint: \(fingerprint))" }
}

/// The fixed HKDF labels of protocol version 1.
enum KeyLabels {
    static let fingerprint = "fleetmesh v1 fingerprint"
    static let handshakeMAC = "fleetmesh v1 handshake mac"
    static let sessionKeys = "fleetmesh v1 session keys"
}

extension Array where Element == UInt8 {
    /// Lowercase hexadecimal digits, two per byte.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for b in self {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
