import Determinism
import Foundation
import MeshTypes
import Testing

@testable import Coordinator

/// Predictions' paths coded by second differences in runs (PROTOCOL.md §7.3, flags bit 2): within a few centimetres,
/// and a few bytes for a whole steady flight.
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

    /// Whether every point of `b` lies within the predictions' tolerance of the same point of `a`.
    static func close(_ a: [GeoPoint], _ b: [GeoPoint]) -> Bool {
        let t = DeltaCodedPath.Tolerance.prediction
        return a.count == b.count
            && zip(a, b).allSatisfy { p, q in
                abs(Int64(p.latitudeE7) - Int64(q.latitudeE7)) <= t.latitudeE7
                    && abs(Int64(p.longitudeE7) - Int64(q.longitudeE7)) <= t.longitudeE7
                    && abs(Int64(p.altitudeMillimetres) - Int64(q.altitudeMillimetres)) <= t.altitudeMillimetres
            }
    }

    static func decodedPoints(_ m: (type: UInt16, payload: [UInt8])) throws -> [GeoPoint] {
        guard case .routed(_, .prediction(_, let p)) = try CoordinatorMessage(type: m.type, payload: m.payload) else {
            Issue.record("not a prediction")
            return []
        }
        return p.points
    }

    @Test("a steady or turning flight's 40 points take a few bytes each at most, and come back within the tolerance")
    func steadyAndTurningPathsAreSmallAndClose() throws {
        for (speed, radius, most) in [(5.0, nil, 12), (12.0, nil, 16), (5.0, 20.0, 70), (12.0, 30.0, 150)]
            as [(Double, Double?, Int)]
        {
            let points = Self.path(speed: speed, radius: radius)
            let m = Self.encoded(points)
            // Envelope 34, number 1, flags 1, step 2, count 1, first point 12, then the coded steps.
            #expect(m.payload[35] & 4 != 0)
            let pathBytes = m.payload.count - 34 - 1 - 1 - 2 - 1 - 12
            #expect(pathBytes <= most, "\(speed) m/s radius \(radius ?? 0): \(pathBytes) bytes for 39 points")
            let back = try Self.decodedPoints(m)
            #expect(
                Self.close(points, back), "\(speed) m/s radius \(radius ?? 0): \(zip(points, back).map { ($0, $1) })")
            // Measured: 7, 11, 59 and 142 bytes. Lossless coding of the same path costs more (23, 47, 158, 158): every
            // rounding of a step to whole units is a change.
            var exact = WireWriter()
            DeltaCodedPath.write(points, tolerance: .exact, to: &exact)
            #expect(exact.bytes.count > pathBytes + 13, "lossless \(exact.bytes.count) bytes, coded \(pathBytes)")
        }
        // A hover: 40 equal points are the first and one run.
        let hover = Array(repeating: GeoPoint(latitude: 50.0755, longitude: 14.4378, altitude: 10), count: 40)
        let m = Self.encoded(hover)
        #expect(m.payload.count == 34 + 1 + 1 + 2 + 1 + 12 + 1)
        #expect(try Self.decodedPoints(m) == hover)
    }

    @Test(
        "random paths, jumps and the extremes of every field come back within the tolerance, and exactly when coded losslessly"
    )
    func randomPathsRoundTrip() throws {
        var rng = SeededRandom(seed: 42)
        for round in 0..<300 {
            let count = Int.random(in: 0...255, using: &rng)
            let wild = round % 3 == 0
            let edge = round % 5 == 1
            var points: [GeoPoint] = []
            var p = GeoPoint(latitudeE7: 0, longitudeE7: 0, altitudeMillimetres: 0)
            for _ in 0..<count {
                if wild || points.isEmpty {
                    p = GeoPoint(
                        latitudeE7: Int32.random(in: -900_000_000...900_000_000, using: &rng),
                        longitudeE7: Int32.random(in: -1_800_000_000...1_800_000_000, using: &rng),
                        altitudeMillimetres: Int32.random(in: Int32.min...Int32.max, using: &rng))
                    if edge {
                        // At the ends of every range: a coded point within the tolerance must not leave them.
                        p = GeoPoint(
                            latitudeE7: 900_000_000 - Int32.random(in: 0...3, using: &rng),
                            longitudeE7: -1_800_000_000 + Int32.random(in: 0...3, using: &rng),
                            altitudeMillimetres: Int32.max - Int32.random(in: 0...30, using: &rng))
                    }
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
            let back = try Self.decodedPoints(m)
            #expect(Self.close(points, back), "round \(round): \(count) points")
            var w = WireWriter()
            DeltaCodedPath.write(points, tolerance: .exact, to: &w)
            var r = WireReader(w.bytes)
            #expect(try DeltaCodedPath.read(&r, "points") == points, "round \(round), lossless")
            #expect(r.remaining == 0)
        }
    }

    @Test(
        "an independent decoder, written from PROTOCOL.md in Python, reads what the coder writes within the tolerance")
    func pythonDecoderAgrees() throws {
        var rng = SeededRandom(seed: 16)
        var paths = [(5.0, nil), (12.0, nil), (5.0, 20.0), (12.0, 30.0)].map { Self.path(speed: $0, radius: $1) }
        paths.append(Array(repeating: GeoPoint(latitude: -33.9, longitude: 151.2, altitude: 120), count: 40))
        for _ in 0..<40 {
            var p = GeoPoint(
                latitudeE7: Int32.random(in: -899_000_000...899_000_000, using: &rng),
                longitudeE7: Int32.random(in: -1_799_000_000...1_799_000_000, using: &rng),
                altitudeMillimetres: Int32.random(in: -100_000...500_000, using: &rng))
            var path: [GeoPoint] = []
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                p.latitudeE7 += Int32.random(in: -900...900, using: &rng)
                p.longitudeE7 += Int32.random(in: -900...900, using: &rng)
                p.altitudeMillimetres += Int32.random(in: -400...400, using: &rng)
                path.append(p)
            }
            paths.append(path)
        }
        let cases: [[String: Any]] = paths.map { points in
            let body = Self.encoded(points).payload.dropFirst(34)
            return [
                "payload": body.map { String(format: "%02x", $0) }.joined(),
                "points": points.map { [Int($0.latitudeE7), Int($0.longitudeE7), Int($0.altitudeMillimetres)] },
            ]
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: cases).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("decode-prediction-path.py")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [script.path, file.path]
        let pipe = Pipe()
        python.standardOutput = pipe
        python.standardError = pipe
        try python.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        #expect(python.terminationStatus == 0 && output.hasPrefix("OK"), "\(output)")
    }

    @Test("a malformed coded path is refused naming the point and the field")
    func malformedCodedPathsAreRefused() throws {
        let m = Self.encoded(Self.path(speed: 5, radius: 20))
        // Cut inside the coded steps.
        let cut = Array(m.payload.prefix(34 + 1 + 1 + 2 + 1 + 12 + 10))
        let e1 = #expect(throws: WireError.self) { try CoordinatorMessage(type: m.type, payload: cut) }
        #expect(e1?.reason.contains("prediction.points[") == true, "\(e1?.reason ?? "")")
        // A varint that never ends (the first run's length).
        var endless = Array(m.payload.prefix(34 + 1 + 1 + 2 + 1 + 12))
        endless += Array(repeating: 0xFF, count: 11)
        let e2 = #expect(throws: WireError.self) { try CoordinatorMessage(type: m.type, payload: endless) }
        #expect(e2?.reason.contains("prediction.points[1].run") == true, "\(e2?.reason ?? "")")
        #expect(e2?.reason.contains("varint longer than 64 bits") == true, "\(e2?.reason ?? "")")
        // A run longer than the points left.
        var long = Array(m.payload.prefix(34 + 1 + 1 + 2 + 1 + 12))
        long += [40]
        let e3 = #expect(throws: WireError.self) { try CoordinatorMessage(type: m.type, payload: long) }
        #expect(e3?.reason.contains("prediction.points[1].run") == true, "\(e3?.reason ?? "")")
        #expect(e3?.reason.contains("40 unchanged steps, but only 39 points remain") == true, "\(e3?.reason ?? "")")
        // A step that leaves the latitude range: first point at 89.99°, then +1° per step (a run of none, then the
        // second point's latitude change, zigzag 20,000,000: a 4-byte varint, and none for the other two fields).
        var over = Array(
            Self.encoded([GeoPoint(latitudeE7: 899_900_000, longitudeE7: 0, altitudeMillimetres: 0)]).payload)
        over[35] |= 4  // one point goes whole; the first point of a coded path is laid out the same
        over[34 + 1 + 1 + 2] = 3  // count
        var w = WireWriter()
        DeltaCodedPath.writeVarint(0, to: &w)
        DeltaCodedPath.writeVarint(DeltaCodedPath.zigzag(10_000_000), to: &w)
        over += w.bytes + [0, 0]
        let e4 = #expect(throws: WireError.self) { try CoordinatorMessage(type: 0x5202, payload: over) }
        #expect(e4?.reason.contains("prediction.points[1].latitudeE7") == true, "\(e4?.reason ?? "")")
        #expect(e4?.reason.contains("leaves the range") == true, "\(e4?.reason ?? "")")
        // Carried on by a run: a step of 0.006° is within range at point 1 and leaves it at point 2.
        var carried = Array(over.prefix(34 + 1 + 1 + 2 + 1 + 12))
        var w2 = WireWriter()
        DeltaCodedPath.writeVarint(0, to: &w2)
        DeltaCodedPath.writeVarint(DeltaCodedPath.zigzag(60_000), to: &w2)
        carried += w2.bytes + [0, 0, 1]
        let e5 = #expect(throws: WireError.self) { try CoordinatorMessage(type: 0x5202, payload: carried) }
        #expect(e5?.reason.contains("prediction.points[2].latitudeE7") == true, "\(e5?.reason ?? "")")
    }
}
