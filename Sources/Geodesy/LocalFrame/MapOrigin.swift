/// The per-session map offset of a field mission: the origin of the test area and the UTM zone every node uses.
///
/// Local positions are UTM grid coordinates minus the origin's easting and northing (and altitude minus the
/// origin's altitude) — the convention of field teams working on UTM maps. The zone is fixed when the origin is
/// created (standard for the origin, or forced), so a test area that straddles a zone edge stays in one grid.
/// Grid north differs from true north by the meridian convergence and grid distances carry the UTM scale
/// factor (0.9996 on the central meridian, up to about 1.0010 at a zone edge); both are constant to
/// better than 1e-4 across a few-kilometre test area.
///
/// `MapOrigin` is `Codable` so a station can share it with the mesh; decoding re-derives the grid offset from the
/// latitude and longitude, so every node computes the same origin from the same three numbers and zone.
public struct MapOrigin: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Origin latitude and longitude (degrees) and altitude (metres).
    public let coordinate: GeodeticCoordinate
    /// The zone of the map grid.
    public let zone: UTMZone
    /// The origin's easting in ``zone``, metres.
    public let easting: Double
    /// The origin's northing in ``zone``, metres.
    public let northing: Double

    /// Creates an origin at a geodetic position, in its standard zone or in `forcedZone`.
    public init(_ coordinate: GeodeticCoordinate, forcedZone: Int? = nil) throws(GeodesyError) {
        let checked = try GeodeticCoordinate.validated(
            latitude: coordinate.latitude, longitude: coordinate.longitude, altitude: coordinate.altitude)
        let u = try UTM.forward(checked, zone: forcedZone)
        self.coordinate = checked
        self.zone = u.zone
        self.easting = u.easting
        self.northing = u.northing
    }

    /// Creates an origin at latitude/longitude (degrees) and altitude (metres).
    public init(latitude: Double, longitude: Double, altitude: Double = 0, forcedZone: Int? = nil) throws(GeodesyError)
    {
        try self.init(
            GeodeticCoordinate(latitude: latitude, longitude: longitude, altitude: altitude), forcedZone: forcedZone)
    }

    /// Local map position of a geodetic coordinate (projected in the origin's zone).
    public func local(_ p: GeodeticCoordinate) throws(GeodesyError) -> LocalPosition {
        let u = try UTM.forward(p, zone: zone.number, hemisphere: zone.hemisphere)
        return LocalPosition(
            east: u.easting - easting, north: u.northing - northing, up: p.altitude - coordinate.altitude)
    }

    /// Local map position of a UTM coordinate in the origin's zone; other zones are converted through latitude/longitude.
    public func local(_ u: UTMCoordinate, altitude: Double) throws(GeodesyError) -> LocalPosition {
        if u.zone == zone {
            return LocalPosition(
                east: u.easting - easting, north: u.northing - northing, up: altitude - coordinate.altitude)
        }
        return try local(UTM.inverse(u, altitude: altitude))
    }

    /// The UTM coordinate (in the origin's zone) of a local position.
    public func utm(_ p: LocalPosition) -> UTMCoordinate {
        UTMCoordinate(zone: zone, easting: easting + p.east, northing: northing + p.north)
    }

    /// The geodetic coordinate of a local position. Never throws for positions within ±1000 km of the origin.
    public func geodetic(_ p: LocalPosition) -> GeodeticCoordinate {
        let x = easting + p.east - UTM.falseEasting
        let y = northing + p.north - (zone.hemisphere == .south ? UTM.falseNorthingSouth : 0)
        let (lat, dlon) = TransverseMercator.utm.inverse(x: x, y: y)
        var lon = (dlon + zone.centralMeridian).truncatingRemainder(dividingBy: 360)
        if lon >= 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return GeodeticCoordinate(latitude: lat, longitude: lon, altitude: coordinate.altitude + p.up)
    }

    /// `origin 59.1234567, 10.1234567, 0.000 (32N 590000.000 6550000.000)`.
    public var description: String {
        "origin \(coordinate) (\(zone) \(formatFixed(easting, 3)) \(formatFixed(northing, 3)))"
    }

    private enum CodingKeys: String, CodingKey { case latitude, longitude, altitude, zone }

    /// Decodes `{"latitude":…,"longitude":…,"altitude":…,"zone":"32N"}`; the zone is optional (standard zone when absent).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let lat = try c.decode(Double.self, forKey: .latitude)
        let lon = try c.decode(Double.self, forKey: .longitude)
        let alt = try c.decodeIfPresent(Double.self, forKey: .altitude) ?? 0
        let zone = try c.decodeIfPresent(UTMZone.self, forKey: .zone)
        do {
            try self.init(GeodeticCoordinate(latitude: lat, longitude: lon, altitude: alt), forcedZone: zone?.number)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .latitude, in: c, debugDescription: "map origin: \(error)")
        }
        if let zone, zone.hemisphere != self.zone.hemisphere {
            throw DecodingError.dataCorruptedError(
                forKey: .zone, in: c,
                debugDescription: "map origin: zone \(zone) has the wrong hemisphere for latitude \(lat)")
        }
    }

    /// Encodes latitude, longitude, altitude and zone.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coordinate.latitude, forKey: .latitude)
        try c.encode(coordinate.longitude, forKey: .longitude)
        try c.encode(coordinate.altitude, forKey: .altitude)
        try c.encode(zone, forKey: .zone)
    }
}
