import Determinism
import Foundation
import MeshTypes
import Testing

@testable import Coordinator

/// Predictions' paths coded by second differences (PROTOCOL.md §7.3, flags bit 2): lossless, and a few bytes a point.
@Suite struct DeltaCodedPathTests {
    static let bcast = Envelope(
        origin: NodeID(high: 1, low: 2), originIncarnation: 1, sequence: 3, destination: .broadcast, ttl: 8)

    static func encoded(_ points: [GeoPoint]) -> (type: UInt16, payload: [UInt8]) {
        CoordinatorMessage.routed(bcast, .prediction(uavNumber: 7, prediction: TrajectoryPrediction(points: points)))
            .encode()
    }

    /// 40 points of a drone flying `speed` m/s on a circle of `radius` m (a straight line when nil), climbing 1 m/s.
    static func path(speed: Double, radius: Double?) -> [GeoPoint] {
        (1...40).map { i in
            let t = Double(i) * 0.2
            let (e, n): (Double, Double) =
                radius.map { r in (r * sin(speed * t / r), r - r * cos(speed * t / r)) } ?? (speed * t, 0)
            return GeoPoint(latitude: 50.0755 + n / 111_200, longitude: 14.4378 + e / 71_400, altitude: 10 + t)
        }
    }

    @Test("a steady or turning flight's 40 points cost about 3 bytes each, and come back exactly")
    func steadyAndTurningPathsAreSmallAndExact() throws {
        for (speed, radius) in [(5.0, nil), (12.0, nil), (5.0, 20.0), (12.0, 30.0)] as [(Double, Double?)] {
            let points = Self.path(speed: speed, radius: radius)
            let m = Self.encoded(points)
            // Envelope 34, number 1, flags 1, step 2, count 1, first point 12, then the coded steps.
            #expect(m.payload[35] & 4 != 0)
            let pathBytes = m.payload.count - 34 - 1 - 1 - 2 - 1 - 12
            #expect(pathBytes <= 39 * 4, "\(speed) m/s radius \(radius ?? 0): \(pathBytes) bytes for 39 points")
            #expect(m.payload.count < 485 / 2)
            let back = try CoordinatorMessage(type: m.type, payload: m.payload)
            #expect(
                back == .routed(Self.bcast, .prediction(uavNumber: 7, prediction: TrajectoryPrediction(points: points)))
            )
        }
    }

    @Test("random paths, jumps and the extremes of every field come back exactly; whole points where coding is longer")
    func randomPathsRoundTrip() throws {
        var rng = SeededRandom(seed: 42)
        for round in 0..<300 {
            let count = Int.random(in: 0...255, using: &rng)
            let wild = round % 3 == 0
            var points: [GeoPoint] = []
            var p = GeoPoint(latitudeE7: 0, longitudeE7: 0, altitudeMillimetres: 0)
            for _ in 0..<count {
                if wild || points.isEmpty {
                    p = GeoPoint(
                        latitudeE7: Int32.random(in: -900_000_000...900_000_000, using: &rng),
                        longitudeE7: Int32.random(in: -1_800_000_000...1_800_000_000, using: &rng),
                        altitudeMillimetres: Int32.random(in: Int32.min...Int32.max, using: &rng))
                } else {
                    p.latitudeE7 = max(
                        -900_000_000, min(900_000_000, p.latitudeE7 &+ Int32.random(in: -500...500, using: &rng)))
                    p.longitudeE7 = max(
                        -1_800_000_000, min(1_800_000_000, p.longitudeE7 &+ Int32.random(in: -500...500, using: &rng)))
                    p.altitudeMillimetres = p.altitudeMillimetres &+ Int32.random(in: -300...300, using: &rng)
                }
                points.append(p)
            }
            let m = Self.encoded(points)
            #expect(m.payload.count <= 34 + 1 + 1 + 2 + 1 + 12 * count)
            let back = try CoordinatorMessage(type: m.type, payload: m.payload)
            #expect(
                back == .routed(Self.bcast, .prediction(uavNumber: 7, prediction: TrajectoryPrediction(points: points)))
            )
        }
    }

    @Test("a malformed coded path is refused naming the point and the field")
    func malformedCodedPathsAreRefused() throws {
        let m = Self.encoded(Self.path(speed: 5, radius: 20))
        // Cut inside the coded steps.
        let cut = Array(m.payload.prefix(34 + 1 + 1 + 2 + 1 + 12 + 10))
        let e1 = #expect(throws: WireError.self) { try CoordinatorMessage(type: m.type, payload: cut) }
        #expect(e1?.reason.contains("prediction.points[") == true, "\(e1?.reason ?? "")")
        // A varint that never ends.
        var endless = Array(m.payload.prefix(34 + 1 + 1 + 2 + 1 + 12))
        endless += Array(repeating: 0xFF, count: 11)
        let e2 = #expect(throws: WireError.self) { try CoordinatorMessage(type: m.type, payload: endless) }
        #expect(e2?.reason.contains("prediction.points[1].latitudeE7") == true, "\(e2?.reason ?? "")")
        #expect(e2?.reason.contains("varint longer than 64 bits") == true, "\(e2?.reason ?? "")")
        // A step that leaves the latitude range: first point at 89.99°, then +1° per step.
        let north = [
            GeoPoint(latitudeE7: 899_900_000, longitudeE7: 0, altitudeMillimetres: 0),
            GeoPoint(latitudeE7: 899_900_001, longitudeE7: 0, altitudeMillimetres: 0),
        ]
        var over = Self.encoded(north).payload
        // The second point's latitude change (zigzag 2 = +1) becomes +10⁷ (zigzag 20,000,000: a 4-byte varint).
        over.removeLast(3)
        var w = WireWriter()
        DeltaCodedPath.writeVarint(DeltaCodedPath.zigzag(10_000_000), to: &w)
        over += w.bytes + [0, 0]
        let e3 = #expect(throws: WireError.self) { try CoordinatorMessage(type: 0x5202, payload: over) }
        #expect(e3?.reason.contains("prediction.points[1].latitudeE7") == true, "\(e3?.reason ?? "")")
        #expect(e3?.reason.contains("leaves the range") == true, "\(e3?.reason ?? "")")
    }
}
