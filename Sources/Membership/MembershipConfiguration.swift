/// Timings of the failure detector and of reconnection.
///
/// Defaults: heartbeats every 50 ms, suspect after 250 ms of silence, lost after 750 ms. At 20 % loss in each
/// direction a false loss needs 15 heartbeats lost in a row (0.2^15 ≈ 3·10⁻¹¹), while a dead peer is seen within
/// 750 ms plus one tick.
public struct MembershipConfiguration: Sendable, Equatable {
    public var heartbeatInterval: Duration
    public var suspectAfter: Duration
    public var lostAfter: Duration
    /// How often a peer that is discovered, lost or handshaking without answer is (re)connected.
    public var reconnectInterval: Duration
    /// How long a lost or departed peer stays listed before it is forgotten.
    public var forgetAfter: Duration
    /// How many forgotten (lost longer than `forgetAfter`) peers are still probed at their last addresses.
    public var forgottenLimit: Int

    public init(
        heartbeatInterval: Duration = .milliseconds(50), suspectAfter: Duration = .milliseconds(250),
        lostAfter: Duration = .milliseconds(750), reconnectInterval: Duration = .milliseconds(500),
        forgetAfter: Duration = .seconds(600), forgottenLimit: Int = 64
    ) {
        self.heartbeatInterval = heartbeatInterval
        self.suspectAfter = suspectAfter
        self.lostAfter = lostAfter
        self.reconnectInterval = reconnectInterval
        self.forgetAfter = forgetAfter
        self.forgottenLimit = forgottenLimit
    }

    /// Checks the timings are ordered sensibly; returns a message naming the field otherwise.
    public func validate() -> String? {
        if heartbeatInterval <= .zero { return "heartbeat_interval_ms must be positive" }
        if suspectAfter <= heartbeatInterval { return "suspect_after_ms must be longer than heartbeat_interval_ms" }
        if lostAfter <= suspectAfter { return "lost_after_ms must be longer than suspect_after_ms" }
        if reconnectInterval <= .zero { return "reconnect_interval_ms must be positive" }
        if forgetAfter <= lostAfter { return "forget_after_ms must be longer than lost_after_ms" }
        return nil
    }
}
