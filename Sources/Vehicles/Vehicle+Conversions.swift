import Coordinator
import Flight
import Geodesy

extension GeoPoint {
    /// A local position of `origin`'s map as the mesh carries it: latitude and longitude, altitude = local up.
    init(_ v: Vector3, origin: MapOrigin) {
        let g = origin.geodetic(v.localPosition)
        self.init(latitude: g.latitude, longitude: g.longitude, altitude: v.z)
    }
}

extension TrajectoryPrediction {
    /// `navigator`'s prediction from `state` at `now` (seconds) as the mesh carries it (at most 255 points).
    init(_ navigator: Navigator, state: Flight.VehicleState, now: Double, avoiding: Bool) {
        let p = navigator.predictedTrajectory(state: state, now: now)
        let step = UInt16(max(1, min(65_535, (navigator.configuration.predictionStep * 1000).rounded())))
        self.init(
            stepMilliseconds: step,
            points: p.points.prefix(255).map { GeoPoint($0.position, origin: navigator.origin) },
            avoiding: avoiding)
    }
}
