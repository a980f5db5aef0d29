/// The first byte of every FleetMesh secure-transport datagram.
public enum MessageType: UInt8, Sendable, CaseIterable {
    /// A handshake initiation (103 bytes).
    case initiation = 1
    /// A handshake response (99 bytes).
    case response = 2
    /// An encrypted transport message (29 bytes or more).
    case transport = 3
    /// A group datagram for every node on the segment (`GroupChannel`, 49 bytes or more).
    case group = 4
}

/// The protocol version carried in handshake messages.
public enum ProtocolVersion {
    /// The only version this implementation speaks.
    public static let current: UInt8 = 5
}
