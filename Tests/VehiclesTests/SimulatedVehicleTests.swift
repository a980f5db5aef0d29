import Coordinator
import Foundation
import MeshTypes
import Testing

@testable import Vehicles

@Suite struct SimulatedVehicleTests {
    let id1 = CommandID(origin: NodeID(high: 1, low: 2), originIncarnation: 7, counter: 1)
    let id2 = CommandID(origin: NodeID(high: 1, low: 2), originIncarnation: 7, counter: 2)

    let home = (latitude: 50.0755, longitude: 14.4378)

    func vehicle() throws -> SimulatedVehicle {
        try SimulatedVehicle(latitude: home.latitude, longitude: home.longitude, offset: (east: 10, north: -6))
    }

    /// Steps at 20 Hz until `until` holds or `limit` seconds pass; returns every event.
    func run(_ v: inout SimulatedVehicle, for limit: Double, until: ([VehicleEvent]) -> Bool = { _ in false })
        -> [VehicleEvent]
    {
        var events: [VehicleEvent] = []
        var t = v.time
        let end = t + limit
        while t < end {
            t += 0.05
            events += v.advance(to: t)
            if until(events) { break }
        }
        return events
    }

    @Test func takeoffIsAcceptedThenCompletedNearTheAltitude() throws {
        var v = try vehicle()
        let start = v.coordinatorState
        #expect(start.activity == .landed)
        // Starts at its offset from home: 10 m east, 6 m south.
        #expect(abs((start.position.latitude - home.latitude) * 111_200 + 6) < 0.5)
        let (verdict, events) = v.execute(id1, .takeoff(altitudeMillimetres: 10_000))
        #expect(verdict == .accepted)
        #expect(events.isEmpty)
        let after = run(&v, for: 20) { $0.contains(.completed(id1)) }
        #expect(after.first == .flyingChanged(true))
        #expect(after.last == .completed(id1))
        #expect(abs(v.coordinatorState.position.altitude - 10) < 0.5)
        #expect(v.coordinatorState.activity == .hovering)
        #expect(v.prediction.points.count == 40)
    }

    @Test func refusalsCarryTheNavigatorsReason() throws {
        var v = try vehicle()
        #expect(v.execute(id1, .land).verdict == .rejected("not airborne"))
        #expect(
            v.execute(id1, .takeoff(altitudeMillimetres: 500_000)).verdict
                == .rejected("altitude 500.0 m outside 1.0…120.0 m"))
        #expect(
            v.execute(id1, .trajectory([GeoPoint(latitude: 50.0756, longitude: 14.4378, altitude: 10)])).verdict
                == .rejected("not airborne"))
    }

    @Test func anUploadedTrajectoryIsFlownThroughEveryWaypointThenCompletes() throws {
        var v = try vehicle()
        _ = v.execute(id1, .takeoff(altitudeMillimetres: 10_000))
        _ = run(&v, for: 20) { $0.contains(.completed(id1)) }
        #expect(v.execute(id2, .trajectory([])).verdict == .rejected("trajectory has no waypoints"))
        let offMap = v.execute(id2, .trajectory([GeoPoint(latitude: 89.9, longitude: 14.4378, altitude: 10)])).verdict
        guard case .rejected(let why) = offMap else {
            Issue.record("off-map waypoint accepted")
            return
        }
        #expect(why.hasPrefix("trajectory waypoint 1 is not on the map"))
        // A square of 20 m legs north, east, south from the home point, at 12 m.
        let home = self.home
        let dLat = 20 / 111_200.0, dLon = 20 / (111_200.0 * cos(home.latitude * .pi / 180))
        let square = [
            GeoPoint(latitude: home.latitude + dLat, longitude: home.longitude, altitude: 12),
            GeoPoint(latitude: home.latitude + dLat, longitude: home.longitude + dLon, altitude: 12),
            GeoPoint(latitude: home.latitude, longitude: home.longitude + dLon, altitude: 12),
        ]
        let id3 = CommandID(origin: NodeID(high: 1, low: 2), originIncarnation: 7, counter: 3)
        let (verdict, events) = v.execute(id3, .trajectory(square))
        #expect(verdict == .accepted)
        #expect(events.isEmpty)
        _ = v.advance(to: v.time + 0.05)
        #expect(v.coordinatorState.activity == .followingTrajectory)
        // Passes within 1 m of every waypoint, in order, then completes holding at the last one.
        var next = 0
        var t = v.time
        var completed = false
        while t < v.time + 120, !completed {
            t += 0.05
            let events = v.advance(to: t)
            let p = v.coordinatorState.position
            if next < square.count,
                abs(p.latitude - square[next].latitude) * 111_200 < 1,
                abs(p.longitude - square[next].longitude) * 111_200 * cos(home.latitude * .pi / 180) < 1,
                abs(p.altitude - 12) < 1
            {
                next += 1
            }
            completed = events.contains(.completed(id3))
        }
        #expect(next == square.count)
        #expect(completed)
        #expect(v.coordinatorState.activity == .hovering)
    }

    @Test func aNewCommandSupersedesOneStillRunningAndHoverCompletesAtOnce() throws {
        var v = try vehicle()
        _ = v.execute(id1, .takeoff(altitudeMillimetres: 20_000))
        _ = run(&v, for: 2)
        let (verdict, events) = v.execute(id2, .hover)
        #expect(verdict == .accepted)
        #expect(events == [.failed(id1, "superseded by hover"), .completed(id2)])
    }

    @Test func landAndReturnHomeCompleteOnTheGround() throws {
        var v = try vehicle()
        _ = v.execute(id1, .takeoff(altitudeMillimetres: 3_000))
        _ = run(&v, for: 20) { $0.contains(.completed(id1)) }
        #expect(v.execute(id2, .returnToLaunch).verdict == .accepted)
        let events = run(&v, for: 60) { $0.contains(.completed(id2)) }
        #expect(events.contains(.flyingChanged(false)))
        #expect(events.last == .completed(id2))
        #expect(v.coordinatorState.activity == .landed)
    }
}

/// The simulator driven on a seconds clock, the verdict apart from the events, as these tests read best.
extension SimulatedVehicle {
    mutating func execute(_ id: CommandID, _ command: Command) -> (verdict: VehicleVerdict, events: [VehicleEvent]) {
        start(id, command)
    }

    mutating func advance(to seconds: Double) -> [VehicleEvent] {
        advance(to: MeshInstant(nanoseconds: UInt64((seconds * 1e9).rounded())))
    }

    var coordinatorState: Coordinator.VehicleState { telemetry! }
    var prediction: TrajectoryPrediction { prediction(avoiding: false, now: .zero)! }
}
