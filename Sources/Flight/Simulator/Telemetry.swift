import Geodesy

/// A telemetry snapshot, as a vehicle reports it (position from GPS, so it carries the GPS error when simulated).
public struct Telemetry: Sendable, Hashable, Codable {
    /// Simulation time of the snapshot, seconds.
    public var time: Double
    /// Latitude, longitude (degrees) and altitude (metres, the map origin's datum).
    public var position: GeodeticCoordinate
    /// Everything a navigator needs, in the local frame (position, ENU velocity, heading, armed, activity, battery, home).
    public var state: VehicleState

    /// Creates a snapshot.
    public init(time: Double, position: GeodeticCoordinate, state: VehicleState) {
        self.time = time
        self.position = position
        self.state = state
    }

    /// Velocity east, north, up (m/s).
    public var velocityENU: Vector3 { state.velocity }
    /// Velocity north, east, down (m/s), the MAVLink convention.
    public var velocityNED: (north: Double, east: Double, down: Double) {
        (state.velocity.y, state.velocity.x, -state.velocity.z)
    }
    /// Heading, degrees clockwise from grid north.
    public var heading: Double { state.heading }
    /// Battery remaining, percent.
    public var batteryPercent: Double { state.batteryPercent }
    /// Current activity.
    public var activity: Activity { state.activity }
    /// Motors armed.
    public var armed: Bool { state.armed }
}
