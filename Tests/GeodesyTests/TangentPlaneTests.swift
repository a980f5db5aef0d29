import Foundation
import Testing

@testable import Geodesy

@Suite("ECEF and tangent-plane ENU against CartConvert")
struct TangentPlaneTests {
    // Reference values printed by GeographicLib's `CartConvert -p 9` and `CartConvert -l 59.9 10.7 100 -p 9`.
    @Test(
        "ECEF within 1 µm of CartConvert, and back",
        arguments: [
            (-33.8568, 151.2153, 5.0, -4646972.276464276, 2553078.919527071, -3533269.913085934),
            (0.001, -0.002, -20.0, 6378116.995149289, -222.638283376, 110.573926750),
        ])
    func ecef(lat: Double, lon: Double, h: Double, x: Double, y: Double, z: Double) {
        let e = ECEF(GeodeticCoordinate(latitude: lat, longitude: lon, altitude: h))
        #expect(abs(e.x - x) < 1e-6 && abs(e.y - y) < 1e-6 && abs(e.z - z) < 1e-6)
        let g = e.geodetic()
        #expect(abs(g.latitude - lat) < 1e-12 && abs(g.longitude - lon) < 1e-12 && abs(g.altitude - h) < 1e-6)
    }

    @Test(
        "local ENU within 1 µm of CartConvert -l, and back",
        arguments: [
            (59.901, 10.702, 130.0, 111.935541075, 111.414553876, 29.998047966),
            (59.8, 10.5, 90.0, -11227.426347274, -11124.171706461, -29.549834750),
            (59.95, 10.9, 400.0, 11177.512454739, 5587.776721307, 287.785531742),
        ])
    func enu(lat: Double, lon: Double, h: Double, e: Double, n: Double, u: Double) {
        let plane = TangentPlane(origin: GeodeticCoordinate(latitude: 59.9, longitude: 10.7, altitude: 100))
        let l = plane.local(GeodeticCoordinate(latitude: lat, longitude: lon, altitude: h))
        #expect(abs(l.east - e) < 1e-6 && abs(l.north - n) < 1e-6 && abs(l.up - u) < 1e-6)
        let g = plane.geodetic(l)
        #expect(abs(g.latitude - lat) < 1e-11 && abs(g.longitude - lon) < 1e-11 && abs(g.altitude - h) < 1e-6)
    }

    @Test("UTM map frame and tangent plane differ by the grid convergence and scale, not more")
    func mapFrameVersusTangentPlane() throws {
        let origin = try MapOrigin(latitude: 59.9, longitude: 10.7, altitude: 100)
        let plane = TangentPlane(origin: origin.coordinate)
        let p = origin.geodetic(LocalPosition(east: 0, north: 1000, up: 0))
        let t = plane.local(p)
        // 1.7° east of the central meridian at 59.9°N: convergence γ ≈ Δλ·sin φ ≈ 1.47°, so "grid north" leans ~26 m east
        // of true north over 1 km; the point scale k ≈ k0(1 + (Δλ·cos φ)²/2) makes 1 km of grid ≈ 1000.29 m on the ground.
        let dlon = 1.7 * Double.pi / 180, phi = 59.9 * Double.pi / 180
        let gamma = atan(tan(dlon) * sin(phi))
        let k = 0.9996 * (1 + pow(dlon * cos(phi), 2) / 2)
        #expect(abs(t.east - 1000 * sin(gamma)) < 0.5, "east \(t.east)")
        #expect(abs((t.east * t.east + t.north * t.north).squareRoot() - 1000 / k) < 0.05)
    }
}
