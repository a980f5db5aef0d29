import Geodesy

/// `GeoPoint` is the wire form of a `GeodeticCoordinate` (fixed point, as MAVLink carries positions): these are the
/// one conversion between the two.
extension GeoPoint {
    /// The wire form of `coordinate`, rounded to the wire's resolution (about 1 cm horizontally, 1 mm vertically).
    public init(_ coordinate: GeodeticCoordinate) {
        self.init(latitude: coordinate.latitude, longitude: coordinate.longitude, altitude: coordinate.altitude)
    }

    /// The position as a geodetic coordinate, for geometry (Geodesy).
    public var geodetic: GeodeticCoordinate {
        GeodeticCoordinate(latitude: latitude, longitude: longitude, altitude: altitude)
    }
}
