/// A reference ellipsoid of revolution, described by its equatorial radius and flattening.
public struct Ellipsoid: Sendable, Hashable, Codable {
    /// Equatorial radius (semi-major axis) in metres.
    public let equatorialRadius: Double
    /// Flattening f = (a − b) / a.
    public let flattening: Double

    /// Creates an ellipsoid from its equatorial radius (metres) and flattening.
    public init(equatorialRadius: Double, flattening: Double) {
        self.equatorialRadius = equatorialRadius
        self.flattening = flattening
    }

    /// The WGS84 ellipsoid used by GPS (a = 6 378 137 m, 1/f = 298.257223563).
    public static let wgs84 = Ellipsoid(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// Polar radius (semi-minor axis) b = a(1 − f), in metres.
    public var polarRadius: Double { equatorialRadius * (1 - flattening) }
    /// First eccentricity squared e² = f(2 − f).
    public var eccentricitySquared: Double { flattening * (2 - flattening) }
    /// Third flattening n = f / (2 − f).
    public var thirdFlattening: Double { flattening / (2 - flattening) }
}
