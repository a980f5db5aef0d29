/// The vehicle state a navigator decides from: local position and velocity, heading, armed state, activity, battery.
public struct VehicleState: Sendable, Hashable, Codable {
    /// Position in the local ENU frame, metres from the map origin.
    public var position: Vector3
    /// Velocity in the local ENU frame, m/s.
    public var velocity: Vector3
    /// Heading in degrees clockwise from grid north.
    public var heading: Double
    /// Whether the motors are armed.
    public var armed: Bool
    /// What the vehicle is doing.
    public var activity: Activity
    /// Remaining battery, percent.
    public var batteryPercent: Double
    /// Home position (local ENU; its z is the ground level).
    public var home: Vector3

    /// Creates a state.
    public init(
        position: Vector3, velocity: Vector3 = .zero, heading: Double = 0, armed: Bool = false,
        activity: Activity = .landed, batteryPercent: Double = 100, home: Vector3
    ) {
        self.position = position
        self.velocity = velocity
        self.heading = heading
        self.armed = armed
        self.activity = activity
        self.batteryPercent = batteryPercent
        self.home = home
    }

    /// True unless landed.
    public var isAirborne: Bool { activity != .landed }
}
