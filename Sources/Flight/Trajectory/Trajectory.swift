/// One sample of a trajectory: time from its start, position, velocity and heading.
public struct TrajectoryPoint: Sendable, Hashable, Codable {
    /// Seconds from the start of the trajectory.
    public var time: Double
    /// Local ENU position, metres.
    public var position: Vector3
    /// Local ENU velocity, m/s.
    public var velocity: Vector3
    /// Heading, degrees clockwise from grid north.
    public var heading: Double

    /// Creates a sample.
    public init(time: Double, position: Vector3, velocity: Vector3 = .zero, heading: Double = 0) {
        self.time = time
        self.position = position
        self.velocity = velocity
        self.heading = heading
    }
}

/// A time-parameterised path in the local frame, densely sampled (see ``TrajectoryPlanner``).
public struct Trajectory: Sendable, Hashable, Codable {
    /// Samples in increasing time order, the first at time 0.
    public let points: [TrajectoryPoint]

    /// Creates a trajectory; throws unless there is at least one point, times start at 0 and strictly increase,
    /// and all values are finite.
    public init(points: [TrajectoryPoint]) throws(TrajectoryError) {
        guard let first = points.first else { throw .empty }
        guard first.time == 0 else { throw .badTiming(index: 0, reason: "first time must be 0, found \(first.time)") }
        for (i, p) in points.enumerated() {
            guard p.time.isFinite, p.position.x.isFinite, p.position.y.isFinite, p.position.z.isFinite,
                p.velocity.x.isFinite, p.velocity.y.isFinite, p.velocity.z.isFinite, p.heading.isFinite
            else {
                throw .badTiming(index: i, reason: "values must be finite")
            }
            if i > 0 && !(p.time > points[i - 1].time) {
                throw .badTiming(index: i, reason: "time \(p.time) does not increase (previous \(points[i - 1].time))")
            }
        }
        self.points = points
    }

    /// Trusted construction by the planner.
    init(unchecked points: [TrajectoryPoint]) { self.points = points }

    /// Total duration, seconds.
    public var duration: Double { points[points.count - 1].time }
    /// First point.
    public var start: TrajectoryPoint { points[0] }
    /// Last point.
    public var end: TrajectoryPoint { points[points.count - 1] }

    /// Path length, metres (sum of distances between consecutive points).
    public var length: Double {
        var total = 0.0
        for i in points.indices.dropFirst() { total += points[i].position.distance(to: points[i - 1].position) }
        return total
    }

    /// The state at time `t` (clamped to 0…duration), interpolated linearly between samples.
    public func sample(at t: Double) -> TrajectoryPoint {
        if t <= 0 { return points[0] }
        if t >= duration { return end }
        // Binary search for the last point with time ≤ t.
        var lo = 0, hi = points.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if points[mid].time <= t { lo = mid } else { hi = mid }
        }
        let a = points[lo], b = points[hi]
        let f = (t - a.time) / (b.time - a.time)
        return TrajectoryPoint(
            time: t, position: a.position.interpolated(to: b.position, fraction: f),
            velocity: a.velocity.interpolated(to: b.velocity, fraction: f),
            heading: normalizedHeading(a.heading + headingDifference(from: a.heading, to: b.heading) * f))
    }

    /// Decodes an array of points, validating them as ``init(points:)`` does.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let pts = try c.decode([TrajectoryPoint].self)
        do { try self.init(points: pts) } catch {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "trajectory: \(error)")
        }
    }

    /// Encodes the array of points.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(points)
    }
}

/// Why a trajectory could not be built.
public enum TrajectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No points or waypoints.
    case empty
    /// Times do not start at 0 or do not increase, or a value is not finite.
    case badTiming(index: Int, reason: String)
    /// A waypoint could not be placed on the map.
    case badWaypoint(index: Int, reason: String)
    /// A planner limit is zero, negative or not finite.
    case badLimits(String)

    /// What is wrong, naming the point or waypoint.
    public var description: String {
        switch self {
        case .empty: return "trajectory has no points"
        case .badTiming(let i, let r): return "trajectory point \(i): \(r)"
        case .badWaypoint(let i, let r): return "waypoint \(i): \(r)"
        case .badLimits(let r): return "trajectory limits: \(r)"
        }
    }
}
