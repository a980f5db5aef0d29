/// Smoothed round-trip time and retransmission timeout per RFC 6298 §2 (α = 1/8, β = 1/4, K = 4, G = 1 ms),
/// clamped to the configured bounds.
public struct RTTEstimator: Sendable, Equatable {
    /// Smoothed RTT in seconds (nil before the first sample).
    public private(set) var smoothed: Double?
    /// RTT variation in seconds.
    public private(set) var variation: Double = 0
    /// The current retransmission timeout in seconds.
    public private(set) var timeout: Double
    let minimum: Double
    let maximum: Double
    static let granularity = 0.001

    /// An estimator with no samples yet.
    public init(initial: Duration, minimum: Duration, maximum: Duration) {
        self.minimum = minimum.secondsValue
        self.maximum = maximum.secondsValue
        self.timeout = min(max(initial.secondsValue, self.minimum), self.maximum)
    }

    /// Takes one RTT measurement (from a message sent exactly once — Karn's rule is the caller's).
    public mutating func add(sample: Duration) {
        let r = max(0, sample.secondsValue)
        if let s = smoothed {
            variation = 0.75 * variation + 0.25 * abs(s - r)
            smoothed = 0.875 * s + 0.125 * r
        } else {
            smoothed = r
            variation = r / 2
        }
        timeout = min(max(smoothed! + max(Self.granularity, 4 * variation), minimum), maximum)
    }

    /// The timeout as a `Duration`.
    public var timeoutDuration: Duration { .nanoseconds(Int64(timeout * 1e9)) }

    /// The smoothed RTT as a `Duration` (the initial timeout before any sample).
    public var smoothedDuration: Duration { .nanoseconds(Int64((smoothed ?? timeout) * 1e9)) }
}

extension Duration {
    /// This duration in seconds, as a `Double`.
    var secondsValue: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }
}
