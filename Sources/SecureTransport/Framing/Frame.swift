import MeshTypes

/// One unit of the inner framing carried inside a transport message's plaintext. A plaintext holds zero or more frames
/// back to back; each is `[kind u8][body length u16 BE][body]`, so a receiver skips kinds it does not know.
public enum Frame: Equatable, Sendable {
    /// An application message with no delivery guarantee. Body: `[type u16][payload]`.
    case unreliable(type: UInt16, payload: [UInt8])
    /// A message of the reliable, ordered channel. Body: `[sequence u64][type u16][payload]`.
    case reliable(sequence: UInt64, type: UInt16, payload: [UInt8])
    /// Acknowledges every reliable sequence ≤ `cumulative`, plus `cumulative + 1 + i` for each set bit `i` (LSB = 0)
    /// of `selective`. Body: `[cumulative u64][selective u64]`.
    case ack(cumulative: UInt64, selective: UInt64)
    /// A liveness probe. Body: `[id u32][sentAtMicros u64]`.
    case heartbeat(id: UInt32, sentAtMicros: UInt64)
    /// The answer to a heartbeat, echoing its fields. Body: `[id u32][sentAtMicros u64]`.
    case heartbeatReply(id: UInt32, sentAtMicros: UInt64)
    /// The sender is leaving the mesh. Body: `[reason u8]`.
    case goodbye(reason: UInt8)
    /// In a group datagram: the latest group stamp (`heartbeat` frame) heard from `peer`, echoed after `heldMicros`,
    /// so that `peer` measures its round trip to the sender without a unicast exchange. Body: `[peer NodeID 16]
    /// [sentAtMicros u64][heldMicros u32]`.
    case echo(peer: NodeID, sentAtMicros: UInt64, heldMicros: UInt32)

    /// The kind byte of each frame.
    public enum Kind: UInt8, Sendable, CaseIterable {
        /// `0x01`: `.unreliable`.
        case unreliable = 0x01
        /// `0x02`: `.reliable`.
        case reliable = 0x02
        /// `0x03`: `.ack`.
        case ack = 0x03
        /// `0x04`: `.heartbeat`.
        case heartbeat = 0x04
        /// `0x05`: `.heartbeatReply`.
        case heartbeatReply = 0x05
        /// `0x06`: `.goodbye`.
        case goodbye = 0x06
        /// `0x07`: `.echo`.
        case echo = 0x07
    }

    /// This frame's kind.
    public var kind: Kind {
        switch self {
        case .unreliable: .unreliable
        case .reliable: .reliable
        case .ack: .ack
        case .heartbeat: .heartbeat
        case .heartbeatReply: .heartbeatReply
        case .goodbye: .goodbye
        case .echo: .echo
        }
    }

    /// Bytes of kind and length before every body.
    public static let headerSize = 3
    /// The largest body a frame can carry.
    public static let maximumBodySize = Int(UInt16.max)
    /// The largest payload of an `.unreliable` frame.
    public static let maximumUnreliablePayload = maximumBodySize - 2
    /// The largest payload of a `.reliable` frame.
    public static let maximumReliablePayload = maximumBodySize - 10
}
