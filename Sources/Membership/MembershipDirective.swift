import MeshTypes

/// What the membership core asks its shell to do.
public enum MembershipDirective<Address: Hashable & Sendable>: Sendable, Equatable {
    /// Start a handshake with the node at `address` (expected identity if known).
    case connect(expecting: NodeID?, address: Address)
    /// Start a fresh handshake with a peer that went silent, even if its session still looks usable here: the other
    /// side may have dropped it (forgotten, expired, restarted). Its completion proves the peer is back both ways.
    case probe(peer: NodeID, address: Address)
    /// Send a heartbeat to an established peer.
    case sendHeartbeat(to: NodeID)
    /// A peer changed state (for logs, status and the layers above).
    case stateChanged(peer: NodeID, from: PeerState?, to: PeerState)
    /// Drop every session and channel with this peer (it left, restarted, or was forgotten).
    case closeSession(peer: NodeID)
}
