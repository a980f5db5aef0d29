import MeshTypes

/// The first handshake message, sent by the initiator. 103 bytes on the wire:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | type = 1 |
/// | 1 | 1 | version = 1 |
/// | 2 | 4 | sender index (u32 BE) |
/// | 6 | 16 | sender NodeID |
/// | 22 | 8 | sender incarnation (u64 BE) |
/// | 30 | 1 | sender role (0 station, 1 drone) |
/// | 31 | 32 | ephemeral X25519 public key |
/// | 63 | 8 | timestamp, wall-clock microseconds (u64 BE) |
/// | 71 | 32 | HMAC-SHA256(handshake MAC key, bytes 0..<71) |
struct HandshakeInitiation: Equatable {
    static let size = 103
    static let macOffset = 71

    var senderIndex: UInt32
    var sender: NodeID
    var incarnation: Incarnation
    var role: NodeRole
    var ephemeralPublicKey: [UInt8]
    var timestamp: UInt64

    /// The bytes covered by the MAC (everything before it).
    func encodedBody() -> [UInt8] {
        var b: [UInt8] = []
        b.reserveCapacity(Self.size)
        b.append(MessageType.initiation.rawValue)
        b.append(ProtocolVersion.current)
        b.appendBigEndian(senderIndex)
        HandshakeSender.append(
            to: &b, sender: sender, incarnation: incarnation, role: role, ephemeralPublicKey: ephemeralPublicKey)
        b.appendBigEndian(timestamp)
        return b
    }

    /// The claimed sender NodeID of a datagram that is long enough to hold one, before any verification.
    static func claimedSender(in bytes: [UInt8]) -> NodeID? {
        HandshakeSender.claimed(in: bytes, at: 6)
    }

    /// Decodes the fields of a datagram whose length, type and version the caller has checked.
    static func decode(_ bytes: [UInt8]) throws(WireError) -> HandshakeInitiation {
        var r = WireReader(bytes, offset: 2, context: "handshake initiation")
        let index = try r.u32("sender index")
        let from = try HandshakeSender.read(from: &r, message: "handshake initiation")
        let timestamp = try r.u64("timestamp")
        return HandshakeInitiation(
            senderIndex: index, sender: from.sender, incarnation: from.incarnation, role: from.role,
            ephemeralPublicKey: from.ephemeralPublicKey, timestamp: timestamp)
    }
}
