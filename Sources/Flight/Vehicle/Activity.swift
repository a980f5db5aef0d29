/// What the vehicle is doing, as reported in telemetry.
public enum Activity: String, Sendable, Hashable, Codable, CaseIterable {
    /// On the ground, disarmed.
    case landed
    /// Armed and climbing to the takeoff altitude.
    case takingOff
    /// Holding a position in the air.
    case hovering
    /// Flying to a goto target.
    case flyingToTarget
    /// Following a moving target.
    case following
    /// Flying a time-parameterised trajectory.
    case followingTrajectory
    /// Descending to land.
    case landing
    /// Returning home (climb, fly home, land).
    case returning
}
