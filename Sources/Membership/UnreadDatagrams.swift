import MeshTypes

/// Datagrams that reached this node but were never read: the kernel dropped them because the socket's receive buffer
/// was full, or the node's own queue between the socket and its actor overflowed.
///
/// Both happen only when the node is behind: short of CPU, its event loop does not empty the socket as fast as
/// datagrams arrive. A peer whose datagrams were dropped that way looks silent, though it was not; and nothing the node
/// reads tells it (``OwnDelay`` measures the wait of what it does read). The shell reads the drop counts a few times a
/// second and hands their totals to ``onCount(_:now:)``; a rise is turned into own lateness: the silence the drops can
/// have made, from the last count that did not rise until now, which the failure detector then allows its peers
/// (capped, as all own lateness, at ``OwnDelay/limit``).
public struct UnreadDatagrams: Sendable, Hashable {
    /// The last total counted, and the number of the reading it came from.
    private var lastCount: UInt64 = 0
    private var lastReading: UInt64?
    /// The last count that did not rise: before it, nothing was lost unread.
    private var quietSince = MeshInstant(nanoseconds: 0)

    /// Nothing counted yet.
    public init() {}

    /// The total counted at `now` (counted from zero when the socket was bound). Returns the silence the datagrams lost
    /// since the last count can have made (since the last count that did not rise), or nil if none was lost. A count
    /// smaller than the last (a counter that started again) is a new baseline.
    public mutating func onCount(_ count: UInt64, now: MeshInstant) -> Duration? {
        defer { lastCount = count }
        return rise(to: count, now: now)
    }

    /// The same for the `reading`th reading of the count: a reading already seen is ignored (nil). A reader that looks
    /// more often than the count is read would otherwise take the same reading twice for a quiet spell, and restart the
    /// silence the drops can have made at every look.
    public mutating func onCount(_ count: UInt64, reading: UInt64, now: MeshInstant) -> Duration? {
        guard reading != lastReading else { return nil }
        lastReading = reading
        return onCount(count, now: now)
    }

    private mutating func rise(to count: UInt64, now: MeshInstant) -> Duration? {
        guard count > lastCount else {
            quietSince = now
            return nil
        }
        return now - quietSince
    }
}
