/// Durations counted in fixed buckets, cumulatively from start: what a node exports as a Prometheus histogram (the
/// round trips its heartbeats and group echoes measure). Pure and cheap to record into — a scan of a dozen bounds and
/// three additions, no allocation — so the mesh layer keeps it on its hot path; the scrape reads the counts.
public struct LatencyHistogram: Sendable, Hashable {
    /// The buckets' upper bounds (inclusive), ascending, in nanoseconds; a last bucket above them is implied (+Inf).
    public let boundsNanoseconds: [Int64]
    /// Samples per bucket (not cumulative): `counts[i]` fell in (bound[i-1], bound[i]]; the last is above every bound.
    public private(set) var counts: [UInt64]
    /// Every sample so far, and their sum in nanoseconds (wrapping: 584 years of round trips).
    public private(set) var count: UInt64 = 0
    public private(set) var sumNanoseconds: UInt64 = 0

    /// Round trips on a link-local mesh: 0.1 ms (same host) to 1 s (a congested radio link), about three per decade.
    public static let roundTripBounds: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1),
    ]

    /// A histogram with `bounds` (ascending; default ``roundTripBounds``).
    public init(bounds: [Duration] = LatencyHistogram.roundTripBounds) {
        boundsNanoseconds = bounds.map(\.wholeNanoseconds)
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// One sample; a negative one counts as zero.
    public mutating func record(_ duration: Duration) {
        let ns = max(0, duration.wholeNanoseconds)
        var i = 0
        while i < boundsNanoseconds.count, ns > boundsNanoseconds[i] { i += 1 }
        counts[i] &+= 1
        count &+= 1
        sumNanoseconds &+= UInt64(ns)
    }

    /// Samples at or below each bound, then the total (Prometheus's `le` buckets, the last one `+Inf`).
    public var cumulativeCounts: [UInt64] {
        var total: UInt64 = 0
        return counts.map {
            total &+= $0
            return total
        }
    }
}
