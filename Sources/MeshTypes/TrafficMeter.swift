/// Counts the datagrams and bytes a node receives and sends, in total and over the last few seconds: what a user
/// sees of the node's own load on the link (`fleetmesh status`). Pure: time is injected.
public struct TrafficMeter: Sendable, Hashable {
    /// Totals since start.
    public private(set) var datagramsIn = 0
    public private(set) var bytesIn = 0
    public private(set) var datagramsOut = 0
    public private(set) var bytesOut = 0

    /// One-second buckets of the recent past (index = whole seconds since the clock's zero, modulo the window).
    private var buckets: [Bucket]

    struct Bucket: Sendable, Hashable {
        var second: Int64 = -1
        var datagramsIn = 0, bytesIn = 0, datagramsOut = 0, bytesOut = 0
    }

    /// Rates are averaged over this many whole seconds before the current one.
    public let windowSeconds: Int

    /// A meter averaging rates over `windowSeconds` (at least 1).
    public init(windowSeconds: Int = 5) {
        self.windowSeconds = max(1, windowSeconds)
        buckets = Array(repeating: Bucket(), count: self.windowSeconds + 1)
    }

    /// A datagram of `bytes` received at `now`.
    public mutating func received(_ bytes: Int, now: MeshInstant) {
        datagramsIn += 1
        bytesIn += bytes
        update(now) {
            $0.datagramsIn += 1
            $0.bytesIn += bytes
        }
    }

    /// A datagram of `bytes` sent at `now`.
    public mutating func sent(_ bytes: Int, now: MeshInstant) {
        datagramsOut += 1
        bytesOut += bytes
        update(now) {
            $0.datagramsOut += 1
            $0.bytesOut += bytes
        }
    }

    /// Per-second averages over the `windowSeconds` whole seconds before `now`'s (fewer just after start).
    public func rates(now: MeshInstant) -> (
        datagramsIn: Double, bytesIn: Double, datagramsOut: Double, bytesOut: Double
    ) {
        let current = Self.second(now)
        let first = max(0, current - Int64(windowSeconds))
        let span = Double(max(1, current - first))
        var sum = Bucket()
        for b in buckets where b.second >= first && b.second < current {
            sum.datagramsIn += b.datagramsIn
            sum.bytesIn += b.bytesIn
            sum.datagramsOut += b.datagramsOut
            sum.bytesOut += b.bytesOut
        }
        return (
            Double(sum.datagramsIn) / span, Double(sum.bytesIn) / span, Double(sum.datagramsOut) / span,
            Double(sum.bytesOut) / span
        )
    }

    private static func second(_ t: MeshInstant) -> Int64 { Int64(t.nanoseconds / 1_000_000_000) }

    private mutating func update(_ now: MeshInstant, _ change: (inout Bucket) -> Void) {
        let s = Self.second(now)
        let i = Int(s % Int64(buckets.count))
        if buckets[i].second != s { buckets[i] = Bucket(second: s) }
        change(&buckets[i])
    }
}
