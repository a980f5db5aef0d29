import Foundation
import Testing

@testable import Geodesy

@Suite("Distance and bearing against GeodSolve")
struct GeodesicTests {
    @Test("Vincenty within 1 mm and 1e-5° of GeographicLib; flat within 1 cm below its limit")
    func matchesGeodSolve() throws {
        let rows = try ReferenceVectors.rows("geodesic-vectors")
        #expect(rows.count == 50)
        var shortLegs = 0
        for row in rows {
            let v = row.compactMap(Double.init)
            try #require(v.count == 7)
            let p1 = GeodeticCoordinate(latitude: v[0], longitude: v[1]),
                p2 = GeodeticCoordinate(latitude: v[2], longitude: v[3])
            let vin = try Geodesic.vincentyInverse(from: p1, to: p2)
            #expect(abs(vin.distance - v[4]) < 1e-3, "\(vin.distance) vs \(v[4])")
            #expect(angleDiff(vin.initialBearing, v[5]) < 1e-5)
            #expect(angleDiff(vin.finalBearing, v[6]) < 1e-5)
            let chosen = try Geodesic.inverse(from: p1, to: p2)
            #expect(abs(chosen.distance - v[4]) < 0.01)
            if v[4] < Geodesic.flatApproximationLimit {
                shortLegs += 1
                let flat = Geodesic.flatInverse(from: p1, to: p2)
                #expect(abs(flat.distance - v[4]) < 0.01, "flat \(flat.distance) vs \(v[4])")
                #expect(angleDiff(flat.initialBearing, v[5]) < 0.01)
            }
        }
        #expect(shortLegs >= 20)
    }

    @Test("flat approximation error at the limit stays below 1 cm at any latitude and bearing")
    func flatLimit() throws {
        for lat in stride(from: -75.0, through: 75, by: 15) {
            for bearing in stride(from: 0.0, to: 360, by: 30) {
                let d = Geodesic.flatApproximationLimit / 111_000
                let p1 = GeodeticCoordinate(latitude: lat, longitude: 20)
                let p2 = GeodeticCoordinate(
                    latitude: lat + d * cos(bearing * .pi / 180),
                    longitude: 20 + d * sin(bearing * .pi / 180) / cos(lat * .pi / 180))
                let exact = try Geodesic.vincentyInverse(from: p1, to: p2).distance
                #expect(abs(Geodesic.flatInverse(from: p1, to: p2).distance - exact) < 0.01)
            }
        }
    }

    @Test("coincident points and antipodal non-convergence")
    func edgeCases() throws {
        let p = GeodeticCoordinate(latitude: 10, longitude: 20)
        #expect(try Geodesic.inverse(from: p, to: p).distance == 0)
        #expect(throws: GeodesyError.geodesicDidNotConverge) {
            try Geodesic.vincentyInverse(
                from: GeodeticCoordinate(latitude: 0, longitude: 0),
                to: GeodeticCoordinate(latitude: 0.5, longitude: 179.7))
        }
    }

    func angleDiff(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }
}
