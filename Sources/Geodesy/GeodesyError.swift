/// Why a geodetic computation or a piece of input was rejected.
public enum GeodesyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Latitude outside −90…90 degrees (or not finite).
    case latitudeOutOfRange(Double)
    /// Latitude outside the UTM domain (80°S…84°N) when no zone was forced.
    case latitudeOutsideUTM(Double)
    /// Longitude is NaN or infinite.
    case longitudeNotFinite(Double)
    /// Altitude is NaN or infinite.
    case altitudeNotFinite(Double)
    /// A zone number outside 1…60.
    case zoneOutOfRange(Int)
    /// Zone text that is not like `33N`.
    case badZoneText(String, reason: String)
    /// A forced zone whose central meridian is too far from the point for the series to be accurate.
    case tooFarFromZone(longitude: Double, zone: Int, maxDegrees: Double)
    /// Easting or northing not finite.
    case gridCoordinateOutOfRange(easting: Double, northing: Double)
    /// Easting outside the legal UTM range (0…1000 km, as GeographicLib).
    case eastingOutOfRange(Double, allowed: ClosedRange<Double>)
    /// Northing outside the legal UTM range for the hemisphere (N: −9100…9600 km, S: 900…19600 km, as GeographicLib).
    case northingOutOfRange(Double, hemisphere: Hemisphere, allowed: ClosedRange<Double>)
    /// The Vincenty iteration did not converge (nearly antipodal points).
    case geodesicDidNotConverge

    /// A sentence saying what is wrong, for logs and command-line errors.
    public var description: String {
        switch self {
        case .latitudeOutOfRange(let v): return "latitude \(v) is outside -90…90 degrees"
        case .latitudeOutsideUTM(let v):
            return "latitude \(v) is outside the UTM domain (-80…84 degrees); force a zone to project it anyway"
        case .longitudeNotFinite(let v): return "longitude \(v) is not a finite number"
        case .altitudeNotFinite(let v): return "altitude \(v) is not a finite number"
        case .zoneOutOfRange(let z): return "UTM zone \(z) is outside 1…60"
        case .badZoneText(let t, let reason): return "bad UTM zone '\(t)': \(reason)"
        case .tooFarFromZone(let lon, let zone, let maxDegrees):
            return "longitude \(lon) is more than \(maxDegrees) degrees from the central meridian of zone \(zone)"
        case .gridCoordinateOutOfRange(let e, let n):
            return "easting \(e) / northing \(n) is not a finite grid position"
        case .eastingOutOfRange(let e, let r):
            return
                "easting \(e) m is outside the UTM range \(formatFixed(r.lowerBound, 0))…\(formatFixed(r.upperBound, 0)) m"
        case .northingOutOfRange(let n, let h, let r):
            return
                "northing \(n) m is outside the UTM range for hemisphere \(h.rawValue) (\(formatFixed(r.lowerBound, 0))…\(formatFixed(r.upperBound, 0)) m)"
        case .geodesicDidNotConverge: return "geodesic inverse did not converge (points nearly antipodal)"
        }
    }
}
