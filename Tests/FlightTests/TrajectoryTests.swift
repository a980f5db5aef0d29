import Foundation
import Geodesy
import Testing

@testable import Flight

@Suite("Trajectory planning and files")
struct TrajectoryTests {
    let square = [
        Vector3(0, 0, 10), Vector3(100, 0, 10), Vector3(100, 100, 20), Vector3(0, 100, 20), Vector3(0, 0, 10),
    ]

    @Test("consecutive points at most 8 cm apart; speed, acceleration, climb and yaw-rate limits respected")
    func limitsRespected() throws {
        let limits = TrajectoryPlanner.Limits()
        let t = try TrajectoryPlanner().plan(square)
        let p = t.points
        #expect(p.count > 1000)
        #expect(p.first?.position == square[0] && p.last?.position == square[4])
        for i in p.indices.dropFirst() {
            let dt = p[i].time - p[i - 1].time
            #expect(dt > 0 && dt <= 0.02 + 1e-12)
            let step = p[i].position - p[i - 1].position
            #expect(step.length <= 0.08 + 1e-9, "spacing \(step.length) at \(i)")
            #expect(p[i].velocity.length <= limits.maxSpeed + 1e-9)
            #expect(p[i].velocity.z <= limits.maxClimbRate + 1e-9 && p[i].velocity.z >= -limits.maxDescentRate - 1e-9)
            #expect(abs(headingDifference(from: p[i - 1].heading, to: p[i].heading)) / dt <= limits.maxYawRate + 1e-6)
            #expect((p[i].velocity - p[i - 1].velocity).length / dt <= limits.maxAcceleration + 1e-6)
        }
        // Second differences of positions (what a follower sees) stay within the acceleration limit.
        for i in 1..<(p.count - 2) where p[i + 1].time - p[i].time == p[i].time - p[i - 1].time {
            let dt = p[i].time - p[i - 1].time
            let a = (p[i + 1].position - p[i].position * 2 + p[i - 1].position) / (dt * dt)
            #expect(a.length <= limits.maxAcceleration + 1e-3)
        }
        // Passes through every waypoint, at rest.
        for w in square {
            let nearest = p.min { $0.position.distance(to: w) < $1.position.distance(to: w) }!
            #expect(nearest.position.distance(to: w) < 1e-9 && nearest.velocity.length < 1e-9)
        }
        // Reaches cruise speed on the 100 m legs: duration close to length / 4 m/s plus ramps and turns.
        #expect(t.duration > t.length / 4 && t.duration < t.length / 4 + 30)
    }

    @Test("spacing stays under 8 cm when a faster speed is allowed")
    func fastSampling() throws {
        var limits = TrajectoryPlanner.Limits()
        limits.maxSpeed = 10
        let t = try TrajectoryPlanner(limits: limits).plan([Vector3(0, 0, 5), Vector3(500, 0, 5)])
        for i in t.points.indices.dropFirst() {
            #expect(t.points[i].position.distance(to: t.points[i - 1].position) <= 0.08 + 1e-9)
        }
        #expect(t.points.map(\.velocity.x).max()! > 9.99)
    }

    @Test("sample(at:) interpolates and clamps")
    func sampling() throws {
        let t = try TrajectoryPlanner().plan([Vector3(0, 0, 0), Vector3(10, 0, 0)])
        #expect(t.sample(at: -1).position == Vector3(0, 0, 0))
        #expect(t.sample(at: 1e9).position == Vector3(10, 0, 0))
        let mid = t.sample(at: t.duration / 2)
        #expect(abs(mid.position.x - 5) < 0.01)
    }

    @Test("planner rejects bad input")
    func plannerErrors() {
        #expect(throws: TrajectoryError.empty) { try TrajectoryPlanner().plan([Vector3]()) }
        #expect(throws: TrajectoryError.badWaypoint(index: 1, reason: "coordinates must be finite")) {
            try TrajectoryPlanner().plan([Vector3(0, 0, 0), Vector3(.nan, 0, 0)])
        }
        var l = TrajectoryPlanner.Limits()
        l.maxSpeed = 0
        #expect(throws: TrajectoryError.self) {
            try TrajectoryPlanner(limits: l).plan([Vector3(0, 0, 0), Vector3(1, 0, 0)])
        }
        #expect(throws: TrajectoryError.self) {
            try Trajectory(points: [
                TrajectoryPoint(time: 0, position: .zero), TrajectoryPoint(time: 0, position: .zero),
            ])
        }
        #expect(throws: TrajectoryError.empty) { try Trajectory(points: []) }
    }

    @Test("geodetic waypoints are placed through the map origin")
    func geodeticWaypoints() throws {
        let o = Harness.origin
        let wps = [
            o.geodetic(LocalPosition(east: 0, north: 0, up: 10)),
            o.geodetic(LocalPosition(east: 50, north: 20, up: 10)),
        ]
        let t = try TrajectoryPlanner().plan(wps, origin: o)
        #expect(t.end.position.distance(to: Vector3(50, 20, 10)) < 1e-6)
        #expect(throws: TrajectoryError.self) {
            try TrajectoryPlanner().plan([GeodeticCoordinate(latitude: 95, longitude: 0)], origin: o)
        }
    }

    @Test("CSV round trip, local and geodetic")
    func csvRoundTrip() throws {
        let t = try TrajectoryPlanner().plan(square)
        let local = try Trajectory.fromCSV(t.csv())
        #expect(local.points.count == t.points.count)
        for (a, b) in zip(local.points, t.points) {
            #expect(
                a.position.distance(to: b.position) < 1e-4 && abs(a.time - b.time) < 1e-4
                    && a.velocity.distance(to: b.velocity) < 1e-3)
        }
        let geo = try Trajectory.fromCSV(t.csv(origin: Harness.origin), origin: Harness.origin)
        for (a, b) in zip(geo.points, t.points) { #expect(a.position.distance(to: b.position) < 1e-3) }
        // Velocities are derived when the file has none.
        let derived = try Trajectory.fromCSV("time,east,north,up\n0,0,0,0\n1,2,0,0\n2,4,0,0\n")
        #expect(derived.points[1].velocity == Vector3(2, 0, 0))
    }

    @Test(
        "malformed CSV names the line and the field",
        arguments: [
            (
                "time,east,north,up\n0,0,0,0\n1,abc,0,0\n",
                TrajectoryFileError.malformedCSV(line: 3, field: "east", problem: "'abc' is not a number")
            ),
            (
                "time,east,north,up\n0,0,0,0\n1,1,0\n",
                .malformedCSV(line: 3, field: "up", problem: "expected 4 fields, found 3")
            ),
            (
                "time,east,north,up\n# c\n0,0,0,0\n0,1,0,0\n",
                .malformedCSV(line: 4, field: "time", problem: "0.0 does not increase (previous 0.0)")
            ),
            (
                "time,x,y,z\n0,0,0,0\n",
                .malformedCSV(
                    line: 1, field: "x,y,z",
                    problem: "expected columns east,north,up or latitude,longitude,altitude after time")
            ),
            ("t,east,north,up\n", .malformedCSV(line: 1, field: "t", problem: "header must start with 'time'")),
            ("time,east,north,up,speed\n", .malformedCSV(line: 1, field: "speed", problem: "unknown column")),
            (
                "time,east,north,up\n1,0,0,0\n",
                .malformedCSV(line: 2, field: "time", problem: "the first time must be 0, found 1.0")
            ),
            ("time,east,north,up\n0,0,,0\n", .malformedCSV(line: 2, field: "north", problem: "empty value")),
            (
                "time,latitude,longitude,altitude\n0,95,10,0\n",
                .malformedCSV(line: 2, field: "latitude", problem: "95.0 is outside -90…90")
            ),
            ("", .malformedCSV(line: 1, field: "time", problem: "missing header line")),
        ])
    func malformedCSV(text: String, expected: TrajectoryFileError) {
        #expect(throws: expected) { try Trajectory.fromCSV(text, origin: Harness.origin) }
    }

    @Test("geodetic CSV without an origin is refused")
    func needsOrigin() {
        #expect(throws: TrajectoryFileError.needsOrigin) {
            try Trajectory.fromCSV("time,latitude,longitude,altitude\n0,59,10,0\n")
        }
    }

    @Test("GeoJSON round trip")
    func geoJSONRoundTrip() throws {
        let t = try TrajectoryPlanner().plan(square)
        let data = t.geoJSON(origin: Harness.origin)
        let back = try Trajectory.fromGeoJSON(data, origin: Harness.origin)
        #expect(back.points.count == t.points.count)
        for (a, b) in zip(back.points, t.points) {
            #expect(
                a.position.distance(to: b.position) < 1e-6 && abs(a.time - b.time) < 1e-9
                    && abs(a.heading - b.heading) < 1e-9, "\(a) vs \(b)")
        }
        // A bare LineString without times is timed at the default speed.
        let bare = #"{"type":"LineString","coordinates":[[10.7,59.9,110],[10.701,59.9,110]]}"#
        let timed = try Trajectory.fromGeoJSON(Data(bare.utf8), origin: Harness.origin)
        #expect(abs(timed.duration - timed.length / 4) < 1e-9 && timed.points.count == 2)
    }

    @Test(
        "malformed GeoJSON names the member",
        arguments: [
            (
                #"{"type":"Feature"}"#,
                TrajectoryFileError.malformedGeoJSON(path: "geometry", problem: "missing or not an object")
            ),
            (
                #"{"type":"Point"}"#,
                .malformedGeoJSON(path: "type", problem: "expected \"Feature\" or \"LineString\", found \"Point\"")
            ),
            (
                #"{"type":"LineString","coordinates":[[10.7,59.9],[10.7,"x"]]}"#,
                .malformedGeoJSON(path: "coordinates[1][1]", problem: "expected a number")
            ),
            (
                #"{"type":"LineString","coordinates":[[10.7]]}"#,
                .malformedGeoJSON(
                    path: "coordinates[0]", problem: "expected [longitude, latitude] or [longitude, latitude, altitude]"
                )
            ),
            (
                #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[10.7,59.9],[10.7,59.91]]},"properties":{"times":[0]}}"#,
                .malformedGeoJSON(path: "properties.times", problem: "expected 2 values (one per coordinate), found 1")
            ),
            (
                #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[10.7,59.9],[10.7,59.91]]},"properties":{"times":[0,0]}}"#,
                .malformedGeoJSON(path: "properties.times[1]", problem: "times must increase")
            ),
            (
                #"{"type":"LineString","coordinates":[[10.7,99]]}"#,
                .malformedGeoJSON(path: "coordinates[0][1]", problem: "latitude 99.0 outside -90…90")
            ),
            ("[1,2", .malformedGeoJSON(path: "$", problem: "not valid JSON")),
        ])
    func malformedGeoJSON(text: String, expected: TrajectoryFileError) {
        #expect(throws: expected) { try Trajectory.fromGeoJSON(Data(text.utf8), origin: Harness.origin) }
    }
}

@Suite("Trajectory files on disk")
struct TrajectoryFileTests {
    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("flight-\(UUID().uuidString)-\(name)").path
    }

    @Test("save and load by extension", arguments: ["t.csv", "t.geojson", "t.json"])
    func roundTrip(name: String) throws {
        let t = try TrajectoryPlanner().plan([Vector3(0, 0, 5), Vector3(30, 10, 8)])
        let path = temporaryPath(name)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try t.save(path: path, origin: Harness.origin)
        let back = try Trajectory.load(path: path, origin: Harness.origin)
        #expect(back.points.count == t.points.count)
        #expect(back.end.position.distance(to: t.end.position) < 1e-3)
    }

    @Test("errors name the file")
    func errors() throws {
        let path = temporaryPath("bad.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "time,east,north,up\n0,0,0,0\n1,x,0,0\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(
            throws: TrajectoryFileError.inFile(
                path: path, .malformedCSV(line: 3, field: "east", problem: "'x' is not a number"))
        ) {
            try Trajectory.load(path: path, origin: nil)
        }
        do {
            _ = try Trajectory.load(path: path, origin: nil)
        } catch {
            #expect(error.description == "\(path): line 3, field 'east': 'x' is not a number")
        }
        #expect(throws: TrajectoryFileError.unsupportedFormat(path: "a.kml")) {
            try Trajectory.load(path: "a.kml", origin: nil)
        }
        #expect(throws: TrajectoryFileError.self) { try Trajectory.load(path: "/nonexistent/a.csv", origin: nil) }
    }

    @Test("stops: at a waypoint the vehicle turns to the stop's heading at the yaw rate, then holds still")
    func stops() throws {
        let w = [Vector3(0, 0, 10), Vector3(20, 0, 10), Vector3(20, 20, 10)]
        let plain = try TrajectoryPlanner().plan(w)
        let t = try TrajectoryPlanner().plan(
            w, stops: [1: .init(heading: 180, hold: 3), 2: .init(heading: nil, hold: 1)])
        // Facing east along the first leg, the vehicle turns 90° to the south (2 s at 45°/s) and holds 3 s; it then
        // turns to face north along the second leg (180°, 4 s) as before; at the end it holds 1 s more.
        #expect(abs(t.duration - (plain.duration + 2 + 3 + 4 - 2 + 1)) < 0.05, "\(t.duration) vs \(plain.duration)")
        let atCorner = t.points.filter { $0.position == w[1] }
        let facingSouth = atCorner.filter { abs(headingDifference(from: $0.heading, to: 180)) < 1e-6 }
        #expect((facingSouth.last?.time ?? 0) - (facingSouth.first?.time ?? 0) >= 3 - 0.03)
        #expect(t.points.last?.position == w[2])
        let atEnd = t.points.filter { $0.position == w[2] }
        #expect((atEnd.last?.time ?? 0) - (atEnd.first?.time ?? 0) >= 1 - 0.03)
        for i in t.points.indices.dropFirst() {
            #expect((t.points[i].position - t.points[i - 1].position).length <= 0.08 + 1e-9)
        }
        #expect(throws: TrajectoryError.self) { try TrajectoryPlanner().plan(w, stops: [3: .init(hold: 1)]) }
        #expect(throws: TrajectoryError.self) { try TrajectoryPlanner().plan(w, stops: [1: .init(hold: -1)]) }
    }

    @Test("a first waypoint just behind the vehicle is stepped back to, not turned about for (twice)")
    func shortFirstLegKeepsTheHeading() throws {
        // A drone facing north, still 0.5 m past the first waypoint (it was braking), sent on 20 legs of 10 cm north.
        let start = Vector3(0, 0.5, 5)
        let waypoints = [Vector3(0, 0, 5)] + (1...20).map { Vector3(0, Double($0) * 0.1, 5) }
        let t = try TrajectoryPlanner().plan([start] + waypoints, initialHeading: 0)
        // Never turned: 21 short rest-to-rest legs, no 180° turns (4 s each at 45°/s).
        #expect(t.points.allSatisfy { abs(headingDifference(from: $0.heading, to: 0)) < 1e-9 })
        #expect(t.duration < 13, "\(t.duration) s")
        // A first leg of 1 m or more is still faced: the same drone 3 m past it turns about, then back north.
        let far = try TrajectoryPlanner().plan([Vector3(0, 3, 5)] + waypoints, initialHeading: 0)
        #expect(far.points.contains { abs(headingDifference(from: $0.heading, to: 180)) < 1e-9 })
        #expect(far.duration > t.duration + 8)
        // Only the first leg: the same short step back later in a path is faced as before.
        let later = try TrajectoryPlanner().plan(
            [Vector3(0, -5, 5), Vector3(0, 0, 5), Vector3(0, -0.5, 5)], initialHeading: 0)
        #expect(later.points.contains { abs(headingDifference(from: $0.heading, to: 180)) < 1e-9 })
    }
}
