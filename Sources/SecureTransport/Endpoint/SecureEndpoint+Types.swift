import Crypto
import MeshTypes

extension SecureEndpoint {
    /// What the shell must do after feeding an event to the endpoint, in order.
    public enum Directive: Equatable, Sendable {
        /// Send this datagram to this address.
        case send([UInt8], to: Address)
        /// A session with a peer is usable. Emitted for a peer not known before, after a session had expired, and when
        /// a known peer comes back with a new incarnation (`PeerInfo.previousIncarnation` is then set).
        case established(PeerInfo)
        /// Hand this plaintext, authenticated as coming from this peer, to the layer above.
        case deliver([UInt8], from: NodeID)
        /// An authenticated keepalive (empty transport message) came from this peer: nothing to deliver, but the peer
        /// was heard.
        case keepalive(from: NodeID)
        /// A datagram from this address was refused; log it (rate-limited) and otherwise ignore it.
        case rejected(Address, RejectionReason)
        /// A peer's session was replaced by a fresh one (new keys); the old one still decrypts until it expires. A
        /// completed handshake is an authenticated exchange: the peer was heard.
        case rekeyed(NodeID)
        /// A handshake to this address went unanswered for `handshakeAttemptTimeout` and was given up.
        case handshakeAbandoned(Address, expected: NodeID?)
        /// Every session with this peer is past `rejectAfter` and none replaced it: the peer is gone from the table.
        case expired(NodeID)
    }

    /// Who a peer is, as proven by a completed handshake.
    public struct PeerInfo: Equatable, Sendable {
        /// The peer's identity.
        public var id: NodeID
        /// The peer's incarnation.
        public var incarnation: Incarnation
        /// The peer's role.
        public var role: NodeRole
        /// Where the peer's authenticated datagrams come from.
        public var address: Address
        /// The incarnation this node knew before, when the peer restarted; nil for a first contact.
        public var previousIncarnation: Incarnation?

        /// Whether this is a known peer that restarted (its incarnation changed).
        public var isNewIncarnation: Bool { previousIncarnation != nil }

        /// A peer description.
        public init(
            id: NodeID, incarnation: Incarnation, role: NodeRole, address: Address, previousIncarnation: Incarnation?
        ) {
            self.id = id
            self.incarnation = incarnation
            self.role = role
            self.address = address
            self.previousIncarnation = previousIncarnation
        }
    }

    /// One row of the session table.
    public struct SessionSummary: Equatable, Sendable {
        /// The peer.
        public var peer: NodeID
        /// The peer's current address.
        public var address: Address
        /// The peer's incarnation.
        public var incarnation: Incarnation
        /// The peer's role.
        public var role: NodeRole
        /// When the first session with this incarnation of the peer was established.
        public var establishedAt: MeshInstant
        /// When the session currently used for sending was made.
        public var currentSessionStartedAt: MeshInstant
        /// When an authenticated datagram last arrived from the peer (nil: none yet).
        public var lastReceived: MeshInstant?
        /// Whether this node initiated the current session (and so rekeys it).
        public var isInitiator: Bool
    }

    /// Who owns a local session index.
    enum IndexOwner: Hashable, Sendable {
        /// An initiation awaiting its response.
        case pending
        /// A confirmed session with this peer.
        case session(NodeID)
        /// A session this node answered, not yet used by the initiator.
        case unconfirmed(NodeID)
    }

    /// The keys and counters of one handshake's result.
    struct Session: Sendable {
        let localIndex: UInt32
        let remoteIndex: UInt32
        let sendKey: SessionKey
        let receiveKey: SessionKey
        let createdAt: MeshInstant
        let isInitiator: Bool
        var sendCounter: UInt64 = 0
        var replay = ReplayWindow()
    }

    /// Which of a peer's sessions.
    enum Slot: Sendable { case current, previous }

    /// Everything known about one authenticated peer.
    struct Peer: Sendable {
        let id: NodeID
        var incarnation: Incarnation
        var role: NodeRole
        var address: Address
        /// The session used for sending.
        var current: Session?
        /// The session `current` replaced; still decrypts until it expires.
        var previous: Session?
        var establishedAt: MeshInstant
        var lastReceived: MeshInstant?

        func slot(ofLocalIndex index: UInt32) -> Slot? {
            if current?.localIndex == index { return .current }
            if previous?.localIndex == index { return .previous }
            return nil
        }

        func session(_ slot: Slot) -> Session? {
            switch slot {
            case .current: current
            case .previous: previous
            }
        }

        mutating func modify<R>(_ slot: Slot, _ body: (inout Session) -> R) -> R? {
            switch slot {
            case .current: if current != nil { return body(&current!) }
            case .previous: if previous != nil { return body(&previous!) }
            }
            return nil
        }

        var allSessions: [Session] { [current, previous].compactMap { $0 } }
    }

    /// A session this node answered. It only counts once the initiator has used it — proof that the initiator holds the
    /// ephemeral private key, so a replayed or relayed initiation can never make a peer appear.
    struct UnconfirmedSession: Sendable {
        var session: Session
        var incarnation: Incarnation
        var role: NodeRole
    }

    /// An initiation this node sent and has not had answered.
    struct PendingInitiation: Sendable {
        var address: Address
        var expected: NodeID?
        var localIndex: UInt32
        /// The ephemeral private key's raw 32 bytes.
        var privateKey: [UInt8]
        var message: [UInt8]
        var startedAt: MeshInstant
        var nextRetransmitAt: MeshInstant
        var retransmitDelay: Duration

        /// When its latest copy left.
        var lastSentAt: MeshInstant { nextRetransmitAt - retransmitDelay }
    }
}
