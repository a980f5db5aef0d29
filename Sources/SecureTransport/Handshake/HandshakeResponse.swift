import MeshTypes

/// The second handshake message, sent by the responder. 99 bytes on the wire:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | type = 2 |
/// | 1 | 1 | version = 1 |
/// | 2 | 4 | sender index (u32 BE) |
/// | 6 | 4 | receiver index = the initiation's sender index (u32 BE) |
/// | 10 | 16 | sender NodeID |
/// | 26 | 8 | sender incarnation (u64 BE) |
/// | 34 | 1 | sender role |
/// | 35 | 32 | ephemeral X25519 public key |
/// | 67 | 32 | HMAC-SHA256(handshake MAC key, initiation (all 103 bytes) ‖ bytes 0..<67) |
struct HandshakeResponse: Equatable {
    static let size = 99
    static let macOffset = 67

    var senderIndex: UInt32
    var receiverIndex: UInt32
    var sender: NodeID
    var incarnation: Incarnation
    var role: NodeRole
    var ephemeralPublicKey: [UInt8]

    /// The bytes before the MAC.
    func encodedBody() -> [UInt8] {
        var b: [UInt8] = []
        b.reserveCapacity(Self.size)
        b.append(MessageType.response.rawValue)
        b.append(ProtocolVersion.current)
        b.appendBigEndian(senderIndex)
        b.appendBigEndian(receiverIndex)
        HandshakeSender.append(
            to: &b, sender: sender, incarnation: incarnation, role: role, ephemeralPublicKey: ephemeralPublicKey)
        return b
    }

    /// The receiver index of a datagram at least 10 bytes long.
    static func receiverIndex(in bytes: [UInt8]) -> UInt32? {
        guard bytes.count >= 10 else { return nil }
        return bytes.bigEndianUInt32(at: 6)
    }

    /// The claimed sender NodeID of a datagram long enough to hold one, before any verification.
    static func claimedSender(in bytes: [UInt8]) -> NodeID? {
        HandshakeSender.claimed(in: bytes, at: 10)
    }

    /// Decodes the fields of a datagram whose length, type and version the caller has checked.
    static func decode(_ bytes: [UInt8]) throws(WireError) -> HandshakeResponse {
        var r = WireReader(bytes, offset: 2, context: "handshake response")
        let index = try r.u32("sender index")
        let receiver = try r.u32("receiver index")
        let from = try HandshakeSender.read(from: &r, message: "handshake response")
        return HandshakeResponse(
            senderIndex: index, receiverIndex: receiver, sender: from.sender, incarnation: from.incarnation,
            role: from.role, ephemeralPublicKey: from.ephemeralPublicKey)
    }
}
