import Coordinator
import MeshTypes

/// A node's own broadcast in a group datagram, without the envelope fields the datagram's header already carries
/// (PROTOCOL.md §6.3): node-layer message type 2, payload `[coordinator type u16][sequence u64][TTL u8][body]`; the
/// origin and its incarnation are the group datagram's sender and the incarnation its session has. 23 bytes shorter
/// than the routed message (§7.2's 34-byte broadcast envelope).
enum OwnBroadcast {
    /// The node-layer message type.
    static let type: UInt16 = 2
    /// Bytes of a broadcast envelope: origin 16, incarnation 8, sequence 8, TTL 1, destination kind 1.
    static let envelopeSize = 34

    /// The compact form of an encoded routed message whose envelope is a broadcast.
    static func compact(type: UInt16, payload: [UInt8]) -> [UInt8] {
        var w = WireWriter(capacity: payload.count - envelopeSize + 11)
        w.u16(type)
        w.bytes(Array(payload[24..<33]))
        w.bytes(Array(payload[envelopeSize...]))
        return w.bytes
    }

    /// The routed message again, its envelope's origin and incarnation the sender's.
    static func expand(_ compact: [UInt8], origin: NodeID, incarnation: Incarnation) throws(WireError) -> (
        type: UInt16, payload: [UInt8]
    ) {
        var r = WireReader(compact, context: "own broadcast")
        let type = try r.u16("own broadcast.type")
        let sequenceAndTTL = try r.bytes(9, "own broadcast.sequence and TTL")
        var w = WireWriter(capacity: compact.count + 25)
        w.u64(origin.high)
        w.u64(origin.low)
        w.u64(incarnation)
        w.bytes(sequenceAndTTL)
        w.u8(0)
        w.bytes(r.rest())
        return (type, w.bytes)
    }
}
