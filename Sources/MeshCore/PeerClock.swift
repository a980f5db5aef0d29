import MeshTypes

/// An estimate of one peer's monotonic clock against this node's, from timestamps the mesh already exchanges: every
/// heartbeat carries its sender's clock (`sentAtMicros`), and every heartbeat reply gives a round trip.
///
/// A heartbeat that left the peer at `sent` (its clock) and arrived here at `t` (ours) gives `t − sent = δ − θ`,
/// where δ is the one-way delay and θ the peer's clock minus ours. Queueing only ever adds to δ, so the smallest
/// `t − sent` of the last one to two seconds is the best sample, and half the smallest round trip of the same span
/// stands for its δ: `θ ≈ minRTT / 2 − min(t − sent)`. The error is half the asymmetry between the two directions
/// of that link (well under a millisecond on a LAN or the lab's veths, a few milliseconds on a radio link). Gaps
/// are kept per window of one second and the previous window is still used, so the estimate follows drift between
/// two monotonic clocks (parts per million) and a peer's restart (the shell resets the estimate then) within 2 s. A
/// window counts once its heartbeats arrived over `settling` or more (not as one burst of queued ones).
/// Round trips change slowly and, over the group channel, are sampled only every few seconds per peer (echoes,
/// `GroupSettings`): their minimum is kept per window of 30 seconds, the previous one still used.
public struct PeerClock: Sendable, Equatable {
    /// How long one window of samples lasts.
    public static let window: Duration = .seconds(1)
    /// How long one window of round trips lasts.
    public static let roundTripWindow: Duration = .seconds(30)

    struct Window: Sendable, Equatable {
        var start: MeshInstant
        /// Smallest arrival time here minus sending time there, microseconds.
        var minGap: Int64?
        /// Smallest round trip, microseconds.
        var minRoundTrip: Int64?
        /// The last heartbeat's arrival: a window counts once its heartbeats arrived over `settling` or more.
        var lastArrival: MeshInstant?
        var settled = false
    }

    /// How far apart a window's heartbeats must have arrived before it counts. Datagrams that waited in a queue while a
    /// link was down (the kernel holds unicast for a neighbour it is still resolving) arrive together, stamped long
    /// before: alone in a window after an outage their gaps put the estimate off by the time they waited (a scheduled
    /// start half a second early). A later heartbeat, arrived in its own time, outweighs them.
    public static let settling: Duration = .milliseconds(40)

    var current: Window?
    var previous: Window?
    var currentTrips: Window?
    var previousTrips: Window?

    public init() {}

    /// A heartbeat from the peer, stamped `sentAtMicros` on its clock, arrived `now`.
    public mutating func onHeartbeat(sentAtMicros: UInt64, now: MeshInstant) {
        let gap = Int64(clamping: now.nanoseconds / 1000) &- Int64(clamping: sentAtMicros)
        roll(now)
        current!.minGap = min(current!.minGap ?? .max, gap)
        if let last = current!.lastArrival, now - last >= Self.settling { current!.settled = true }
        current!.lastArrival = now
    }

    /// A heartbeat reply from the peer: the round trip of one of this node's heartbeats.
    public mutating func onRoundTrip(_ rtt: Duration, now: MeshInstant) {
        guard rtt >= .zero else { return }
        if currentTrips.map({ now - $0.start >= Self.roundTripWindow }) ?? true {
            previousTrips = currentTrips
            currentTrips = Window(start: now)
        }
        currentTrips!.minRoundTrip = min(currentTrips!.minRoundTrip ?? .max, rtt.wholeNanoseconds / 1000)
    }

    /// The peer's clock minus this node's (add it to one of this node's instants to get the same moment on the peer's
    /// clock); nil until a heartbeat was seen within the last two windows and a round trip within the last two
    /// round-trip windows.
    public func offset(now: MeshInstant) -> Duration? {
        guard
            let gap = Self.smallest(
                current?.start, current?.settled == true ? current?.minGap : nil, previous?.start,
                previous?.settled == true ? previous?.minGap : nil, within: Self.gapSpan, now: now),
            let rtt = minRoundTrip(now: now)
        else { return nil }
        return .microseconds(rtt / 2 - gap)
    }

    private func minRoundTrip(now: MeshInstant) -> Int64? {
        Self.smallest(
            currentTrips?.start, currentTrips?.minRoundTrip, previousTrips?.start, previousTrips?.minRoundTrip,
            within: Self.roundTripSpan, now: now)
    }

    /// The spans the two windows together cover, in nanoseconds (`Duration` arithmetic is 128-bit: this is asked for
    /// every peer on every mesh tick).
    static let gapSpan = Int64(window.wholeNanoseconds * 2)
    static let roundTripSpan = Int64(roundTripWindow.wholeNanoseconds * 2)

    /// The smaller of two windows' values, of those windows begun within `span` nanoseconds of `now`. Asked for every
    /// peer on every mesh tick: no arrays, no 128-bit arithmetic.
    @inline(__always)
    private static func smallest(
        _ startA: MeshInstant?, _ a: Int64?, _ startB: MeshInstant?, _ b: Int64?, within span: Int64, now: MeshInstant
    ) -> Int64? {
        @inline(__always) func fresh(_ start: MeshInstant?, _ value: Int64?) -> Int64? {
            guard let start, let value else { return nil }
            return Int64(bitPattern: now.nanoseconds &- start.nanoseconds) < span ? value : nil
        }
        switch (fresh(startA, a), fresh(startB, b)) {
        case (let x?, let y?): return min(x, y)
        case (let x?, nil): return x
        case (nil, let y?): return y
        case (nil, nil): return nil
        }
    }

    /// Half the smallest recent round trip: the delay the offset assumes for each direction.
    public func oneWayDelay(now: MeshInstant) -> Duration? {
        minRoundTrip(now: now).map { .microseconds($0 / 2) }
    }

    private mutating func roll(_ now: MeshInstant) {
        if let c = current, now - c.start < Self.window { return }
        previous = current
        current = Window(start: now)
    }
}
