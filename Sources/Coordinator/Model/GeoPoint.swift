/// A WGS-84 position in MAVLink's fixed-point units: degrees × 10⁷ and millimetres above the home/takeoff reference.
public struct GeoPoint: Hashable, Sendable {
    /// Latitude in degrees × 10⁷.
    public var latitudeE7: Int32
    /// Longitude in degrees × 10⁷.
    public var longitudeE7: Int32
    /// Altitude in millimetres.
    public var altitudeMillimetres: Int32

    /// A position from fixed-point fields.
    public init(latitudeE7: Int32, longitudeE7: Int32, altitudeMillimetres: Int32) {
        self.latitudeE7 = latitudeE7
        self.longitudeE7 = longitudeE7
        self.altitudeMillimetres = altitudeMillimetres
    }

    /// A position from degrees and metres (rounded to the wire resolution: ~1 cm horizontally, 1 mm vertically).
    public init(latitude: Double, longitude: Double, altitude: Double) {
        self.latitudeE7 = Int32(clamping: Int64((latitude * 1e7).rounded()))
        self.longitudeE7 = Int32(clamping: Int64((longitude * 1e7).rounded()))
        self.altitudeMillimetres = Int32(clamping: Int64((altitude * 1000).rounded()))
    }

    /// Latitude in degrees.
    public var latitude: Double { Double(latitudeE7) / 1e7 }
    /// Longitude in degrees.
    public var longitude: Double { Double(longitudeE7) / 1e7 }
    /// Altitude in metres.
    public var altitude: Double { Double(altitudeMillimetres) / 1000 }
}
