import Flight
import Geodesy

extension AirspaceTrack {
    /// A track from a prediction as the mesh carries it: points in latitude/longitude/altitude, `step` seconds apart,
    /// the first one `step` after the prediction was made, received `age` seconds before `now`.
    ///
    /// Points are placed in the local frame of `origin` (``Geodesy/MapOrigin/local(_:)``); altitudes must be on the
    /// origin's datum. The position at the time of the prediction, which the wire format does not carry, is
    /// extrapolated back from the first two points.
    /// - Throws: ``GeodesyError`` for a point that cannot be placed on the origin's map.
    public init(
        uavNumber: Int, tiebreak: UInt64 = 0, avoiding: Bool, step: Double, points: [GeodeticCoordinate],
        age: Double, now: Double, origin: MapOrigin, uncertainty: PredictionUncertainty = .none
    ) throws(GeodesyError) {
        let path = try Self.localPath(step: step, points: points, origin: origin)
        self.init(
            uavNumber: uavNumber, tiebreak: tiebreak, avoiding: avoiding,
            prediction: PredictedTrajectory(time: now - age, origin: path.start, points: path.points),
            uncertainty: uncertainty)
    }

    /// A published path placed in the local frame of `origin`: its points `step` seconds apart from `step` on, and
    /// the position at the time of the prediction extrapolated back from the first two. The costly part of a track
    /// (one map projection per point): a receiver that sees the same path again keeps this and only ages it.
    /// - Throws: ``GeodesyError`` for a point that cannot be placed on the origin's map.
    public static func localPath(step: Double, points: [GeodeticCoordinate], origin: MapOrigin)
        throws(GeodesyError) -> (start: Vector3, points: [PredictedTrajectory.Point])
    {
        var local: [PredictedTrajectory.Point] = []
        local.reserveCapacity(points.count)
        for (i, g) in points.enumerated() {
            local.append(.init(offset: Double(i + 1) * step, position: Vector3(try origin.local(g))))
        }
        let start: Vector3
        if local.count >= 2 {
            start = local[0].position * 2 - local[1].position
        } else {
            start = local.first?.position ?? .zero
        }
        return (start, local)
    }
}
