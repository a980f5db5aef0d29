import SecureTransport

/// The mesh socket's datagrams and bytes in and out by kind, counted from start (the node's metrics). The kind is the
/// datagram's first byte, its wire message type (PROTOCOL.md): a handshake message, a unicast session message, a group
/// datagram, or anything else. Plain integers on the node's actor: no lock, and no allocation but one copy of its
/// four short arrays after each scrape.
struct DatagramTally: Sendable, Hashable {
    /// What a datagram is, by its message type.
    enum Kind: Int, CaseIterable, Sendable {
        /// Handshake initiations and responses (unicast).
        case handshake
        /// Messages of a session (unicast): heartbeats, acknowledgements, the coordinator's messages.
        case unicast
        /// Group datagrams on the segment's multicast channel.
        case group
        /// Anything else (junk, a newer protocol).
        case other

        /// The label value.
        var label: String {
            switch self {
            case .handshake: "handshake"
            case .unicast: "unicast"
            case .group: "group"
            case .other: "other"
            }
        }

        /// The kind of a datagram starting with `first`.
        init(first: UInt8?) {
            switch first {
            case MessageType.initiation.rawValue, MessageType.response.rawValue: self = .handshake
            case MessageType.transport.rawValue: self = .unicast
            case MessageType.group.rawValue: self = .group
            default: self = .other
            }
        }
    }

    /// Datagrams and bytes per kind (indexed by `Kind.rawValue`).
    private(set) var datagramsIn = [Int](repeating: 0, count: Kind.allCases.count)
    private(set) var bytesIn = [Int](repeating: 0, count: Kind.allCases.count)
    private(set) var datagramsOut = [Int](repeating: 0, count: Kind.allCases.count)
    private(set) var bytesOut = [Int](repeating: 0, count: Kind.allCases.count)

    /// A datagram received.
    mutating func received(_ bytes: [UInt8]) {
        let k = Kind(first: bytes.first).rawValue
        datagramsIn[k] &+= 1
        bytesIn[k] &+= bytes.count
    }

    /// `copies` copies of a datagram sent (a group datagram goes once per joined interface).
    mutating func sent(_ bytes: [UInt8], copies: Int = 1) {
        let k = Kind(first: bytes.first).rawValue
        datagramsOut[k] &+= copies
        bytesOut[k] &+= bytes.count &* copies
    }
}
