/// Where a drone expects to be over the next seconds, shared over the mesh for collision avoidance.
///
/// Points are at `step`, 2·`step`, … `horizon` seconds after `time` (default 0.2 s to 8 s: 40 points).
public struct PredictedTrajectory: Sendable, Hashable, Codable {
    /// One predicted position.
    public struct Point: Sendable, Hashable, Codable {
        /// Seconds after ``PredictedTrajectory/time``.
        public var offset: Double
        /// Local ENU position, metres.
        public var position: Vector3

        /// Creates a point.
        public init(offset: Double, position: Vector3) {
            self.offset = offset
            self.position = position
        }
    }

    /// When the prediction was made (the navigator's clock), seconds.
    public var time: Double
    /// The position at ``time``.
    public var origin: Vector3
    /// Predicted points in increasing offset order.
    public var points: [Point]

    /// Creates a prediction.
    public init(time: Double, origin: Vector3, points: [Point]) {
        self.time = time
        self.origin = origin
        self.points = points
    }

    /// Position at `offset` seconds after ``time``, linearly interpolated (clamped to the predicted span).
    public func position(atOffset offset: Double) -> Vector3 {
        guard let first = points.first else { return origin }
        if offset <= 0 { return origin }
        if offset <= first.offset { return origin.interpolated(to: first.position, fraction: offset / first.offset) }
        for i in points.indices.dropFirst() where points[i].offset >= offset {
            let a = points[i - 1], b = points[i]
            return a.position.interpolated(to: b.position, fraction: (offset - a.offset) / (b.offset - a.offset))
        }
        return points[points.count - 1].position
    }
}
