import Membership
import MeshTypes
import SecureTransport

extension MeshCore {
    /// What the shell must do after an event, in order.
    public enum Directive: Sendable {
        /// Send this datagram to this address.
        case send([UInt8], to: Address)
        /// Send this datagram to the segment's group (link-local multicast on every interface the node uses).
        case sendGroup([UInt8])
        /// A peer changed state (for logs, status and the layers above).
        case peerState(peer: NodeID, name: String?, from: PeerState?, to: PeerState)
        /// A message of the layers above arrived from a peer (types 256 and up; the node layer's own are handled).
        case message(type: UInt16, payload: [UInt8], from: NodeID, reliable: Bool)
        /// A message of the layers above arrived from a peer in a group datagram: every node on the segment heard it,
        /// so one addressed to another node is not for this one (nor to relay: its sender reached its next hop).
        case groupMessage(type: UInt16, payload: [UInt8], from: NodeID)
        /// A datagram was refused; `log` is true for the first from its address in 5 s (a flood must not flood logs).
        case rejected(Address, RejectionReason, log: Bool)
        /// Something worth a log line.
        case note(NoteLevel, String)
    }

    /// How loud a note is.
    /// How loud a note is; the raw values are swift-log's level names.
    public enum NoteLevel: String, Sendable, Equatable {
        case debug, info, notice, warning
    }
}
