/// What the navigator asks of the vehicle for the next control step.
public enum Setpoint: Sendable, Hashable {
    /// Stay on the ground disarmed; in the air this is a hover where the vehicle is.
    case idle
    /// Arm if needed and climb vertically to `altitude` metres above home.
    case takeoff(altitude: Double)
    /// Hold a position.
    case hold(Vector3)
    /// Fly toward `target` at up to `speed` m/s, adding `feedforward` velocity (a moving target's velocity);
    /// face `heading` degrees (nil: face the direction of travel). `activity` is what telemetry reports meanwhile.
    case position(target: Vector3, feedforward: Vector3, speed: Double, heading: Double?, activity: Activity)
    /// Descend vertically and disarm on touchdown.
    case land
    /// Climb to `altitude` above home (or keep a higher altitude), fly home, land.
    case returnHome(altitude: Double)
}
