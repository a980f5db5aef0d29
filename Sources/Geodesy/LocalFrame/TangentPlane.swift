import Foundation

/// Earth-centred, earth-fixed Cartesian coordinates, metres.
public struct ECEF: Sendable, Hashable, Codable {
    /// Towards latitude 0, longitude 0.
    public var x: Double
    /// Towards latitude 0, longitude 90°E.
    public var y: Double
    /// Towards the north pole.
    public var z: Double

    /// Creates ECEF coordinates.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// ECEF position of a geodetic coordinate (altitude is height above the ellipsoid).
    public init(_ g: GeodeticCoordinate, ellipsoid: Ellipsoid = .wgs84) {
        let phi = g.latitude * .pi / 180, lam = g.longitude * .pi / 180
        let e2 = ellipsoid.eccentricitySquared
        let sinPhi = sin(phi), cosPhi = cos(phi)
        let n = ellipsoid.equatorialRadius / (1 - e2 * sinPhi * sinPhi).squareRoot()
        x = (n + g.altitude) * cosPhi * cos(lam)
        y = (n + g.altitude) * cosPhi * sin(lam)
        z = (n * (1 - e2) + g.altitude) * sinPhi
    }

    /// The geodetic coordinate of this point (iterative; sub-nanometre for points within 10 km of the surface).
    public func geodetic(ellipsoid: Ellipsoid = .wgs84) -> GeodeticCoordinate {
        let a = ellipsoid.equatorialRadius, e2 = ellipsoid.eccentricitySquared
        let p = (x * x + y * y).squareRoot()
        let lon = atan2(y, x) * 180 / .pi
        if p < 1e-9 {
            let b = ellipsoid.polarRadius
            return GeodeticCoordinate(latitude: z >= 0 ? 90 : -90, longitude: lon, altitude: abs(z) - b)
        }
        var phi = atan2(z, p * (1 - e2))
        var h = 0.0
        for _ in 0..<8 {
            let s = sin(phi)
            let n = a / (1 - e2 * s * s).squareRoot()
            h = p / cos(phi) - n
            let next = atan2(z, p * (1 - e2 * n / (n + h)))
            if abs(next - phi) < 1e-15 {
                phi = next
                break
            }
            phi = next
        }
        return GeodeticCoordinate(latitude: phi * 180 / .pi, longitude: lon, altitude: h)
    }
}

/// A true local east-north-up tangent plane at an origin (the frame GeographicLib's `CartConvert -l` uses).
///
/// Unlike the UTM-based ``MapOrigin`` frame, axes point to true east/north/up at the origin and distances carry no
/// projection scale; use it where the exact local geometry matters (e.g. comparing with a motion-capture frame).
public struct TangentPlane: Sendable, Hashable {
    /// The origin.
    public let origin: GeodeticCoordinate
    /// The ellipsoid.
    public let ellipsoid: Ellipsoid
    private let originECEF: ECEF
    private let sinPhi: Double, cosPhi: Double, sinLam: Double, cosLam: Double

    /// A tangent plane at `origin`.
    public init(origin: GeodeticCoordinate, ellipsoid: Ellipsoid = .wgs84) {
        self.origin = origin
        self.ellipsoid = ellipsoid
        originECEF = ECEF(origin, ellipsoid: ellipsoid)
        let phi = origin.latitude * .pi / 180, lam = origin.longitude * .pi / 180
        sinPhi = sin(phi)
        cosPhi = cos(phi)
        sinLam = sin(lam)
        cosLam = cos(lam)
    }

    /// East, north, up (metres) of a geodetic coordinate.
    public func local(_ g: GeodeticCoordinate) -> LocalPosition {
        let p = ECEF(g, ellipsoid: ellipsoid)
        let dx = p.x - originECEF.x, dy = p.y - originECEF.y, dz = p.z - originECEF.z
        return LocalPosition(
            east: -sinLam * dx + cosLam * dy,
            north: -sinPhi * cosLam * dx - sinPhi * sinLam * dy + cosPhi * dz,
            up: cosPhi * cosLam * dx + cosPhi * sinLam * dy + sinPhi * dz)
    }

    /// The geodetic coordinate of a local east-north-up position.
    public func geodetic(_ l: LocalPosition) -> GeodeticCoordinate {
        let dx = -sinLam * l.east - sinPhi * cosLam * l.north + cosPhi * cosLam * l.up
        let dy = cosLam * l.east - sinPhi * sinLam * l.north + cosPhi * sinLam * l.up
        let dz = cosPhi * l.north + sinPhi * l.up
        return ECEF(x: originECEF.x + dx, y: originECEF.y + dy, z: originECEF.z + dz).geodetic(ellipsoid: ellipsoid)
    }
}
