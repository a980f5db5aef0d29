import Foundation
import Testing

@testable import Geodesy

@Suite("UTM against GeographicLib")
struct UTMTests {
    @Test("forward conversion within 1 µm of GeoConvert in every zone and both hemispheres")
    func forwardMatchesGeographicLib() throws {
        let rows = try ReferenceVectors.rows("utm-vectors")
        #expect(rows.count > 400)
        var zonesSeen = Set<String>()
        var worst = 0.0
        for row in rows {
            let lat = try #require(Double(row[0])), lon = try #require(Double(row[1]))
            let forced = Int(row[2])
            let u = try UTM.forward(GeodeticCoordinate(latitude: lat, longitude: lon), zone: forced)
            #expect(try u.zone == UTMZone(parsing: row[3]), "zone for \(lat), \(lon)")
            let e = try #require(Double(row[4])), n = try #require(Double(row[5]))
            worst = max(worst, abs(u.easting - e), abs(u.northing - n))
            #expect(abs(u.easting - e) < 1e-6, "easting \(u.easting) vs \(e) at \(lat), \(lon)")
            #expect(abs(u.northing - n) < 1e-6, "northing \(u.northing) vs \(n) at \(lat), \(lon)")
            zonesSeen.insert(u.zone.description)
        }
        #expect(zonesSeen.count == 120, "all 60 zones in both hemispheres")
        #expect(worst < 1e-6)
    }

    @Test("inverse conversion within 1 µm (1e-11°) of GeographicLib and round trip")
    func inverseMatchesGeographicLib() throws {
        for row in try ReferenceVectors.rows("utm-vectors") {
            let lat = try #require(Double(row[0])), lon = try #require(Double(row[1]))
            let zone = try UTMZone(parsing: row[3])
            let u = UTMCoordinate(
                zone: zone, easting: try #require(Double(row[4])), northing: try #require(Double(row[5])))
            let g = try UTM.inverse(u)
            #expect(abs(g.latitude - lat) < 1e-11, "lat \(g.latitude) vs \(lat)")
            let dlon = abs(g.longitude - lon).truncatingRemainder(dividingBy: 360)
            #expect(min(dlon, 360 - dlon) * cos(lat * .pi / 180) < 1e-11, "lon \(g.longitude) vs \(lon)")
            let back = try UTM.forward(g, zone: zone.number, hemisphere: zone.hemisphere)
            #expect(abs(back.easting - u.easting) < 1e-6 && abs(back.northing - u.northing) < 1e-6)
        }
    }

    @Test(
        "Norway 32V and Svalbard 31X/33X/35X/37X exceptions",
        arguments: [
            (60.5, 2.99, 31), (60.5, 3.0, 32), (60.5, 11.99, 32), (60.5, 12.0, 33), (55.99, 3.5, 31), (64.0, 3.5, 31),
            (72.0, 8.99, 31), (72.0, 9.0, 33), (78.0, 20.99, 33), (78.0, 21.0, 35), (83.9, 32.99, 35), (83.9, 33.0, 37),
            (80.0, 41.99, 37), (80.0, 42.0, 38), (83.99, 3.0, 31), (71.99, 9.0, 32), (78.0, -0.01, 30),
        ])
    func zoneExceptions(lat: Double, lon: Double, zone: Int) throws {
        #expect(UTM.standardZoneNumber(latitude: lat, longitude: lon) == zone)
        #expect(try UTM.forward(GeodeticCoordinate(latitude: lat, longitude: lon)).zone.number == zone)
    }

    @Test("zone boundaries and longitude wrap")
    func zoneBoundaries() throws {
        #expect(UTM.standardZoneNumber(latitude: 0, longitude: -180) == 1)
        #expect(UTM.standardZoneNumber(latitude: 0, longitude: 180) == 1)
        #expect(UTM.standardZoneNumber(latitude: 0, longitude: 179.999) == 60)
        #expect(UTM.standardZoneNumber(latitude: 0, longitude: 0) == 31)
        #expect(UTM.standardZoneNumber(latitude: 0, longitude: -0.0001) == 30)
        #expect(try UTM.forward(GeodeticCoordinate(latitude: -0.0, longitude: 3)).zone.hemisphere == .north)
        #expect(try UTM.forward(GeodeticCoordinate(latitude: -1e-9, longitude: 3)).zone.hemisphere == .south)
    }

    @Test("forced zone keeps a site straddling a zone edge in one grid")
    func forcedZone() throws {
        // 12.0°E is the 32/33 edge at 48°N.
        let west = GeodeticCoordinate(latitude: 48, longitude: 11.999)
        let east = GeodeticCoordinate(latitude: 48, longitude: 12.001)
        #expect(try UTM.forward(east).zone.number == 33)
        let forced = try UTM.forward(east, zone: 32)
        #expect(forced.zone.number == 32)
        let w = try UTM.forward(west)
        // ~149 m apart; in one grid their grid distance is the true distance times the point scale 3° off the central meridian.
        let d = try Geodesic.distance(from: west, to: east)
        let k = 0.9996 * (1 + pow(3 * Double.pi / 180 * cos(48 * Double.pi / 180), 2) / 2)
        let grid =
            ((forced.easting - w.easting) * (forced.easting - w.easting) + (forced.northing - w.northing)
                * (forced.northing - w.northing))
            .squareRoot()
        #expect(abs(grid - d * k) < 0.001)
        #expect(
            abs(grid - d) > 0.02,
            "the standard zone of the east point would give a 100 km jump; the forced one is continuous")
        let back = try UTM.inverse(forced)
        #expect(abs(back.longitude - 12.001) < 1e-11 && abs(back.latitude - 48) < 1e-11)
        #expect(throws: GeodesyError.tooFarFromZone(longitude: 80, zone: 32, maxDegrees: 35)) {
            try UTM.forward(GeodeticCoordinate(latitude: 10, longitude: 80), zone: 32)
        }
        #expect(throws: GeodesyError.zoneOutOfRange(61)) {
            try UTM.forward(GeodeticCoordinate(latitude: 10, longitude: 10), zone: 61)
        }
        // A forced zone also lifts the 84°N limit.
        #expect(try UTM.forward(GeodeticCoordinate(latitude: 86, longitude: 10), zone: 32).northing > 9_000_000)
    }

    @Test("bad input is rejected with a precise error")
    func badInput() throws {
        #expect(throws: GeodesyError.latitudeOutOfRange(91)) {
            try UTM.forward(GeodeticCoordinate(latitude: 91, longitude: 0))
        }
        #expect(throws: GeodesyError.latitudeOutsideUTM(84)) {
            try UTM.forward(GeodeticCoordinate(latitude: 84, longitude: 0))
        }
        #expect(throws: GeodesyError.latitudeOutsideUTM(85)) {
            try UTM.forward(GeodeticCoordinate(latitude: 85, longitude: 0))
        }
        #expect(throws: GeodesyError.latitudeOutsideUTM(-80.5)) {
            try UTM.forward(GeodeticCoordinate(latitude: -80.5, longitude: 0))
        }
        #expect(throws: GeodesyError.self) { try UTM.forward(GeodeticCoordinate(latitude: .nan, longitude: 0)) }
        #expect(throws: GeodesyError.longitudeNotFinite(.infinity)) {
            try UTM.forward(GeodeticCoordinate(latitude: 0, longitude: .infinity))
        }
        #expect(throws: GeodesyError.self) {
            try UTM.inverse(UTMCoordinate(zone: try UTMZone(number: 1, hemisphere: .north), easting: .nan, northing: 0))
        }
        // GeographicLib's legal ranges: `echo 33s 500000 -5 | GeoConvert -g` → "Northing -0.005km not in UTM range for S hemisphere [900km, 19600km]".
        let s33 = try UTMZone(parsing: "33S"), n33 = try UTMZone(parsing: "33N")
        #expect(throws: GeodesyError.northingOutOfRange(-5, hemisphere: .south, allowed: 900_000...19_600_000)) {
            try UTM.inverse(UTMCoordinate(zone: s33, easting: 500_000, northing: -5))
        }
        #expect(throws: GeodesyError.northingOutOfRange(9_700_000, hemisphere: .north, allowed: -9_100_000...9_600_000))
        {
            try UTM.inverse(UTMCoordinate(zone: n33, easting: 500_000, northing: 9_700_000))
        }
        #expect(throws: GeodesyError.eastingOutOfRange(-1, allowed: 0...1_000_000)) {
            try UTM.inverse(UTMCoordinate(zone: n33, easting: -1, northing: 5_000_000))
        }
        #expect(try UTM.inverse(UTMCoordinate(zone: n33, easting: 0, northing: 5_000_000)).longitude < 9)
        // A forced zone whose easting leaves the legal range is refused, as GeoConvert -z does.
        #expect(throws: GeodesyError.self) {
            try UTM.forward(GeodeticCoordinate(latitude: -2.4, longitude: -15.14), zone: 27)
        }
    }

    @Test("zone text parsing", arguments: ["33N", "33n", " 7S", "60s", "1N"])
    func zoneParsing(text: String) throws {
        let z = try UTMZone(parsing: text)
        #expect(z.description == text.trimmingCharacters(in: .whitespaces).uppercased())
    }

    @Test("bad zone text", arguments: ["", "N", "33", "33X", "61N", "0S", "-3N", "3 3N", "abN"])
    func badZoneText(text: String) {
        #expect(throws: GeodesyError.self) { try UTMZone(parsing: text) }
        #expect(UTMZone(text) == nil)
    }

    @Test("fast Clenshaw series equals the naive per-term series")
    func naiveBaselineAgrees() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let lat = Double.random(in: -80...84, using: &rng), dlon = Double.random(in: -4...4, using: &rng)
            let fast = TransverseMercator.utm.forward(latitude: lat, longitudeFromCentralMeridian: dlon)
            let naive = TransverseMercator.naiveForward(
                ellipsoid: .wgs84, scaleFactor: 0.9996, latitude: lat, longitudeFromCentralMeridian: dlon)
            #expect(abs(fast.x - naive.x) < 1e-8 && abs(fast.y - naive.y) < 1e-8)
        }
    }
}
