import Foundation

/// The shortest path between two positions on the ellipsoid: its length and the azimuths at both ends.
public struct GeodesicLine: Sendable, Hashable {
    /// Length in metres along the ellipsoid surface (altitudes ignored).
    public var distance: Double
    /// Bearing at the start, degrees clockwise from true north, 0 ≤ b < 360.
    public var initialBearing: Double
    /// Bearing on arrival (forward azimuth at the end), degrees clockwise from true north, 0 ≤ b < 360.
    public var finalBearing: Double

    /// Creates a result.
    public init(distance: Double, initialBearing: Double, finalBearing: Double) {
        self.distance = distance
        self.initialBearing = initialBearing
        self.finalBearing = finalBearing
    }
}

/// Distance and bearing between two locations.
///
/// ``inverse(from:to:ellipsoid:)`` picks the method: a local flat approximation (radii of curvature at the mean
/// latitude) for legs shorter than ``flatApproximationLimit``, where it is within 1 cm of the geodesic, and
/// Vincenty's iterative inverse otherwise.
public enum Geodesic {
    /// Legs shorter than this (metres) use the flat approximation; its error stays below 1 cm up to here
    /// (measured against GeographicLib's GeodSolve in the tests).
    public static let flatApproximationLimit = 1_000.0

    /// Distance and bearings, choosing flat or Vincenty as described above.
    /// - Throws: ``GeodesyError/geodesicDidNotConverge`` for nearly antipodal points, where Vincenty's method fails.
    public static func inverse(from p1: GeodeticCoordinate, to p2: GeodeticCoordinate, ellipsoid: Ellipsoid = .wgs84)
        throws(GeodesyError) -> GeodesicLine
    {
        let flat = flatInverse(from: p1, to: p2, ellipsoid: ellipsoid)
        if flat.distance < flatApproximationLimit * 0.9 && abs(p1.latitude) < 89 && abs(p2.latitude) < 89 {
            return flat
        }
        return try vincentyInverse(from: p1, to: p2, ellipsoid: ellipsoid)
    }

    /// Distance in metres along the ellipsoid (see ``inverse(from:to:ellipsoid:)``).
    public static func distance(from p1: GeodeticCoordinate, to p2: GeodeticCoordinate) throws(GeodesyError) -> Double {
        try inverse(from: p1, to: p2).distance
    }

    /// Local tangent-plane approximation: north = M·Δφ, east = N·cos φm·Δλ with the meridional (M) and prime-vertical (N)
    /// radii of curvature at the mean latitude. Cheap and accurate to 1 cm below ``flatApproximationLimit``.
    public static func flatInverse(
        from p1: GeodeticCoordinate, to p2: GeodeticCoordinate, ellipsoid: Ellipsoid = .wgs84
    ) -> GeodesicLine {
        let d2r = Double.pi / 180
        let phim = (p1.latitude + p2.latitude) / 2 * d2r
        let e2 = ellipsoid.eccentricitySquared
        let w2 = 1 - e2 * sin(phim) * sin(phim)
        let primeVertical = ellipsoid.equatorialRadius / w2.squareRoot()
        let meridional = ellipsoid.equatorialRadius * (1 - e2) / (w2 * w2.squareRoot())
        let dn = (p2.latitude - p1.latitude) * d2r * meridional
        let de = normalizedLongitude(p2.longitude - p1.longitude) * d2r * primeVertical * cos(phim)
        let bearing = bearingDegrees(atan2(de, dn))
        return GeodesicLine(distance: (dn * dn + de * de).squareRoot(), initialBearing: bearing, finalBearing: bearing)
    }

    /// Vincenty's inverse formula (1975) on the ellipsoid; iterates λ until it changes by less than 1e-12 rad.
    /// Accurate to about 0.1 mm. - Throws: ``GeodesyError/geodesicDidNotConverge`` after 200 iterations (nearly antipodal points).
    public static func vincentyInverse(
        from p1: GeodeticCoordinate, to p2: GeodeticCoordinate, ellipsoid: Ellipsoid = .wgs84
    ) throws(GeodesyError) -> GeodesicLine {
        let d2r = Double.pi / 180
        let a = ellipsoid.equatorialRadius, f = ellipsoid.flattening, b = ellipsoid.polarRadius
        let L = normalizedLongitude(p2.longitude - p1.longitude) * d2r
        let u1 = atan((1 - f) * tan(p1.latitude * d2r)), u2 = atan((1 - f) * tan(p2.latitude * d2r))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)
        var lambda = L
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cosSqAlpha = 0.0, cos2SigmaM = 0.0
        var sinLambda = 0.0, cosLambda = 0.0
        var converged = false
        for _ in 0..<200 {
            sinLambda = sin(lambda)
            cosLambda = cos(lambda)
            let t1 = cosU2 * sinLambda, t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            sinSigma = (t1 * t1 + t2 * t2).squareRoot()
            if sinSigma == 0 { return GeodesicLine(distance: 0, initialBearing: 0, finalBearing: 0) }
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cosSqAlpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cosSqAlpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cosSqAlpha : 0
            let c = f / 16 * cosSqAlpha * (4 + f * (4 - 3 * cosSqAlpha))
            let previous = lambda
            lambda =
                L + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda) > .pi { break }  // diverging: nearly antipodal
            if abs(lambda - previous) < 1e-12 {
                converged = true
                break
            }
        }
        guard converged else { throw .geodesicDidNotConverge }
        let uSq = cosSqAlpha * (a * a - b * b) / (b * b)
        let bigA = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
        let bigB = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
        let deltaSigma =
            bigB * sinSigma
            * (cos2SigmaM + bigB / 4
                * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                    - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        let s = b * bigA * (sigma - deltaSigma)
        let alpha1 = atan2(cosU2 * sinLambda, cosU1 * sinU2 - sinU1 * cosU2 * cosLambda)
        let alpha2 = atan2(cosU1 * sinLambda, -sinU1 * cosU2 + cosU1 * sinU2 * cosLambda)
        return GeodesicLine(distance: s, initialBearing: bearingDegrees(alpha1), finalBearing: bearingDegrees(alpha2))
    }

    /// Radians clockwise from north → degrees in 0 ≤ b < 360.
    static func bearingDegrees(_ radians: Double) -> Double {
        var d = radians * 180 / .pi
        if d < 0 { d += 360 }
        if d >= 360 { d -= 360 }
        return d
    }
}
