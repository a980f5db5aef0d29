import Membership
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
        if var known = notedHandshakeProblems[address] {
            known.problem = problem
            known.category = category
            known.at = t
            known.count += 1
            notedHandshakeProblems[address] = known
            return
        }
        if notedHandshakeProblems.count >= Self.handshakeProblemLimit,
            let oldest = notedHandshakeProblems.min(by: { $0.value.at < $1.value.at })?.key
        {
            notedHandshakeProblems[oldest] = nil
        }
        notedHandshakeProblems[address] = HandshakeProblem(problem: problem, category: category, at: t, count: 1)
    }

    /// What `fleetmesh doctor` shows, newest first: every noted problem, and for each peer this node has tried to
    /// reach for `silentAfter` or longer without a session (discovered, handshaking, lost), `unanswered` at each of its
    /// addresses with no noted problem of its own (stamped `t`).
    public func handshakeProblems(now t: MeshInstant, silentAfter: Duration = .seconds(2)) -> [(
        address: Address, problem: HandshakeProblem
    )] {
        var problems = notedHandshakeProblems.map { (address: $0.key, problem: $0.value) }
        for peer in membership.peers.values
        where [.discovered, .handshaking, .lost].contains(peer.state) && t - peer.stateSince >= silentAfter {
            let silent =
                peer.lastHeard.map { "nothing heard for \(Int((t - $0).wholeNanoseconds / 1_000_000_000)) s" }
                ?? "never answered"
            let since = Int((t - peer.stateSince).wholeNanoseconds / 1_000_000_000)
            for address in Set(peer.candidates + (peer.address.map { [$0] } ?? []))
            where notedHandshakeProblems[address] == nil {
                let text = "handshakes unanswered: \(peer.state.rawValue) for \(since) s, \(silent)"
                problems.append(
                    (address, HandshakeProblem(problem: text, category: "unanswered", at: t, count: 1)))
            }
        }
        return problems.sorted { $0.problem.at > $1.problem.at }
    }
}
