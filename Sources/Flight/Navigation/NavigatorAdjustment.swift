import Geodesy

/// A temporary change to how the navigator flies its current intent, set by collision avoidance (target `Avoidance`)
/// and cleared when it is no longer needed. The intent itself (the goto target, the followed target, the hold point)
/// is kept, so clearing the adjustment resumes the mission where it stands.
///
/// Applies to the `hold`, `goto` and `follow` intents; takeoff, landing, return home and trajectories ignore it.
/// Because ``Navigator/predictedTrajectory(state:now:)`` runs a copy of the navigator, a prediction made while an
/// adjustment is set shows the adjusted flight, which is what other drones must see.
public struct NavigatorAdjustment: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Fly at this altitude (local up, metres) instead of the intent's target altitude; nil keeps it.
    public var altitude: Double?
    /// Added to the intent's target (a detour, or a parking spot beside a shared target), metres; only east and
    /// north are used.
    public var offset: Vector3
    /// Cap on the horizontal speed, m/s; nil keeps the intent's speed.
    public var maxSpeed: Double?
    /// Stop and hold here instead of flying the intent; while it applies it overrides the other fields.
    public var hold: Vector3?
    /// The hold applies until this time (the navigator's clock, seconds); from then on the intent is flown with the
    /// other fields. nil: hold until changed. A prediction made before that time shows both parts ("hold here until
    /// t, then go on"), which is how a drone announces a move it is waiting to make.
    public var holdUntil: Double?

    /// The whole adjustment applies until this time (the navigator's clock, seconds); from then on the intent is flown
    /// unadjusted. nil: until it is changed. Collision avoidance uses it to finish the plan it has published for a few
    /// seconds after a new command, announcing the turn in its prediction before making it.
    public var until: Double?

    /// An adjustment; with no arguments it changes nothing.
    public init(
        altitude: Double? = nil, offset: Vector3 = .zero, maxSpeed: Double? = nil, hold: Vector3? = nil,
        holdUntil: Double? = nil,
        until: Double? = nil
    ) {
        self.altitude = altitude
        self.offset = Vector3(offset.x, offset.y, 0)
        self.maxSpeed = maxSpeed
        self.hold = hold
        self.holdUntil = holdUntil
        self.until = until
    }

    /// Whether it changes nothing.
    public var isNeutral: Bool { altitude == nil && offset == .zero && maxSpeed == nil && hold == nil }

    /// Whether the hold applies at `now`.
    public func holds(at now: Double) -> Bool { hold != nil && (holdUntil.map { now < $0 } ?? true) }

    /// `hold (e, n, u)` or e.g. `alt 24.0 offset (6.5, 0.0) speed ≤ 2.0`; a timed hold reads
    /// `hold (e, n, u) until 12.3, then …`, a timed adjustment ends in ` until 12.3`.
    public var description: String {
        var parts: [String] = []
        if let hold {
            guard let holdUntil else { return "hold \(hold)" }
            parts.append("hold \(hold) until \(formatFixed(holdUntil, 1)), then")
        }
        if let altitude { parts.append("alt \(formatFixed(altitude, 1))") }
        if offset != .zero { parts.append("offset (\(formatFixed(offset.x, 1)), \(formatFixed(offset.y, 1)))") }
        if let maxSpeed { parts.append("speed ≤ \(formatFixed(maxSpeed, 1))") }
        if hold != nil && parts.count == 1 { parts.append("resume") }
        let text = parts.isEmpty ? "none" : parts.joined(separator: " ")
        return until.map { "\(text) until \(formatFixed($0, 1))" } ?? text
    }

    /// The setpoint flown instead of `setpoint` (the intent's own) at `now`; `limit` is the vehicle's horizontal speed
    /// limit.
    func apply(to setpoint: Setpoint, limit: Double, now: Double) -> Setpoint {
        if let until, now >= until { return setpoint }
        if let hold, holds(at: now) { return .hold(hold) }
        switch setpoint {
        case .hold(let p):
            return .position(
                target: adjusted(p), feedforward: .zero, speed: min(maxSpeed ?? limit, limit), heading: nil,
                activity: .hovering)
        case .position(let target, var feedforward, let speed, let heading, let activity):
            if altitude != nil { feedforward.z = 0 }
            return .position(
                target: adjusted(target), feedforward: feedforward, speed: min(speed, maxSpeed ?? speed),
                heading: heading, activity: activity)
        default:
            return setpoint
        }
    }

    private func adjusted(_ p: Vector3) -> Vector3 {
        Vector3(p.x + offset.x, p.y + offset.y, altitude ?? p.z)
    }
}
