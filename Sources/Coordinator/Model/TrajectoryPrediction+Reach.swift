#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TrajectoryPrediction {
    /// The horizontal distance in metres from `point` to the nearest predicted position (flat-earth, good to well under
    /// a percent over the few hundred metres it is asked about); infinity without points.
    public func horizontalDistance(to point: GeoPoint) -> Double {
        let metresPerDegree = 111_195.0
        let east = metresPerDegree * cos(point.latitude * .pi / 180)
        var nearest = Double.infinity
        for p in points {
            let dn = (p.latitude - point.latitude) * metresPerDegree
            let de = (p.longitude - point.longitude) * east
            nearest = min(nearest, dn * dn + de * de)
        }
        return nearest.squareRoot()
    }
}
