import AutopilotEmulation
import Coordinator
import Flight
import Geodesy
import MeshTypes
import Testing

@testable import Vehicles

/// What an autopilot drone publishes as its predicted path: the plan it flies (a mission round its corners, a
/// takeoff's climb), checked against where the emulated autopilot then really was; and, when the autopilot does not
/// fly the plan (slower than commanded), the measured state with an uncertainty that says so.
@Suite struct AutopilotPredictionTests {
    typealias Rig = AutopilotSteeringTests.Rig

    /// `east`, `north` metres from the autopilot's home at `up` metres above it.
    static func point(_ rig: Rig, east: Double, north: Double, up: Double) -> GeoPoint {
        let home = rig.autopilot.configuration
        let g = plane(rig).geodetic(LocalPosition(east: east, north: north, up: 0))
        _ = home
        return GeoPoint(latitude: g.latitude, longitude: g.longitude, altitude: up)
    }

    static func plane(_ rig: Rig) -> TangentPlane {
        let home = rig.autopilot.configuration
        return TangentPlane(
            origin: GeodeticCoordinate(latitude: home.homeLatitude, longitude: home.homeLongitude, altitude: 0))
    }

    /// A predicted point in the emulator's frame (metres from home, up above home).
    static func local(_ rig: Rig, _ p: GeoPoint) -> Vector3 {
        let l = plane(rig).local(GeodeticCoordinate(latitude: p.latitude, longitude: p.longitude, altitude: 0))
        return Vector3(l.east, l.north, p.altitude)
    }

    /// The published prediction's errors against the emulator's true position `offsets` seconds on, and the
    /// measured-velocity extrapolation's errors over the same seconds (what an autopilot drone published before).
    static func errors(_ rig: inout Rig, at offsets: [Double]) throws -> (published: [Double], extrapolated: [Double]) {
        let p = try #require(rig.vehicle.prediction(avoiding: false, now: rig.now))
        let extrapolation = try #require(rig.vehicle.session.prediction())
        let step = Double(p.stepMilliseconds) / 1000
        var published: [Double] = [], extrapolated: [Double] = []
        var elapsed = 0.0
        for offset in offsets {
            rig.run(offset - elapsed)
            elapsed = offset
            let i = Int((offset / step).rounded()) - 1
            published.append(local(rig, p.points[i]).distance(to: rig.autopilot.position))
            extrapolated.append(local(rig, extrapolation.points[i]).distance(to: rig.autopilot.position))
        }
        return (published, extrapolated)
    }

    @Test("a trajectory flown as a mission is predicted along its waypoints, round the corner")
    func missionRoundTheCorner() throws {
        var rig = Rig(.ardupilot)
        try rig.takeOff()
        let waypoints = [
            Self.point(rig, east: 18, north: 0, up: 10), Self.point(rig, east: 18, north: 20, up: 10),
        ]
        let id = rig.command(2, .trajectory(waypoints))
        rig.run(10) { r in r.answers.contains { if case .verdict(id, .accepted, _) = $0 { true } else { false } } }
        rig.run(2.5)  // under way east at the cruise speed
        let (published, extrapolated) = try Self.errors(&rig, at: [2, 4, 6])
        print("mission: published errors \(published), extrapolated \(extrapolated)")
        #expect(published.allSatisfy { $0 < 3 }, "\(published)")
        // The old prediction flies on east past the corner.
        #expect(extrapolated[2] > 8, "\(extrapolated)")
        #expect(rig.vehicle.monitor.trustsPlan)
    }

    @Test("a takeoff is predicted as the climb to its altitude")
    func takeoffClimb() throws {
        var rig = Rig(.px4)
        rig.run(5) { $0.vehicle.telemetry != nil && $0.vehicle.frame != nil }
        _ = rig.command(1, .takeoff(altitudeMillimetres: 12_000))
        rig.run(5) { $0.autopilot.position.z > 0.5 }
        let (published, extrapolated) = try Self.errors(&rig, at: [2, 4])
        print("takeoff: published errors \(published), extrapolated \(extrapolated)")
        #expect(published.allSatisfy { $0 < 2 }, "\(published)")
        #expect(rig.autopilot.position.z > 6)
    }

    @Test(
        "an autopilot slower than commanded: the plan is distrusted, the measured state published with its growth; a new command trusts the plan again"
    )
    func slowerThanCommanded() throws {
        var rig = Rig(.ardupilot)
        rig.autopilot = AutopilotEmulator(configuration: .init(flavour: .ardupilot, cruiseSpeed: 2))
        try rig.takeOff()
        #expect(rig.vehicle.monitor.trustsPlan)
        _ = rig.command(2, .goto(Self.point(rig, east: 80, north: 0, up: 10), speedCmS: 0))
        rig.run(6)
        let monitor = rig.vehicle.monitor
        #expect(!monitor.trustsPlan, "plan growth \(monitor.planGrowth), extrapolation \(monitor.extrapolationGrowth)")
        #expect(monitor.planGrowth > 1)
        let p = try #require(rig.vehicle.prediction(avoiding: true, now: rig.now))
        #expect(p.uncertainty.growth > 0.2 && p.uncertainty.growth < monitor.planGrowth, "\(p.uncertainty)")
        let (published, _) = try Self.errors(&rig, at: [2, 4])
        print("slower: plan growth \(monitor.planGrowth) m/s; published errors \(published), \(p.uncertainty)")
        #expect(published.allSatisfy { $0 < 1.5 }, "\(published)")
        // A hover is a new plan, and the autopilot flies it: trusted, and the growth fades.
        _ = rig.command(3, .hover)
        rig.run(6)
        #expect(rig.vehicle.monitor.trustsPlan)
        let after = try #require(rig.vehicle.prediction(avoiding: true, now: rig.now))
        #expect(after.uncertainty.growth < 0.5, "\(after.uncertainty)")
    }
}
