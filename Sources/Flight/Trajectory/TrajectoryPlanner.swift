import Geodesy

/// Turns waypoints into a time-parameterised trajectory that respects speed, acceleration, climb and yaw-rate limits.
///
/// Each leg is a straight line flown with a trapezoidal (or, when short, triangular) speed profile that starts and ends
/// at rest; before each leg the vehicle turns in place to face along it at no more than the yaw rate. The result is
/// sampled every ``Limits/sampleInterval`` seconds, shortened when needed so consecutive points are at most
/// ``Limits/maxSpacing`` apart (defaults: 0.02 s and 8 cm, exactly the spacing at 4 m/s).
public struct TrajectoryPlanner: Sendable {
    /// Planner limits.
    public struct Limits: Sendable, Hashable, Codable {
        /// Maximum speed along the path, m/s.
        public var maxSpeed: Double = 4
        /// Maximum acceleration along the path, m/s².
        public var maxAcceleration: Double = 1.5
        /// Maximum climb rate, m/s.
        public var maxClimbRate: Double = 2
        /// Maximum descent rate, m/s.
        public var maxDescentRate: Double = 1.5
        /// Maximum yaw rate, degrees per second.
        public var maxYawRate: Double = 45
        /// Sampling interval, seconds.
        public var sampleInterval: Double = 0.02
        /// Largest distance between consecutive samples, metres.
        public var maxSpacing: Double = 0.08
        /// Whether to turn to face each leg before flying it.
        public var faceAlongLegs = true
        /// A first leg shorter than this (horizontally, metres) is flown without turning to face along it: the way
        /// from where a vehicle stands to a first waypoint just beside or behind it (a drone still braking from its
        /// last move, or hovering a few centimetres off) is a step, not a reason to turn about and back.
        public var shortestFirstLegToFace: Double = 1

        // `shortestFirstLegToFace` is not coded: limits written before it existed still read, with its default.
        enum CodingKeys: String, CodingKey {
            case maxSpeed, maxAcceleration, maxClimbRate, maxDescentRate, maxYawRate, sampleInterval, maxSpacing
            case faceAlongLegs
        }

        /// Defaults: 4 m/s, 1.5 m/s², 2 m/s up, 1.5 m/s down, 45°/s, 0.02 s, 8 cm; a first leg under 1 m not faced.
        public init() {}
    }

    /// The limits used.
    public var limits: Limits

    /// A planner with the given limits.
    public init(limits: Limits = Limits()) { self.limits = limits }

    /// What to do on reaching a waypoint: turn in place to face `heading` (degrees; nil: keep facing), then hold
    /// there for `hold` seconds (an inspection's snapshot point).
    public struct Stop: Sendable, Hashable, Codable {
        /// Heading to face, degrees clockwise from grid north; nil keeps the heading the vehicle arrives with.
        public var heading: Double?
        /// Seconds to hold after the turn.
        public var hold: Double

        /// A stop.
        public init(heading: Double? = nil, hold: Double = 0) {
            self.heading = heading
            self.hold = hold
        }
    }

    /// Plans through local ENU waypoints, starting at the first one facing `initialHeading` (default: along the first
    /// leg); at each waypoint listed in `stops` (by index, 0 the first) the vehicle turns to the stop's heading and holds.
    public func plan(_ waypoints: [Vector3], initialHeading: Double? = nil, stops: [Int: Stop] = [:])
        throws(TrajectoryError) -> Trajectory
    {
        let l = limits
        for (name, v) in [
            ("maxSpeed", l.maxSpeed), ("maxAcceleration", l.maxAcceleration), ("maxClimbRate", l.maxClimbRate),
            ("maxDescentRate", l.maxDescentRate), ("maxYawRate", l.maxYawRate),
            ("sampleInterval", l.sampleInterval), ("maxSpacing", l.maxSpacing),
        ] where !(v > 0 && v.isFinite) {
            throw .badLimits("\(name) must be positive, found \(v)")
        }
        guard !waypoints.isEmpty else { throw .empty }
        for (i, w) in waypoints.enumerated() where !(w.x.isFinite && w.y.isFinite && w.z.isFinite) {
            throw .badWaypoint(index: i, reason: "coordinates must be finite")
        }
        for (i, stop) in stops {
            guard waypoints.indices.contains(i) else { throw .badWaypoint(index: i, reason: "a stop at no waypoint") }
            guard stop.hold.isFinite, stop.hold >= 0, stop.heading.map({ $0.isFinite }) ?? true else {
                throw .badWaypoint(index: i, reason: "a stop's heading and hold must be finite, the hold ≥ 0")
            }
        }
        // Build phases: turn in place, then fly the leg.
        var phases: [Phase] = []
        var heading =
            initialHeading ?? waypoints.dropFirst().first { $0.horizontal != waypoints[0].horizontal }
            .map { ($0 - waypoints[0]).heading } ?? 0
        heading = normalizedHeading(heading)
        var fastest = 0.0
        // Turn to a stop's heading and hold there.
        func stop(at i: Int) {
            guard let s = stops[i] else { return }
            let at = waypoints[i]
            if let h = s.heading {
                let turn = headingDifference(from: heading, to: normalizedHeading(h))
                if abs(turn) > 1e-9 {
                    phases.append(.turn(at: at, from: heading, by: turn, duration: abs(turn) / l.maxYawRate))
                    heading = normalizedHeading(h)
                }
            }
            if s.hold > 0 { phases.append(.turn(at: at, from: heading, by: 0, duration: s.hold)) }
        }
        stop(at: 0)
        for i in waypoints.indices.dropFirst() {
            let a = waypoints[i - 1], b = waypoints[i]
            let d = b - a
            let length = d.length
            guard length > 1e-9 else {
                stop(at: i)
                continue
            }
            if l.faceAlongLegs && d.horizontalLength > (i == 1 ? max(0.01, l.shortestFirstLegToFace) : 0.01) {
                let turn = headingDifference(from: heading, to: d.heading)
                if abs(turn) > 1e-9 {
                    phases.append(.turn(at: a, from: heading, by: turn, duration: abs(turn) / l.maxYawRate))
                    heading = d.heading
                }
            }
            // Speed along the leg limited so that the vertical part stays within the climb/descent rates.
            let u = d / length
            var vmax = l.maxSpeed
            if u.z > 1e-12 { vmax = min(vmax, l.maxClimbRate / u.z) }
            if u.z < -1e-12 { vmax = min(vmax, l.maxDescentRate / -u.z) }
            let profile = SpeedProfile(length: length, maxSpeed: vmax, acceleration: l.maxAcceleration)
            fastest = max(fastest, profile.peakSpeed)
            phases.append(.leg(from: a, to: b, direction: u, profile: profile, heading: heading))
            stop(at: i)
        }
        let dt = fastest > 0 ? min(l.sampleInterval, l.maxSpacing / fastest) : l.sampleInterval
        // Sample all phases on one global grid k·dt.
        var points: [TrajectoryPoint] = []
        var phaseStart = 0.0
        var k = 0
        let total = phases.reduce(0) { $0 + $1.duration }
        points.reserveCapacity(Int(total / dt) + 2)
        for phase in phases {
            let phaseEnd = phaseStart + phase.duration
            while true {
                let t = Double(k) * dt
                if t >= phaseEnd && phaseEnd < total { break }
                if t > total { break }
                var p = phase.state(at: t - phaseStart)
                p.time = t
                points.append(p)
                k += 1
            }
            phaseStart = phaseEnd
        }
        if let last = phases.last {
            var p = last.state(at: last.duration)
            p.time = total
            if let prev = points.last, total - prev.time < dt * 1e-6 { points.removeLast() }
            points.append(p)
        } else {
            points = [TrajectoryPoint(time: 0, position: waypoints[0], heading: heading)]
        }
        return Trajectory(unchecked: points)
    }

    /// Plans through geodetic waypoints placed on the map of `origin`.
    public func plan(_ waypoints: [GeodeticCoordinate], origin: MapOrigin, initialHeading: Double? = nil)
        throws(TrajectoryError) -> Trajectory
    {
        var local: [Vector3] = []
        for (i, w) in waypoints.enumerated() {
            do { local.append(Vector3(try origin.local(w))) } catch {
                throw .badWaypoint(index: i, reason: error.description)
            }
        }
        return try plan(local, initialHeading: initialHeading)
    }

    /// A piece of the trajectory.
    enum Phase {
        case turn(at: Vector3, from: Double, by: Double, duration: Double)
        case leg(from: Vector3, to: Vector3, direction: Vector3, profile: SpeedProfile, heading: Double)

        var duration: Double {
            switch self {
            case .turn(_, _, _, let d): return d
            case .leg(_, _, _, let p, _): return p.duration
            }
        }

        func state(at t: Double) -> TrajectoryPoint {
            switch self {
            case .turn(let p, let from, let by, let d):
                let f = d > 0 ? min(1, max(0, t / d)) : 1
                return TrajectoryPoint(time: t, position: p, velocity: .zero, heading: normalizedHeading(from + by * f))
            case .leg(let a, let b, let u, let profile, let heading):
                if t >= profile.duration {
                    return TrajectoryPoint(time: t, position: b, velocity: .zero, heading: heading)
                }
                let (s, v) = profile.distanceAndSpeed(at: t)
                return TrajectoryPoint(time: t, position: a + u * s, velocity: u * v, heading: heading)
            }
        }
    }
}

/// Rest-to-rest trapezoidal speed profile along a straight leg.
struct SpeedProfile: Sendable {
    let length: Double
    let acceleration: Double
    /// Highest speed reached (the cruise speed, or less on a short leg).
    let peakSpeed: Double
    let accelTime: Double
    let cruiseTime: Double

    init(length: Double, maxSpeed: Double, acceleration: Double) {
        self.length = length
        self.acceleration = acceleration
        let peak = min(maxSpeed, (length * acceleration).squareRoot())
        peakSpeed = peak
        accelTime = peak / acceleration
        cruiseTime = max(0, (length - peak * accelTime) / peak)
    }

    var duration: Double { 2 * accelTime + cruiseTime }

    func distanceAndSpeed(at t: Double) -> (Double, Double) {
        let a = acceleration
        if t <= 0 { return (0, 0) }
        if t < accelTime { return (0.5 * a * t * t, a * t) }
        let d1 = 0.5 * peakSpeed * accelTime
        if t < accelTime + cruiseTime { return (d1 + peakSpeed * (t - accelTime), peakSpeed) }
        let td = t - accelTime - cruiseTime
        if td >= accelTime { return (length, 0) }
        return (min(length, d1 + peakSpeed * cruiseTime + peakSpeed * td - 0.5 * a * td * td), peakSpeed - a * td)
    }
}
