import Geodesy

/// A place a command refers to: geodetic (latitude, longitude, altitude) or local ENU.
public enum Location: Sendable, Hashable, Codable {
    /// Latitude/longitude in degrees, altitude in metres (the map origin's datum).
    case geodetic(GeodeticCoordinate)
    /// Local ENU metres from the map origin.
    case local(Vector3)
}

/// A command for the navigator.
public enum FlightCommand: Sendable, Hashable, Codable {
    /// Arm and climb to `altitude` metres above home.
    case takeoff(altitude: Double)
    /// Land where the vehicle is.
    case land
    /// Hold the current position.
    case hold
    /// Fly to a location at up to `speed` m/s (nil: the configured default) and hover once within the arrival radius.
    case goto(Location, speed: Double?)
    /// Follow the moving target given through ``Navigator/updateTarget(_:)`` at `offset` (ENU metres from the target).
    case follow(offset: Vector3)
    /// Fly to the first point of a trajectory and hover there (the "go to start" step).
    case goToStart(Trajectory)
    /// Fly a trajectory from its start; the vehicle must already be at its first point (the "start" step).
    case startTrajectory(Trajectory)
    /// Return home: climb to the return altitude, fly home, land.
    case returnHome
}

/// Why the navigator refused a command.
public enum CommandRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The command needs the vehicle in the air.
    case notAirborne
    /// Takeoff while already flying.
    case alreadyAirborne
    /// Takeoff with too little battery.
    case batteryTooLow(percent: Double, minimum: Double)
    /// Takeoff altitude not within the allowed range.
    case invalidAltitude(Double, allowed: ClosedRange<Double>)
    /// Speed zero, negative, not finite or above the vehicle's limit.
    case invalidSpeed(Double, maximum: Double)
    /// A geodetic location that could not be placed on the map.
    case locationNotOnMap(String)
    /// Follow without a known target.
    case noTarget
    /// Start a trajectory away from its first point.
    case notAtTrajectoryStart(distance: Double, tolerance: Double)
    /// The vehicle is returning or landing because of a battery failsafe and ignores other commands.
    case failsafeActive

    /// The reason as sent back to the operator, e.g. "not airborne".
    public var description: String {
        switch self {
        case .notAirborne: return "not airborne"
        case .alreadyAirborne: return "already airborne"
        case .batteryTooLow(let p, let m): return "battery too low (\(Int(p.rounded())) %, need \(Int(m.rounded())) %)"
        case .invalidAltitude(let a, let r): return "altitude \(a) m outside \(r.lowerBound)…\(r.upperBound) m"
        case .invalidSpeed(let s, let m): return "speed \(s) m/s outside (0, \(m)] m/s"
        case .locationNotOnMap(let r): return "location not on the map: \(r)"
        case .noTarget: return "no target to follow"
        case .notAtTrajectoryStart(let d, let t):
            return "not at trajectory start (\(fmt3(d)) m away, tolerance \(t) m); go to start first"
        case .failsafeActive: return "battery failsafe active"
        }
    }
}

/// An observation of a moving target (a person or vehicle to follow), local ENU.
public struct TargetObservation: Sendable, Hashable, Codable {
    /// When observed, seconds (same clock as the navigator's `now`).
    public var time: Double
    /// Position, local ENU metres.
    public var position: Vector3
    /// Velocity, local ENU m/s.
    public var velocity: Vector3

    /// Creates an observation.
    public init(time: Double, position: Vector3, velocity: Vector3 = .zero) {
        self.time = time
        self.position = position
        self.velocity = velocity
    }

    /// Constant-velocity extrapolation to `t`, at most `maxExtrapolation` seconds past the observation.
    public func position(at t: Double, maxExtrapolation: Double) -> Vector3 {
        position + velocity * min(max(0, t - time), maxExtrapolation)
    }
}
