import Geodesy

extension TrajectoryPrediction {
    /// The horizontal distance in metres from `point` to the nearest predicted position (in the tangent plane at
    /// `point`); infinity without points.
    public func horizontalDistance(to point: GeoPoint) -> Double {
        let plane = TangentPlane(origin: point.geodetic)
        var nearest = Double.infinity
        for p in points {
            let l = plane.local(p.geodetic)
            nearest = min(nearest, l.east * l.east + l.north * l.north)
        }
        return nearest.squareRoot()
    }
}
