import Crypto
import Foundation
import MeshTypes

/// One sealed datagram for every node on the segment: what each node needs from its neighbours (presence, flooded
/// coordinator messages) sent once by link-local multicast instead of once per peer.
///
/// Every holder of the mesh key derives the group key, and from it one key per sender and incarnation, so that each
/// sender's counters make nonces of its own: the counter restarts at 0 with a new (random) incarnation, never under
/// the same key. Receivers keep a replay window per sender and incarnation; which incarnation is the sender's current
/// one is the mesh layer's to check (its session with the sender knows it), so an old incarnation's datagrams,
/// replayed, are refused there.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | type = 4 |
/// | 1 | 16 | sender NodeID |
/// | 17 | 8 | sender incarnation (u64 BE) |
/// | 25 | 8 | counter (u64 BE) |
/// | 33 | n | ChaCha20-Poly1305 ciphertext of the plaintext |
/// | 33+n | 16 | Poly1305 tag |
///
/// Keys: group = HKDF-SHA256(ikm: mesh key, info: "fleetmesh v1 group"); sender = HKDF-SHA256(ikm: group, info:
/// "fleetmesh v1 group sender" ‖ NodeID ‖ incarnation). Nonce: four zero bytes then the counter as u64 little-endian.
/// Associated data: bytes 0..<33. Pure: no I/O, no clock.
public struct GroupChannel: Sendable {
    /// Header bytes before the ciphertext.
    public static let headerSize = 33
    /// The Poly1305 tag's size.
    public static let tagSize = 16
    /// Bytes a datagram adds to its plaintext.
    public static let overhead = headerSize + tagSize
    /// Senders (each incarnation counted apart) whose replay windows are kept; the longest unheard is dropped first.
    public static let senderLimit = 1024

    /// This node.
    public let localID: NodeID
    /// This node's incarnation (its datagrams' key).
    public let incarnation: Incarnation
    private let groupKey: SessionKey
    private let sendKey: SessionKey
    private var counter: UInt64 = 0
    private var receivers: [Sender: Receiver] = [:]
    private var clock: UInt64 = 0

    struct Sender: Hashable {
        var id: NodeID
        var incarnation: Incarnation
    }

    struct Receiver {
        var key: SessionKey
        var window = ReplayWindow()
        var lastUsed: UInt64
    }

    /// Why a group datagram was refused.
    public enum Rejection: Error, Sendable, Hashable, CustomStringConvertible {
        /// Shorter than a header and a tag, or not a group datagram.
        case malformed(length: Int)
        /// This node's own datagram, looped back by the multicast socket.
        case own
        /// The tag does not verify: another mesh key, or altered on the way.
        case badTag(claimedSender: NodeID)
        /// A counter already received (or too far below the newest).
        case replayed(sender: NodeID, counter: UInt64)

        public var description: String {
            switch self {
            case .malformed(let n): "group datagram of \(n) bytes: at least \(GroupChannel.overhead) with type 4"
            case .own: "own group datagram"
            case .badTag(let s): "group datagram claiming \(s.hex): tag does not verify (another mesh key?)"
            case .replayed(let s, let c): "group datagram from \(s.hex): counter \(c) already seen"
            }
        }
    }

    /// A channel for `localID` in its `incarnation`, keyed by the mesh key.
    public init(meshKey: MeshKey, localID: NodeID, incarnation: Incarnation) {
        self.localID = localID
        self.incarnation = incarnation
        groupKey = SessionKey(
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: meshKey.bytes), info: Array("fleetmesh v1 group".utf8),
                outputByteCount: 32))
        sendKey = Self.senderKey(groupKey, localID, incarnation)
    }

    /// Seals `plaintext` into one datagram for every node on the segment.
    public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
        let c = counter
        counter &+= 1
        var header: [UInt8] = [MessageType.group.rawValue]
        header.reserveCapacity(Self.headerSize + plaintext.count + Self.tagSize)
        header += localID.wireBytes
        header.appendBigEndian(incarnation)
        header.appendBigEndian(c)
        // Sealing with a valid key and nonce cannot fail.
        let box = try! ChaChaPoly.seal(
            plaintext, using: sendKey.key, nonce: TransportMessage.nonce(c), authenticating: header)
        var out = header
        out += box.ciphertext
        out += box.tag
        return out
    }

    /// A group datagram opened.
    public struct Message: Sendable, Hashable {
        public var sender: NodeID
        public var incarnation: Incarnation
        public var plaintext: [UInt8]
    }

    /// Opens a group datagram: its sender, the sender's incarnation and the plaintext, or why not. Never traps.
    public mutating func open(_ d: [UInt8]) -> Result<Message, Rejection> {
        guard d.count >= Self.overhead, d[0] == MessageType.group.rawValue else {
            return .failure(.malformed(length: d.count))
        }
        let sender = Sender(
            id: NodeID(high: d.bigEndianUInt64(at: 1), low: d.bigEndianUInt64(at: 9)),
            incarnation: d.bigEndianUInt64(at: 17))
        if sender.id == localID && sender.incarnation == incarnation { return .failure(.own) }
        let c = d.bigEndianUInt64(at: 25)
        clock &+= 1
        var r = receivers[sender] ?? Receiver(key: Self.senderKey(groupKey, sender.id, sender.incarnation), lastUsed: 0)
        guard r.window.canAccept(c) else { return .failure(.replayed(sender: sender.id, counter: c)) }
        let tagStart = d.count - Self.tagSize
        guard
            let box = try? ChaChaPoly.SealedBox(
                nonce: TransportMessage.nonce(c), ciphertext: d[Self.headerSize..<tagStart], tag: d[tagStart...]),
            let plain = try? ChaChaPoly.open(box, using: r.key.key, authenticating: d[0..<Self.headerSize])
        else { return .failure(.badTag(claimedSender: sender.id)) }
        r.window.record(c)
        r.lastUsed = clock
        if receivers[sender] == nil, receivers.count >= Self.senderLimit,
            let oldest = receivers.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
        {
            receivers[oldest] = nil
        }
        receivers[sender] = r
        return .success(Message(sender: sender.id, incarnation: sender.incarnation, plaintext: Array(plain)))
    }

    /// Senders whose replay windows are kept now.
    public var knownSenders: Int { receivers.count }

    static func senderKey(_ group: SessionKey, _ id: NodeID, _ incarnation: Incarnation) -> SessionKey {
        var info = Array("fleetmesh v1 group sender".utf8) + id.wireBytes
        info.appendBigEndian(incarnation)
        return SessionKey(HKDF<SHA256>.deriveKey(inputKeyMaterial: group.key, info: info, outputByteCount: 32))
    }
}
