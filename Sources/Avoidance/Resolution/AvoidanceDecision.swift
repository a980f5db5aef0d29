import Flight
import Geodesy

/// What ``AvoidanceCore/decide(own:airspace:now:)`` asks of the drone.
///
/// Apply it by setting ``Flight/Navigator/adjustment`` to ``adjustment``; when ``changed`` is true, publish the
/// navigator's new prediction at once so that lower-ranked drones see the new plan.
public struct AvoidanceDecision: Sendable, Hashable, CustomStringConvertible {
    /// The kind of plan chosen.
    public enum Maneuver: Sendable, Hashable, CustomStringConvertible {
        /// The drone does not avoid (no goal); nothing is adjusted.
        case notAvoiding
        /// The mission's own plan (possibly toward a parking spot or a goal moved into the geofence).
        case nominal
        /// The mission's plan at another altitude (an altitude layer).
        case altitude(Double)
        /// Slower, at an altitude.
        case slowDown(speed: Double, altitude: Double)
        /// Brake and hold at a point (possibly at another altitude).
        case stop(Vector3)
        /// Move aside horizontally and hold there.
        case sidestep(Vector3)
        /// Hold at a point until a time, then fly the mission's plan at an altitude: announces a move that would
        /// come too soon for a lower-ranked drone in the way to react (see ``AvoidanceConfiguration/reactionTime``).
        case wait(Vector3, until: Double, altitude: Double)
        /// After a new command: keep flying the previously published plan (toward its point, at its speed) until a
        /// time, then the new one: a turn announced a courtesy window ahead instead of made at once.
        case handover(Vector3, speed: Double, until: Double)
        /// Fly at cruise speed toward a point beside the direct way (at an altitude) until a time, then the mission's
        /// plan: passing a crossing drone on its side instead of over, under or after it.
        case veer(Vector3, until: Double)

        /// Short text, e.g. `altitude 24.0 m`.
        public var description: String {
            switch self {
            case .notAvoiding: return "not avoiding"
            case .nominal: return "nominal"
            case .altitude(let z): return "altitude \(formatFixed(z, 1)) m"
            case .slowDown(let s, let z): return "slow \(formatFixed(s, 1)) m/s at \(formatFixed(z, 1)) m"
            case .stop(let p): return "stop at \(p)"
            case .sidestep(let p): return "sidestep to \(p)"
            case .wait(let p, let t, let z):
                return "wait at \(p) until \(formatFixed(t, 1)), then go at \(formatFixed(z, 1)) m"
            case .handover(let p, _, let t):
                return "finish the previous plan toward \(p) until \(formatFixed(t, 1)), then the new one"
            case .veer(let p, let t): return "veer toward \(p) until \(formatFixed(t, 1))"
            }
        }
    }

    /// The navigator adjustment to apply (nil: none).
    public var adjustment: NavigatorAdjustment?
    /// The kind of plan.
    public var maneuver: Maneuver
    /// Where the drone is heading: its goal, the goal moved into the geofence, or a parking spot (nil when not avoiding).
    public var destination: Vector3?
    /// Whether ``destination`` is a parking spot because a higher-ranked drone holds the goal.
    public var parked: Bool
    /// Whether the plan is free of conflicts by the rules; false means none was and this is the least bad one.
    public var safe: Bool
    /// Whether ``adjustment`` differs from the previous decision's (apply it and publish a new prediction now).
    public var changed: Bool
    /// UAV numbers of higher-ranked or non-avoiding drones that the mission's own plan conflicts with.
    public var yieldingTo: [Int]

    /// The decision of a drone that does not avoid.
    public static let notAvoiding = AvoidanceDecision(
        adjustment: nil, maneuver: .notAvoiding, destination: nil, parked: false,
        safe: true, changed: false, yieldingTo: [])

    /// Creates a decision.
    public init(
        adjustment: NavigatorAdjustment?, maneuver: Maneuver, destination: Vector3?, parked: Bool, safe: Bool,
        changed: Bool, yieldingTo: [Int]
    ) {
        self.adjustment = adjustment
        self.maneuver = maneuver
        self.destination = destination
        self.parked = parked
        self.safe = safe
        self.changed = changed
        self.yieldingTo = yieldingTo
    }

    /// `altitude 24.0 m (yielding to 3, 7)`.
    public var description: String {
        var s = maneuver.description
        if parked { s += ", parked" }
        if !safe { s += ", no safe plan" }
        if !yieldingTo.isEmpty { s += " (yielding to \(yieldingTo.map(String.init).joined(separator: ", ")))" }
        return s
    }
}
