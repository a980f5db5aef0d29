import MeshTypes

/// Who sent a handshake message, as both the initiation and the response carry it: NodeID (16 bytes), incarnation
/// (u64 BE), role (1 byte, 0 station, 1 drone) and ephemeral X25519 public key (32 bytes), in that order.
enum HandshakeSender {
    /// Appends the sender fields to `b`.
    static func append(
        to b: inout [UInt8], sender: NodeID, incarnation: Incarnation, role: NodeRole, ephemeralPublicKey: [UInt8]
    ) {
        b.append(contentsOf: sender.wireBytes)
        b.appendBigEndian(incarnation)
        b.append(role.wireValue)
        b.append(contentsOf: ephemeralPublicKey)
    }

    /// Reads the sender fields; `message` names the handshake message in errors.
    static func read(from r: inout WireReader, message: String) throws(WireError) -> (
        sender: NodeID, incarnation: Incarnation, role: NodeRole, ephemeralPublicKey: [UInt8]
    ) {
        let sender = try r.nodeID("sender NodeID")
        let incarnation = try r.u64("sender incarnation")
        let roleByte = try r.u8("sender role")
        guard let role = NodeRole(wireValue: roleByte) else {
            throw WireError("\(message): sender role must be 0 (station) or 1 (drone), found \(roleByte)")
        }
        let ephemeral = try r.bytes(32, "ephemeral public key")
        return (sender, incarnation, role, ephemeral)
    }

    /// The claimed sender NodeID at `offset` of a datagram long enough to hold one, before any verification.
    static func claimed(in bytes: [UInt8], at offset: Int) -> NodeID? {
        guard bytes.count >= offset + 16 else { return nil }
        return NodeID(high: bytes.bigEndianUInt64(at: offset), low: bytes.bigEndianUInt64(at: offset + 8))
    }
}
