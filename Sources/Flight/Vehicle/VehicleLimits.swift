/// Performance limits of a multirotor, shared by the simulator, the navigator's prediction and the trajectory planner.
public struct VehicleLimits: Sendable, Hashable, Codable {
    /// Maximum horizontal speed, m/s.
    public var maxHorizontalSpeed: Double = 4
    /// Maximum horizontal acceleration, m/s².
    public var maxHorizontalAcceleration: Double = 2
    /// Maximum climb rate, m/s.
    public var maxClimbRate: Double = 2
    /// Maximum descent rate, m/s.
    public var maxDescentRate: Double = 1.5
    /// Maximum vertical acceleration, m/s².
    public var maxVerticalAcceleration: Double = 2
    /// Descent rate during landing, m/s.
    public var landingSpeed: Double = 0.8
    /// Maximum yaw rate, degrees per second.
    public var maxYawRate: Double = 90
    /// Proportional gain of the position controller, 1/s.
    public var positionGain: Double = 1.2

    /// The default limits (4 m/s, 2 m/s², 2 m/s climb, 1.5 m/s descent, 90°/s).
    public init() {}

    /// Limits with a different maximum horizontal speed.
    public init(maxHorizontalSpeed: Double) { self.maxHorizontalSpeed = maxHorizontalSpeed }
}
