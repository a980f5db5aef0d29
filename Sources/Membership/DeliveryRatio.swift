/// The share of a peer's numbered datagrams that arrived lately, from the gaps between the numbers heard: each
/// arrival adds the numbers it moves past to those expected, and counts itself as received. Once ``window`` are
/// expected, both are scaled down to half a window (the ratio kept), so the ratio follows about the last window of
/// datagrams (a few seconds of a peer's group channel) rather than everything since the session began.
///
/// Numbers only grow for one sender in one incarnation, and a replay window lets each through once: a late one (below
/// the highest heard) was expected already and counts only as received.
public struct DeliveryRatio: Sendable, Hashable {
    /// Numbers expected before both counts halve.
    public static let window: Double = 64
    /// Numbers expected before a ratio is given.
    public static let minimum: Double = 8

    private var highest: UInt64?
    private var expected = 0.0
    private var received = 0.0

    /// Nothing heard yet.
    public init() {}

    /// A datagram numbered `number` arrived.
    public mutating func onReceived(_ number: UInt64) {
        received += 1
        if let highest {
            guard number > highest else { return }
            expected += Double(number - highest)
        } else {
            expected += 1
        }
        highest = number
        if expected >= Self.window {
            let scale = Self.window / 2 / expected
            expected *= scale
            received *= scale
        }
    }

    /// The share that arrived, 0…1; nil until ``minimum`` were expected.
    public var ratio: Double? {
        expected < Self.minimum ? nil : min(1, received / expected)
    }
}
