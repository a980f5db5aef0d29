import Flight
import Geodesy
import Testing

@testable import Inspection

@Suite("Inspection flights in the simulator")
struct InspectionFlightTests {
    @Test("the simulated drone flies the hall's route: every snapshot held at its heading, 1 m from every point")
    func hallFlown() throws {
        let scene = SiteScene.hall()
        let home = SIMD3(-2.0, -2.0, 0.0)
        let map = try OccupancyMap(cloud: scene.cloud, resolution: 0.2, queryRadius: 1.2)
        let route = try InspectionPlanner(map: map).plan(scene.points, start: home + SIMD3(0, 0, 2))
        let origin = try MapOrigin(latitude: 59.9, longitude: 10.7, altitude: 10)
        // The control loop at 25 Hz (the node's runs at 20): the same flight with fewer steps in a debug build.
        let report = InspectionFlight.fly(route, cloud: scene.cloud, origin: origin, home: home, step: 0.04)
        #expect(report.completed)
        #expect(report.snapshotsTaken == scene.points.count)
        #expect(report.minimumClearance >= 1.0, "\(report)")
        #expect(report.maximumTrackingError < 0.5)
        #expect(report.distanceFlown >= route.length)
    }
}
