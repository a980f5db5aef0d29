import Foundation

/// Universal Transverse Mercator on WGS84: standard zone selection (with the Norway 32V and Svalbard
/// 31X/33X/35X/37X exceptions), forced zones for work near a zone edge, forward and inverse conversion.
public enum UTM {
    /// Central scale factor of UTM.
    public static let scaleFactor = 0.9996
    /// False easting, metres.
    public static let falseEasting = 500_000.0
    /// False northing in the southern hemisphere, metres.
    public static let falseNorthingSouth = 10_000_000.0
    /// The UTM domain without a forced zone: 80°S ≤ φ < 84°N (as GeographicLib; beyond is UPS territory).
    public static let latitudeDomain: Range<Double> = -80..<84
    /// How far (degrees) from a forced zone's central meridian a point may lie; the series stays nanometre-accurate within 35°.
    public static let maxForcedZoneOffset = 35.0

    /// Legal UTM eastings (GeographicLib's range): 0…1000 km.
    public static let eastingRange: ClosedRange<Double> = 0...1_000_000
    /// Legal UTM northings for a hemisphere (GeographicLib's ranges): north −9100…9600 km, south 900…19600 km.
    public static func northingRange(_ h: Hemisphere) -> ClosedRange<Double> {
        h == .north ? -9_100_000...9_600_000 : 900_000...19_600_000
    }

    /// Throws unless easting and northing are within the legal ranges of the zone's hemisphere.
    public static func checkGrid(_ u: UTMCoordinate) throws(GeodesyError) {
        guard u.easting.isFinite, u.northing.isFinite else {
            throw .gridCoordinateOutOfRange(easting: u.easting, northing: u.northing)
        }
        guard eastingRange.contains(u.easting) else { throw .eastingOutOfRange(u.easting, allowed: eastingRange) }
        let r = northingRange(u.zone.hemisphere)
        guard r.contains(u.northing) else {
            throw .northingOutOfRange(u.northing, hemisphere: u.zone.hemisphere, allowed: r)
        }
    }

    /// The standard zone number for a location, including the 32V and Svalbard exceptions.
    public static func standardZoneNumber(latitude: Double, longitude: Double) -> Int {
        let lon = normalizedLongitude(longitude)
        let ilon = Int(lon.rounded(.down))
        var zone = (ilon + 186) / 6
        let ilat = Int(latitude.rounded(.down))
        let band = Swift.max(-10, Swift.min(9, (ilat + 80) / 8 - 10))
        if band == 7 && zone == 31 && ilon >= 3 {
            zone = 32  // 32V: Norway's south-west coast, 56–64°N, 3–12°E
        } else if band == 9 && ilon >= 0 && ilon < 42 {
            zone = 2 * ((ilon + 183) / 12) + 1  // Svalbard: 31X, 33X, 35X, 37X
        }
        return Swift.min(60, Swift.max(1, zone))
    }

    /// The standard zone (number and hemisphere) for a location.
    public static func standardZone(latitude: Double, longitude: Double) throws(GeodesyError) -> UTMZone {
        try UTMZone(
            number: standardZoneNumber(latitude: latitude, longitude: longitude),
            hemisphere: latitude >= 0 ? .north : .south)
    }

    /// Converts a geodetic position to UTM.
    /// - Parameters:
    ///   - zone: a forced zone number (1…60) to use instead of the standard one, e.g. to keep a test area that straddles
    ///     a zone edge in one grid; the hemisphere still follows the latitude unless `hemisphere` is given.
    ///   - hemisphere: a forced hemisphere (northings may then be negative or above 10 000 km).
    /// - Throws: latitude outside −90…90, latitude outside 80°S…84°N without a forced zone, or a point more than
    ///   ``maxForcedZoneOffset`` degrees from the forced zone's central meridian, or a forced zone/hemisphere whose result
    ///   falls outside the legal easting/northing ranges (``checkGrid(_:)``).
    public static func forward(_ p: GeodeticCoordinate, zone: Int? = nil, hemisphere: Hemisphere? = nil)
        throws(GeodesyError) -> UTMCoordinate
    {
        guard p.latitude.isFinite, (-90...90).contains(p.latitude) else { throw .latitudeOutOfRange(p.latitude) }
        guard p.longitude.isFinite else { throw .longitudeNotFinite(p.longitude) }
        let number: Int
        if let zone {
            guard (1...60).contains(zone) else { throw .zoneOutOfRange(zone) }
            guard abs(p.latitude) < 90 else { throw .latitudeOutsideUTM(p.latitude) }
            number = zone
        } else {
            guard latitudeDomain.contains(p.latitude) else { throw .latitudeOutsideUTM(p.latitude) }
            number = standardZoneNumber(latitude: p.latitude, longitude: p.longitude)
        }
        let z = try UTMZone(number: number, hemisphere: hemisphere ?? (p.latitude >= 0 ? .north : .south))
        let dlon = normalizedLongitude(p.longitude - z.centralMeridian)
        guard abs(dlon) <= maxForcedZoneOffset else {
            throw .tooFarFromZone(longitude: p.longitude, zone: number, maxDegrees: maxForcedZoneOffset)
        }
        let (x, y) = TransverseMercator.utm.forward(latitude: p.latitude, longitudeFromCentralMeridian: dlon)
        let u = UTMCoordinate(
            zone: z, easting: x + falseEasting, northing: y + (z.hemisphere == .south ? falseNorthingSouth : 0))
        if zone != nil || hemisphere != nil { try checkGrid(u) }
        return u
    }

    /// Converts a UTM position back to geodetic latitude and longitude (altitude is passed through).
    /// - Throws: easting or northing not finite or outside the legal ranges (``checkGrid(_:)``).
    public static func inverse(_ u: UTMCoordinate, altitude: Double = 0) throws(GeodesyError) -> GeodeticCoordinate {
        try checkGrid(u)
        let x = u.easting - falseEasting
        let y = u.northing - (u.zone.hemisphere == .south ? falseNorthingSouth : 0)
        let (lat, dlon) = TransverseMercator.utm.inverse(x: x, y: y)
        return GeodeticCoordinate(
            latitude: lat, longitude: normalizedLongitude(dlon + u.zone.centralMeridian), altitude: altitude)
    }
}

extension GeodeticCoordinate {
    /// This position in its standard UTM zone (or in `zone` when forced).
    public func utm(zone: Int? = nil) throws(GeodesyError) -> UTMCoordinate {
        try UTM.forward(self, zone: zone)
    }
}

extension UTMCoordinate {
    /// This grid position as latitude and longitude.
    public func geodetic(altitude: Double = 0) throws(GeodesyError) -> GeodeticCoordinate {
        try UTM.inverse(self, altitude: altitude)
    }
}
