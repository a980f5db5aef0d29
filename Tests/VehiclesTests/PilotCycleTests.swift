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
}
