/// Parameters of a `ReliableChannel`.
public struct ReliableChannelConfiguration: Sendable, Hashable {
    /// Most messages in flight (sent, not yet acknowledged) and most held out of order by the receiver. Default 1024:
    /// a station that is the hub of 100 drones forwards every drone's link-state advertisements to each of them.
    public var window: Int
    /// Retransmission timeout before the first RTT sample. Default 200 ms.
    public var initialRTO: Duration
    /// Lower bound of the retransmission timeout. Default 30 ms.
    public var minimumRTO: Duration
    /// Upper bound of the retransmission timeout, backoff included. Default 1 s.
    public var maximumRTO: Duration
    /// How long an in-order reliable message may wait for its acknowledgement to share a datagram. Default 5 ms.
    public var ackDelay: Duration
    /// Acknowledge at once after this many in-order messages not yet acknowledged. Default 8.
    public var ackEvery: Int

    /// A configuration; every parameter defaults to the documented value.
    public init(
        window: Int = 1024,
        initialRTO: Duration = .milliseconds(200),
        minimumRTO: Duration = .milliseconds(30),
        maximumRTO: Duration = .seconds(1),
        ackDelay: Duration = .milliseconds(5),
        ackEvery: Int = 8
    ) {
        self.window = max(1, window)
        self.initialRTO = initialRTO
        self.minimumRTO = minimumRTO
        self.maximumRTO = maximumRTO
        self.ackDelay = ackDelay
        self.ackEvery = max(1, ackEvery)
    }

    /// The defaults.
    public static let `default` = ReliableChannelConfiguration()
}
