import Crypto
import Foundation

/// One datagram of the loc-broadcaster protocol (docs/PROTOCOL.md §9): a 22-byte header in the clear, then the body
/// sealed with ChaCha20-Poly1305 under a key derived from the mesh key and the sender's id.
///
/// ```
/// offset size
///  0     4   magic "FMLB"
///  4     1   version = 1
///  5     1   kind: 1 = subscribe, 2 = target
///  6     8   sender id (random, chosen at each start of the sender)
/// 14     8   counter (big-endian, from 1, strictly increasing per sender id)
/// 22     n   ciphertext of the body
/// 22+n  16   Poly1305 tag
/// ```
/// Nonce: 4 zero bytes then the counter; additional data: the 22 header bytes.
public struct LocBroadcasterDatagram: Sendable, Equatable {
    /// What a datagram carries.
    public enum Kind: UInt8, Sendable {
        /// A subscriber asks the source to stream targets to the datagram's source address for 3 s.
        case subscribe = 1
        /// A target update from a source.
        case target = 2
    }

    public static let magic: [UInt8] = Array("FMLB".utf8)
    public static let version: UInt8 = 1
    public static let headerSize = 22
    public static let tagSize = 16
    /// The largest datagram either side sends or accepts.
    public static let maxSize = 512
    /// The DNS-SD service type target sources advertise.
    public static let serviceType = "_loc-broadcaster._udp"

    public var kind: Kind
    public var sender: UInt64
    public var counter: UInt64
    public var body: [UInt8]

    public init(kind: Kind, sender: UInt64, counter: UInt64, body: [UInt8]) {
        self.kind = kind
        self.sender = sender
        self.counter = counter
        self.body = body
    }

    /// The header bytes (also the AEAD's additional data).
    var header: [UInt8] {
        var h = Self.magic
        h.append(Self.version)
        h.append(kind.rawValue)
        h.append(contentsOf: sender.bigEndianBytes)
        h.append(contentsOf: counter.bigEndianBytes)
        return h
    }

    /// Seals the body with `keys`' key for this sender.
    public func seal(with keys: inout LocBroadcasterKeys) -> [UInt8] {
        let header = self.header
        let key = keys.key(for: sender)
        // A 12-byte nonce from the counter always makes a valid nonce.
        let nonce = try! ChaChaPoly.Nonce(data: [0, 0, 0, 0] + counter.bigEndianBytes)
        let box = try! ChaChaPoly.seal(body, using: key, nonce: nonce, authenticating: header)
        return header + Array(box.ciphertext) + Array(box.tag)
    }

    /// Checks the header and opens the body. Errors say what was wrong, without echoing secret material.
    public static func open(_ bytes: [UInt8], keys: inout LocBroadcasterKeys) throws(LocBroadcasterError)
        -> LocBroadcasterDatagram
    {
        guard bytes.count <= maxSize else { throw .tooLong(bytes.count) }
        guard bytes.count >= headerSize + tagSize else { throw .tooShort(bytes.count) }
        guard Array(bytes[0..<4]) == magic else { throw .badMagic }
        guard bytes[4] == version else { throw .unsupportedVersion(bytes[4]) }
        guard let kind = Kind(rawValue: bytes[5]) else { throw .unknownKind(bytes[5]) }
        let sender = UInt64(bigEndianBytes: bytes[6..<14])
        let counter = UInt64(bigEndianBytes: bytes[14..<22])
        guard counter > 0 else { throw .zeroCounter }
        let key = keys.key(for: sender)
        do {
            let nonce = try ChaChaPoly.Nonce(data: [0, 0, 0, 0] + counter.bigEndianBytes)
            let box = try ChaChaPoly.SealedBox(
                nonce: nonce, ciphertext: bytes[headerSize..<(bytes.count - tagSize)],
                tag: bytes[(bytes.count - tagSize)...])
            let body = try ChaChaPoly.open(box, using: key, authenticating: bytes[0..<headerSize])
            return LocBroadcasterDatagram(kind: kind, sender: sender, counter: counter, body: Array(body))
        } catch {
            throw .authenticationFailed
        }
    }
}

/// Why a loc-broadcaster datagram was refused.
public enum LocBroadcasterError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooShort(Int)
    case tooLong(Int)
    case badMagic
    case unsupportedVersion(UInt8)
    case unknownKind(UInt8)
    case zeroCounter
    /// Wrong mesh key, or the datagram was altered.
    case authenticationFailed
    /// The counter is not above the highest already accepted from this sender.
    case replayed(sender: UInt64, counter: UInt64, highest: UInt64)
    /// A datagram of a kind this side does not accept (a source sent a subscribe to a subscriber, …).
    case unexpectedKind(LocBroadcasterDatagram.Kind)
    /// The body does not decode.
    case malformedBody(String)

    public var description: String {
        switch self {
        case .tooShort(let n):
            return
                "datagram too short: \(n) bytes, at least \(LocBroadcasterDatagram.headerSize + LocBroadcasterDatagram.tagSize) expected"
        case .tooLong(let n): return "datagram too long: \(n) bytes, at most \(LocBroadcasterDatagram.maxSize) accepted"
        case .badMagic: return "not a loc-broadcaster datagram (bad magic)"
        case .unsupportedVersion(let v): return "unsupported loc-broadcaster version \(v) (this node speaks 1)"
        case .unknownKind(let k): return "unknown datagram kind \(k)"
        case .zeroCounter: return "counter 0 is not allowed"
        case .authenticationFailed: return "authentication failed (wrong mesh key or altered datagram)"
        case .replayed(let s, let c, let h):
            return
                "replayed or reordered datagram from sender \(String(s, radix: 16)): counter \(c), already accepted \(h)"
        case .unexpectedKind(let k): return "unexpected datagram kind \(k)"
        case .malformedBody(let why): return "malformed body: \(why)"
        }
    }
}

/// Per-sender keys: HKDF-SHA256(ikm: mesh key, salt: sender id (8 bytes, big-endian), info: "fleetmesh v1 loc-broadcaster",
/// 32 bytes), cached for the most recent senders.
public struct LocBroadcasterKeys: Sendable {
    static let info = Array("fleetmesh v1 loc-broadcaster".utf8)
    static let cacheLimit = 256
    private let meshKey: [UInt8]
    private var cache: [UInt64: [UInt8]] = [:]

    /// Keys derived from the 32-byte mesh key.
    public init(meshKey: [UInt8]) {
        self.meshKey = meshKey
    }

    /// The key for `sender`'s datagrams.
    public mutating func key(for sender: UInt64) -> SymmetricKey {
        if let k = cache[sender] { return SymmetricKey(data: k) }
        let k = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: meshKey), salt: sender.bigEndianBytes,
            info: Self.info, outputByteCount: 32)
        if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[sender] = k.withUnsafeBytes { Array($0) }
        return k
    }
}

extension UInt64 {
    var bigEndianBytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: self >> (56 - 8 * $0)) } }

    init<C: Collection>(bigEndianBytes bytes: C) where C.Element == UInt8 {
        self = bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
