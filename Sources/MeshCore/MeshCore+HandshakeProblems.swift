import MeshTypes
import SecureTransport

/// The last thing that kept an address from a session: a refused handshake (or datagram) from it, or a handshake to
/// it that nobody answered. `fleetmesh doctor` shows it next to a peer seen on DNS-SD that is not in session.
public struct HandshakeProblem: Sendable, Equatable {
    /// What went wrong, in words (`RejectionReason.description`, or "handshake unanswered").
    public var problem: String
    /// The stable short name: a rejection's category, or `unanswered`.
    public var category: String
    /// When it last happened.
    public var at: MeshInstant
    /// How often it happened since the node started (or since the address was last evicted).
    public var count: Int
}

extension MeshCore {
    /// At most this many addresses are remembered; the one with the oldest problem goes first.
    static var handshakeProblemLimit: Int { 64 }

    /// Notes a problem with `address`. Replayed counters are not noted: duplicated datagrams are normal on a radio
    /// and say nothing about why a node does not join.
    mutating func noteHandshakeProblem(
        _ address: Address, category: String, problem: String, now t: MeshInstant
    ) {
        if category == "replayedCounter" { return }
        if var known = handshakeProblems[address] {
            known.problem = problem
            known.category = category
            known.at = t
            known.count += 1
            handshakeProblems[address] = known
            return
        }
        if handshakeProblems.count >= Self.handshakeProblemLimit,
            let oldest = handshakeProblems.min(by: { $0.value.at < $1.value.at })?.key
        {
            handshakeProblems[oldest] = nil
        }
        handshakeProblems[address] = HandshakeProblem(problem: problem, category: category, at: t, count: 1)
    }
}
