import MeshTypes

/// How late this node itself has lately been in handling what was due: the longest wait of a datagram between its
/// arrival and its handling, or of a timer tick past its instant, over the last 0.5–1 s.
///
/// A node short of CPU (many nodes on a small computer, a busy companion computer) handles its peers' datagrams late.
/// Their silence as it measures it can then include its own backlog (a timer that runs before the datagrams waiting
/// in its socket), and a peer declared lost that way costs a new session, a database exchange and an advertisement
/// flood, which makes the backlog longer still. The failure detector subtracts this delay from the silence it judges
/// (``MembershipTable/onTick(now:allowance:quiet:)``), up to ``limit``. With 20 drones started on two cores, fewer
/// peers were lost during formation with it (docs/BENCHMARKS.md §10.5).
public struct OwnDelay: Sendable, Hashable {
    /// The largest delay taken into account: a node that is further behind than this still loses its peers.
    public static let limit: Duration = .seconds(2)
    /// Each window's length; the delay reported covers the current window and the one before it.
    public static let window: Duration = .milliseconds(500)

    private var windowStart = MeshInstant(nanoseconds: 0)
    private var current: Duration = .zero
    private var previous: Duration = .zero

    /// No delay seen yet.
    public init() {}

    /// Notes one delay measured at `now`.
    public mutating func note(_ delay: Duration, now: MeshInstant) {
        roll(now)
        if delay > current { current = delay }
    }

    /// The longest delay noted within the last one to two windows, capped at ``limit``.
    public func allowance(now: MeshInstant) -> Duration {
        let age = now - windowStart
        let recent: Duration
        if age < Self.window {
            recent = max(current, previous)
        } else if age < Self.window * 2 {
            recent = current
        } else {
            recent = .zero
        }
        return min(recent, Self.limit)
    }

    private mutating func roll(_ now: MeshInstant) {
        let age = now - windowStart
        guard age >= Self.window else { return }
        previous = age < Self.window * 2 ? current : .zero
        current = .zero
        windowStart = now
    }
}
