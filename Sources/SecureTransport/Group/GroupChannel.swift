import Crypto
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
        plaintext.withUnsafeBytes { p in
            [UInt8](unsafeUninitializedCapacity: p.count + Self.overhead) { out, count in
                count = sealUnchecked(p, into: UnsafeMutableRawBufferPointer(out))
            }
        }
    }

    /// Seals `plaintext` into `buffer` without allocating; returns the datagram's length. `buffer` needs
    /// `plaintext.count + overhead` bytes (else `.bufferTooSmall`, and no counter is used up) and must not overlap
    /// `plaintext`.
    public mutating func seal(
        _ plaintext: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SecureTransportError) -> Int {
        let needed = plaintext.count + Self.overhead
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
        return sealUnchecked(plaintext, into: buffer)
    }

    private mutating func sealUnchecked(_ plaintext: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer)
        -> Int
    {
        let c = counter
        counter &+= 1
        let size = plaintext.count + Self.overhead
        let tagStart = Self.headerSize + plaintext.count
        out[0] = MessageType.group.rawValue
        out.storeBigEndian(localID.high, at: 1)
        out.storeBigEndian(localID.low, at: 9)
        out.storeBigEndian(incarnation, at: 17)
        out.storeBigEndian(c, at: 25)
        ChaChaPolyKey.withNonce(c) { nonce in
            sendKey.aead.seal(
                nonce: nonce, plaintext: plaintext,
                associatedData: UnsafeRawBufferPointer(rebasing: out[0..<Self.headerSize]),
                ciphertext: UnsafeMutableRawBufferPointer(rebasing: out[Self.headerSize..<tagStart]),
                tag: UnsafeMutableRawBufferPointer(rebasing: out[tagStart..<size]))
        }
        return size
    }

    /// A group datagram opened.
    public struct Message: Sendable, Hashable {
        public var sender: NodeID
        public var incarnation: Incarnation
        public var plaintext: [UInt8]
        /// The sender's datagram counter (its nonce): one more for every group datagram it seals, so the gaps between
        /// those heard tell how many were lost on the way.
        public var counter: UInt64
    }

    /// A group datagram opened into the caller's buffer: its sender, the sender's incarnation and the plaintext's
    /// length (the buffer's first `count` bytes).
    public struct Opened: Sendable, Hashable {
        public var sender: NodeID
        public var incarnation: Incarnation
        public var count: Int
        /// The sender's datagram counter (``Message/counter``).
        public var counter: UInt64
    }

    /// Opens a group datagram: its sender, the sender's incarnation and the plaintext, or why not. Never traps.
    public mutating func open(_ d: [UInt8]) -> Result<Message, Rejection> {
        var result: Result<Opened, Rejection> = .failure(.malformed(length: d.count))
        let plaintext = d.withUnsafeBytes { datagram in
            [UInt8](unsafeUninitializedCapacity: max(0, datagram.count - Self.overhead)) { buffer, count in
                result = openUnchecked(datagram, into: UnsafeMutableRawBufferPointer(buffer))
                if case .success(let o) = result { count = o.count }
            }
        }
        return result.map {
            Message(sender: $0.sender, incarnation: $0.incarnation, plaintext: plaintext, counter: $0.counter)
        }
    }

    /// Opens a group datagram into `buffer` without allocating (once its sender is known): its sender, the sender's
    /// incarnation and the plaintext's length, or why not. `buffer` needs `datagram.count - overhead` bytes (else
    /// `.bufferTooSmall`, and the datagram is not looked at) and must not overlap `datagram`. Never traps, whatever
    /// the bytes.
    public mutating func open(
        _ datagram: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SecureTransportError) -> Result<Opened, Rejection> {
        let needed = datagram.count - Self.overhead
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
        return openUnchecked(datagram, into: buffer)
    }

    private mutating func openUnchecked(_ d: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer)
        -> Result<Opened, Rejection>
    {
        guard d.count >= Self.overhead, d[0] == MessageType.group.rawValue else {
            return .failure(.malformed(length: d.count))
        }
        let sender = Sender(
            id: NodeID(high: d.bigEndianUInt64(at: 1), low: d.bigEndianUInt64(at: 9)),
            incarnation: d.bigEndianUInt64(at: 17))
        if sender.id == localID && sender.incarnation == incarnation { return .failure(.own) }
        let c = d.bigEndianUInt64(at: 25)
        clock &+= 1
        let count = d.count - Self.overhead
        let tagStart = d.count - Self.tagSize
        func open(_ key: SessionKey) -> Bool {
            ChaChaPolyKey.withNonce(c) { nonce in
                key.aead.open(
                    nonce: nonce, ciphertext: UnsafeRawBufferPointer(rebasing: d[Self.headerSize..<tagStart]),
                    tag: UnsafeRawBufferPointer(rebasing: d[tagStart...]),
                    associatedData: UnsafeRawBufferPointer(rebasing: d[0..<Self.headerSize]),
                    plaintext: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }
        let opened = Opened(sender: sender.id, incarnation: sender.incarnation, count: count, counter: c)
        if let i = receivers.index(forKey: sender) {
            // A known sender: its window moves in place (a copy of the receiver would copy its 1 KiB bitmap).
            guard receivers.values[i].window.canAccept(c) else {
                return .failure(.replayed(sender: sender.id, counter: c))
            }
            guard open(receivers.values[i].key) else { return .failure(.badTag(claimedSender: sender.id)) }
            receivers.values[i].window.record(c)
            receivers.values[i].lastUsed = clock
            return .success(opened)
        }
        // A new sender is kept only once one of its datagrams verified.
        var r = Receiver(key: Self.senderKey(groupKey, sender.id, sender.incarnation), lastUsed: clock)
        guard open(r.key) else { return .failure(.badTag(claimedSender: sender.id)) }
        r.window.record(c)
        if receivers.count >= Self.senderLimit,
            let oldest = receivers.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
        {
            receivers[oldest] = nil
        }
        receivers[sender] = r
        return .success(opened)
    }

    /// Senders whose replay windows are kept now.
    public var knownSenders: Int { receivers.count }

    static func senderKey(_ group: SessionKey, _ id: NodeID, _ incarnation: Incarnation) -> SessionKey {
        var info = Array("fleetmesh v1 group sender".utf8) + id.wireBytes
        info.appendBigEndian(incarnation)
        return SessionKey(HKDF<SHA256>.deriveKey(inputKeyMaterial: group.key, info: info, outputByteCount: 32))
    }
}
