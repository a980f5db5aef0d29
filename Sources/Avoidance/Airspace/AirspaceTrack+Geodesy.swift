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
        self.init(
            uavNumber: uavNumber, tiebreak: tiebreak, avoiding: avoiding,
            prediction: PredictedTrajectory(time: now - age, origin: start, points: local), uncertainty: uncertainty)
    }
}
