import MeshTypes

/// Why a received datagram was refused. Carries what the shell needs to log it: the claimed sender where one could be
/// read, and the precise fault.
public enum RejectionReason: Equatable, Sendable, CustomStringConvertible {
    /// The datagram is empty or its first byte is not a known message type.
    case unknownMessageType(UInt8?)
    /// The datagram could not be decoded (wrong length, bad field).
    case malformed(WireError, claimedPeer: NodeID?)
    /// A handshake message of a protocol version this node does not speak.
    case unsupportedVersion(UInt8, claimedPeer: NodeID?)
    /// A handshake MAC did not verify: the sender holds a different mesh key (or none), or the message was altered.
    case wrongMeshKey(claimedPeer: NodeID?)
    /// A handshake initiation whose timestamp is not greater than the highest already accepted from that node.
    case replayedInitiation(claimedPeer: NodeID, timestamp: UInt64, highestAccepted: UInt64)
    /// A handshake message claiming to come from this node itself.
    case ownNodeID
    /// The responder is not the node the discovery record promised.
    case nodeIDMismatch(expected: NodeID, found: NodeID)
    /// The peer's ephemeral key is invalid or of low order.
    case invalidEphemeralKey(claimedPeer: NodeID?)
    /// A response or transport message for a session index this node does not have (stale, forgotten or forged).
    case unknownReceiverIndex(UInt32)
    /// A transport message on a session older than `rejectAfter`.
    case sessionExpired(peer: NodeID)
    /// A transport message whose counter was already received, is too old for the window, or is past the limit.
    case replayedCounter(peer: NodeID, counter: UInt64)
    /// A transport message whose authentication tag did not verify.
    case decryptionFailed(peer: NodeID)

    /// The NodeID the sender claimed, when one could be read.
    public var claimedPeer: NodeID? {
        switch self {
        case .unknownMessageType, .ownNodeID, .unknownReceiverIndex: nil
        case .malformed(_, let p), .unsupportedVersion(_, let p), .wrongMeshKey(let p), .invalidEphemeralKey(let p): p
        case .replayedInitiation(let p, _, _): p
        case .nodeIDMismatch(_, let found): found
        case .sessionExpired(let p), .replayedCounter(let p, _), .decryptionFailed(let p): p
        }
    }

    /// A one-line human-readable explanation.

    public var description: String {
        let who = claimedPeer.map { " (claims NodeID \($0.hex))" } ?? ""
        switch self {
        case .unknownMessageType(nil): return "empty datagram"
        case .unknownMessageType(let t?): return "unknown message type \(t)"
        case .malformed(let e, _): return "malformed message: \(e.reason)\(who)"
        case .unsupportedVersion(let v, _):
            return "unsupported protocol version \(v), this node speaks \(ProtocolVersion.current)\(who)"
        case .wrongMeshKey: return "handshake authentication failed: peer uses a different mesh key or none\(who)"
        case .replayedInitiation(_, let t, let h):
            return "replayed handshake initiation: timestamp \(t) is not greater than \(h) already accepted\(who)"
        case .ownNodeID: return "handshake message claims this node's own NodeID"
        case .nodeIDMismatch(let e, let f): return "expected NodeID \(e.hex) but the peer is \(f.hex)"
        case .invalidEphemeralKey: return "invalid or low-order ephemeral public key\(who)"
        case .unknownReceiverIndex(let i): return "no session or pending handshake with index \(i)"
        case .sessionExpired(let p): return "session with \(p.hex) is older than the reject-after limit"
        case .replayedCounter(let p, let c): return "replayed or too old counter \(c) from \(p.hex)"
        case .decryptionFailed(let p): return "transport message from \(p.hex) failed authentication"
        }
    }
}

/// Errors thrown by `SecureEndpoint.send` and the buffer forms of sealing and opening (`SecureEndpoint.seal`/`open`,
/// `GroupChannel.seal`/`open`).
public enum SecureTransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// There is no usable session with this peer (never established, expired, forgotten).
    case noSession(NodeID)
    /// The caller's buffer is too small for the datagram or plaintext (`needed` bytes, `available` given).
    case bufferTooSmall(needed: Int, available: Int)

    /// A one-line human-readable explanation.

    public var description: String {
        switch self {
        case .noSession(let p): "no usable secure session with \(p.hex)"
        case .bufferTooSmall(let needed, let available):
            "buffer too small: \(needed) bytes needed, \(available) available"
        }
    }
}
