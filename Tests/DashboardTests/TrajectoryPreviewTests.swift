import ControlProtocol
import Coordinator
import Flight
import Foundation
import Geodesy
import MeshTypes
import Testing
import Vehicles

@testable import Dashboard

/// The dashboard's trajectory preview: its input checks name the field, its plan is the one the drone flies, and its
/// points are the plan's own samples every half second of flight and the end.
@Suite struct TrajectoryPreviewTests {
    let home = (latitude: 50.0755, longitude: 14.4378)

    func refusal(_ list: [[Double]]) -> String? {
        do {
            _ = try TrajectoryPreview.waypoints(list)
            return nil
        } catch { return error.description }
    }

    @Test func wellFormedWaypointsAreTaken() throws {
        let w = try TrajectoryPreview.waypoints([[50.0756, 14.4379, 12], [50, 14, -3.5]])
        #expect(w.count == 2)
        #expect(w[0].latitude == 50.0756 && w[0].longitude == 14.4379 && w[0].altitude == 12)
        #expect(w[1].altitude == -3.5)
        let most = ControlRequest.Send.maxTrajectoryWaypoints
        #expect(try TrajectoryPreview.waypoints(Array(repeating: [50, 14, 10], count: most)).count == most)
    }

    /// The checks after decoding (the JSON's shape and types: `APITests`), each naming the field.
    @Test func eachBadWaypointIsRefusedNamingTheField() {
        let cases: [([[Double]], String)] = [
            ([], "waypoints: expected at least one waypoint, found none"),
            (Array(repeating: [50, 14, 10], count: 201), "waypoints: at most 200 waypoints, found 201"),
            ([[50, 14]], "waypoints[0]: expected [latitude, longitude, altitude], found an array of 2"),
            (
                [[50, 14, 10], [50, 14, 10, 1]],
                "waypoints[1]: expected [latitude, longitude, altitude], found an array of 4"
            ),
            ([[95, 14, 10]], "waypoints[0][0]: latitude must be within -90…90 degrees, found 95"),
            ([[50, -180.5, 10]], "waypoints[0][1]: longitude must be within -180…180 degrees, found -180.5"),
            (
                [[50, 14, 10], [50, 14, 20000]],
                "waypoints[1][2]: altitude must be within -10000…10000 metres above home, found 20000"
            ),
        ]
        for (list, expected) in cases {
            #expect(refusal(list) == expected, "\(list)")
        }
    }

    func report(uav: Int = 3, latitude: Double, longitude: Double, altitude: Double, heading: Double, activity: String)
        -> VehicleReport
    {
        VehicleReport(
            uavNumber: uav, node: "00", name: "drone-3", role: "drone", latitude: latitude, longitude: longitude,
            altitude: altitude, speed: 0, heading: heading, activity: activity, armed: true, batteryPercent: 90,
            ageMs: 10, stale: false)
    }

    @Test func anUnknownOrLandedDroneIsRefused() throws {
        let w = [GeodeticCoordinate(latitude: home.latitude + 0.0002, longitude: home.longitude, altitude: 10)]
        let flying = report(
            latitude: home.latitude, longitude: home.longitude, altitude: 10, heading: 0, activity: "hovering")
        #expect(throws: PreviewRefusal("uav: no drone holds UAV number 4", status: 404)) {
            try TrajectoryPreview.plan(w, for: 4, in: [flying])
        }
        let landed = report(
            latitude: home.latitude, longitude: home.longitude, altitude: 0, heading: 0, activity: "landed")
        #expect(
            throws: PreviewRefusal(
                "uav: UAV 3 is landed; a drone flies a trajectory only in the air (take off first)", status: 409)
        ) {
            try TrajectoryPreview.plan(w, for: 3, in: [landed])
        }
        let far = [GeodeticCoordinate(latitude: home.latitude + 0.3, longitude: home.longitude, altitude: 10)]
        #expect(throws: PreviewRefusal.self) { try TrajectoryPreview.plan(far, for: 3, in: [flying]) }
    }

    /// Two 20 m legs at 4 m/s from a hovering drone facing north: east first (a 90° turn, 2 s), then north (another).
    @Test func thePreviewIsThePlanThinnedToHalfSeconds() throws {
        let dLat = 20 / 111_200.0, dLon = 20 / (111_200.0 * cos(home.latitude * .pi / 180))
        let w = [
            GeodeticCoordinate(latitude: home.latitude, longitude: home.longitude + dLon, altitude: 10),
            GeodeticCoordinate(latitude: home.latitude + dLat, longitude: home.longitude + dLon, altitude: 10),
        ]
        let drone = report(
            latitude: home.latitude, longitude: home.longitude, altitude: 10, heading: 0, activity: "hovering")
        let preview = try TrajectoryPreview.plan(w, for: 3, in: [drone])
        #expect(preview.legs == 2)
        // Each leg: 4/1.5 s to reach 4 m/s, the same to stop, (20 − 4·4/1.5)/4 s between; each turn 90°/45°/s.
        let ramp: Double = 4 / 1.5
        let leg: Double = 2 * ramp + (20 - 4 * ramp) / 4
        let expected: Double = 2 * leg + 4
        #expect(abs(preview.durationS - expected) < 0.05, "\(preview.durationS)")
        #expect(abs(preview.lengthM - 40) < 0.3, "\(preview.lengthM)")
        // One point per half second of flight and the end, starting at the drone and ending on the last waypoint.
        #expect(preview.points.count == Int((preview.durationS / 0.5).rounded(.down)) + 2, "\(preview.points.count)")
        let first = try #require(preview.points.first), last = try #require(preview.points.last)
        #expect(first == [home.latitude, home.longitude, 10])
        let origin = try MapOrigin(latitude: home.latitude, longitude: home.longitude)
        let end = Vector3(
            try origin.local(GeodeticCoordinate(latitude: last[0], longitude: last[1], altitude: last[2])))
        let goal = Vector3(try origin.local(w[1]))
        #expect(end.distance(to: goal) < 0.05, "\(end) vs \(goal)")
        // Heading east already, the first turn is skipped: 2 s shorter.
        let facingEast = report(
            latitude: home.latitude, longitude: home.longitude, altitude: 10, heading: 90, activity: "hovering")
        #expect(abs(try TrajectoryPreview.plan(w, for: 3, in: [facingEast]).durationS - (preview.durationS - 2)) < 0.05)
    }

    @Test func decimationKeepsTheFirstSampleOfEachIntervalAndTheEnd() throws {
        let points = (0...26).map { TrajectoryPoint(time: Double($0) * 0.1, position: Vector3(Double($0), 0, 5)) }
        let kept = TrajectoryPreview.decimated(try Trajectory(points: points), every: 0.5)
        #expect(kept.map(\.position.x) == [0, 5, 10, 15, 20, 25, 26])
        let exact = (0...10).map { TrajectoryPoint(time: Double($0) * 0.1, position: Vector3(Double($0), 0, 5)) }
        #expect(TrajectoryPreview.decimated(try Trajectory(points: exact), every: 0.5).map(\.position.x) == [0, 5, 10])
        let single = try Trajectory(points: [TrajectoryPoint(time: 0, position: .zero)])
        #expect(TrajectoryPreview.decimated(single, every: 0.5).count == 1)
    }

    /// The station's preview from the drone's published telemetry is the trajectory the simulated drone plans for the
    /// same waypoints: same duration, same end, the same path at every half second.
    @Test func thePreviewIsWhatTheSimulatedDroneFlies() throws {
        var vehicle = try SimulatedVehicle(
            latitude: home.latitude, longitude: home.longitude, offset: (east: 12, north: -8))
        let origin = NodeID(high: 1, low: 2)
        var t = 0.0
        func step(until done: (SimulatedVehicle) -> Bool) {
            while t < 60 && !done(vehicle) {
                t += 0.05
                _ = vehicle.advance(to: MeshInstant(nanoseconds: UInt64(t * 1e9)))
            }
        }
        let now = { MeshInstant(nanoseconds: UInt64(t * 1e9)) }
        _ = vehicle.execute(
            CommandID(origin: origin, originIncarnation: 1, counter: 1), .takeoff(altitudeMillimetres: 8000), now: now()
        )
        step { $0.telemetry?.activity == .hovering }
        // Turned to face south-west by a short goto, then hovering there.
        let p = try #require(vehicle.telemetry).position
        _ = vehicle.execute(
            CommandID(origin: origin, originIncarnation: 1, counter: 2),
            .goto(GeoPoint(latitude: p.latitude - 0.00003, longitude: p.longitude - 0.00004, altitude: 8), speedCmS: 0),
            now: now())
        step { $0.telemetry?.activity == .flyingToTarget }
        step { $0.telemetry?.activity == .hovering }
        let s = try #require(vehicle.telemetry)
        let station = report(
            latitude: s.position.latitude, longitude: s.position.longitude, altitude: s.position.altitude,
            heading: Double(s.headingCentidegrees) / 100, activity: "hovering")
        let w = [
            GeoPoint(latitude: s.position.latitude + 0.0002, longitude: s.position.longitude + 0.0001, altitude: 12),
            GeoPoint(latitude: s.position.latitude + 0.0001, longitude: s.position.longitude + 0.0003, altitude: 6),
        ]
        let preview = try TrajectoryPreview.plan(w.map(\.geodetic), for: 3, in: [station])
        let planned = try vehicle.planTrajectory(through: w).get()
        #expect(abs(preview.durationS - planned.duration) < 0.02, "\(preview.durationS) vs \(planned.duration)")
        #expect(abs(preview.lengthM - planned.length) < 0.05, "\(preview.lengthM) vs \(planned.length)")
        let map = vehicle.origin
        for (i, point) in preview.points.enumerated() {
            let time = min(Double(i) * 0.5, planned.duration)
            let shown = Vector3(
                try map.local(GeodeticCoordinate(latitude: point[0], longitude: point[1], altitude: point[2])))
            let flown = planned.sample(at: time).position
            #expect(shown.distance(to: flown) < 0.1, "point \(i) at \(time) s: \(shown) vs \(flown)")
        }
    }
}
