/// A position on the ellipsoid: latitude and longitude in degrees, altitude in metres above the ellipsoid.
public struct GeodeticCoordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Latitude in degrees, positive north, −90…90.
    public var latitude: Double
    /// Longitude in degrees, positive east.
    public var longitude: Double
    /// Height in metres (the same datum as the map origin's altitude; ellipsoidal for GPS fixes).
    public var altitude: Double

    /// Creates a coordinate without validation; use ``validated(latitude:longitude:altitude:)`` for user input.
    public init(latitude: Double, longitude: Double, altitude: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// Creates a coordinate, throwing when latitude is outside −90…90 or any value is not finite.
    public static func validated(latitude: Double, longitude: Double, altitude: Double = 0) throws(GeodesyError)
        -> GeodeticCoordinate
    {
        guard latitude.isFinite, (-90...90).contains(latitude) else { throw .latitudeOutOfRange(latitude) }
        guard longitude.isFinite else { throw .longitudeNotFinite(longitude) }
        guard altitude.isFinite else { throw .altitudeNotFinite(altitude) }
        return GeodeticCoordinate(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// "lat, lon, alt" with 9 decimals (about 0.1 mm).
    public var description: String {
        "\(formatFixed(latitude, 9)), \(formatFixed(longitude, 9)), \(formatFixed(altitude, 3))"
    }
}

/// Longitude reduced to −180 ≤ λ < 180 degrees.
@inlinable
func normalizedLongitude(_ lon: Double) -> Double {
    var l = lon.truncatingRemainder(dividingBy: 360)
    if l >= 180 { l -= 360 } else if l < -180 { l += 360 }
    return l
}

/// Fixed-point formatting without Foundation's `String(format:)` (pure Swift, locale-independent).
public func formatFixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let negative = value < 0
    let scaled = (abs(value) * scale).rounded()
    if scaled >= 9.0e15 { return "\(value)" }
    let integer = UInt64(scaled)
    let whole = integer / UInt64(scale)
    let frac = integer % UInt64(scale)
    var out = (negative && integer != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
        let f = String(frac)
        out += "." + String(repeating: "0", count: decimals - f.count) + f
    }
    return out
}
