import Avoidance
import Coordinator
import Geodesy
import MeshTypes
import Testing

@testable import Vehicles

/// `VehiclePilot.cycle`, the control cycle the node runs every 50 ms: what it publishes and when avoidance starts.
@Suite struct PilotCycleTests {
    static let me = NodeID(high: 1, low: 1)

    static func pilot(plan: AvoidancePlan? = AvoidancePlan(configuration: AvoidanceConfiguration())) throws
        -> VehiclePilot
    {
        try VehiclePilot(
            vehicle: try SimulatedVehicle(latitude: 50.0755, longitude: 14.4378, offset: (east: 0, north: 0)),
            plan: plan, predictionInterval: .milliseconds(200))
    }

    @Test("the prediction is published every prediction interval, not on every cycle")
    func predictionEveryInterval() throws {
        var p = try Self.pilot()
        let id = CommandID(origin: Self.me, originIncarnation: 1, counter: 1)
        _ = p.execute(id, .takeoff(altitudeMillimetres: 5000), now: .zero)
        var published: [Int] = []
        for ms in stride(from: 0, through: 1000, by: 50) {
            let now = MeshInstant.zero + .milliseconds(ms)
            let c = p.cycle(now: now, airspace: [], ownNode: Self.me, uavNumber: 3, tiebreak: 1)
            #expect(c.telemetry != nil)
            if c.prediction != nil { published.append(ms) }
        }
        #expect(published == [0, 200, 400, 600, 800, 1000])
    }

    @Test("the simulator's map is known at once: a geofence that cannot be placed is an error at start")
    func aBadGeofenceIsAnErrorAtStart() throws {
        let twoCorners = AvoidancePlan(
            configuration: AvoidanceConfiguration(),
            geofence: [
                GeodeticCoordinate(latitude: 50.07, longitude: 14.43),
                GeodeticCoordinate(latitude: 50.08, longitude: 14.44),
            ])
        #expect(throws: (any Error).self) { try Self.pilot(plan: twoCorners) }
        #expect(try Self.pilot().avoidance != nil)
        #expect(try Self.pilot(plan: nil).avoidance == nil)
    }

    @Test("a fence announced at runtime replaces the configured one: a goal beyond its edge stops 1 m inside it")
    func aRuntimeFenceReplacesTheConfiguredOne() throws {
        let home = GeodeticCoordinate(latitude: 50.0755, longitude: 14.4378)
        let configured = try MapOrigin(home).geodeticSquare(half: 200)
        var p = try Self.pilot(
            plan: AvoidancePlan(
                configuration: AvoidanceConfiguration(), geofence: configured, geofenceAltitudes: 2...120))
        let frame = try #require(p.frame)
        #expect(p.avoidance?.configuration.geofence?.polygon.first.map { abs($0.x + 200) < 0.01 } == true)
        let id = CommandID(origin: Self.me, originIncarnation: 1, counter: 1)
        _ = p.execute(id, .takeoff(altitudeMillimetres: 5000), now: .zero)
        var t = MeshInstant.zero
        func fly(seconds: Int, _ each: (LocalPosition) -> Void = { _ in }) {
            for _ in 0..<(seconds * 20) {
                t = t + .milliseconds(50)
                _ = p.cycle(now: t, airspace: [], ownNode: Self.me, uavNumber: 3, tiebreak: 1)
                if let s = p.telemetry, let l = try? frame.local(s.position.geodetic) { each(l) }
            }
        }
        fly(seconds: 6)
        // The station's fence: 10 m around home.
        #expect(try p.replaceGeofence(frame.geodeticSquare(half: 10), altitudes: 2...30))
        #expect(p.avoidance?.configuration.geofence?.maxAltitude == 30)
        let goal = frame.geodetic(LocalPosition(east: 40, north: 0, up: 5))
        _ = p.execute(
            CommandID(origin: Self.me, originIncarnation: 1, counter: 2), .goto(GeoPoint(goal), speedCmS: 400), now: t)
        var farthest = -Double.infinity
        var last = LocalPosition(east: 0, north: 0, up: 0)
        fly(seconds: 15) { l in
            farthest = max(farthest, l.east)
            last = l
        }
        #expect(farthest <= 10, "left the fence: \(farthest) m east")
        #expect((8.5...9.5).contains(last.east) && abs(last.north) < 0.5, "\(last)")
        // "No fence": nothing limits it any more.
        #expect(try p.replaceGeofence([], altitudes: 0...1))
        #expect(p.avoidance?.configuration.geofence == nil)
        // Without avoidance the drone flies no fence at all, and says so.
        var plain = try Self.pilot(plan: nil)
        #expect(try plain.replaceGeofence(frame.geodeticSquare(half: 10), altitudes: 2...30) == false)
    }
}

extension MapOrigin {
    /// The corners of a square `half` metres each way around the origin, as latitude/longitude.
    func geodeticSquare(half: Double) -> [GeodeticCoordinate] {
        [(-half, -half), (half, -half), (half, half), (-half, half)].map { e, n in
            let g = geodetic(LocalPosition(east: e, north: n, up: 0))
            return GeodeticCoordinate(latitude: g.latitude, longitude: g.longitude)
        }
    }
}
