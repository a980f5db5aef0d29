import Foundation
import Testing

@testable import Geodesy

@Suite("MapOrigin local frame")
struct MapOriginTests {
    let origin = try! MapOrigin(latitude: 59.9, longitude: 10.7, altitude: 120)

    @Test("origin maps to zero and local ↔ geodetic round trips to 1 µm")
    func roundTrip() throws {
        let zero = try origin.local(origin.coordinate)
        #expect(abs(zero.east) < 1e-9 && abs(zero.north) < 1e-9 && zero.up == 0)
        for (e, n, u) in [(100.0, -250.0, 30.0), (-3000, 4000, 0), (0.01, 0.02, -5)] {
            let g = origin.geodetic(LocalPosition(east: e, north: n, up: u))
            let back = try origin.local(g)
            #expect(abs(back.east - e) < 1e-6 && abs(back.north - n) < 1e-6 && abs(back.up - u) < 1e-9)
        }
    }

    @Test("local offsets are UTM grid differences")
    func gridOffsets() throws {
        let p = GeodeticCoordinate(latitude: 59.91, longitude: 10.71, altitude: 150)
        let u = try UTM.forward(p)
        let l = try origin.local(p)
        #expect(l.east == u.easting - origin.easting && l.north == u.northing - origin.northing && l.up == 30)
        #expect(try origin.local(u, altitude: 150) == l)
    }

    @Test("Codable round trip keeps zone; decoding re-derives the grid offset")
    func codable() throws {
        let forced = try MapOrigin(latitude: 48, longitude: 12.001, altitude: 5, forcedZone: 32)
        let data = try JSONEncoder().encode(forced)
        let decoded = try JSONDecoder().decode(MapOrigin.self, from: data)
        #expect(decoded == forced)
        #expect(decoded.zone.description == "32N")
        let json = #"{"latitude": 59.9, "longitude": 10.7}"#
        let plain = try JSONDecoder().decode(MapOrigin.self, from: Data(json.utf8))
        #expect(plain.zone.description == "32N" && plain.coordinate.altitude == 0)
    }

    @Test("decoding a bad origin throws, naming the problem")
    func badOrigin() {
        for json in [
            #"{"latitude": 95, "longitude": 10}"#, #"{"latitude": 50, "longitude": 10, "zone": "32S"}"#,
            #"{"latitude": 50, "longitude": 10, "zone": "77N"}"#, #"{"longitude": 10}"#,
        ] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(MapOrigin.self, from: Data(json.utf8)) }
        }
    }
}
