/// Where a peer stands with this node.
public enum PeerState: String, Sendable, Codable, CaseIterable {
    /// Seen in DNS-SD or configured, no session yet.
    case discovered
    /// A handshake is under way.
    case handshaking
    /// In session, heard from recently.
    case established
    /// In session, but silent for longer than the suspicion timeout.
    case suspect
    /// Silent for longer than the loss timeout; reconnection is being attempted.
    case lost
    /// Said goodbye: stopped cleanly.
    case left
}
