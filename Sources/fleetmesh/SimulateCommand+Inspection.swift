import Flight
import Foundation
import Geodesy
import Inspection
import Scenarios

extension SimulateCommand {
    /// Plans the mission's route from above the drone's home and flies it in the simulator.
    func runInspection(_ mission: InspectionMission) throws {
        let cloud: PointCloud
        let points: [SnapshotPoint]
        switch mission.site {
        case .example(let name):
            // The loader accepted only example names.
            let scene = SiteScene.example(named: name) ?? .bridge()
            cloud = scene.cloud
            points = scene.points
        case .files(let map, let pointsFile):
            do {
                cloud = try PointCloudReader.read(path: map)
                points = try SnapshotFile.read(path: pointsFile, origin: mission.origin)
            } catch { throw SimulateError(description: "\(error)") }
        }
        let home = mission.drone.home
        let start = SIMD3(home.x, home.y, home.z + mission.takeoffAltitude)
        let started = ContinuousClock.now
        let route: InspectionRoute
        do {
            let grid = try OccupancyMap(
                cloud: cloud, resolution: mission.resolution,
                queryRadius: mission.settings.clearance + mission.resolution)
            route = try InspectionPlanner(map: grid, settings: mission.settings).plan(
                points, start: start, reorder: mission.reorder)
        } catch { throw SimulateError(description: "\(error)") }
        let planned = Self.seconds(since: started)
        if !quiet {
            let text =
                "planned \(route.points.count) points: \(formatFixed(route.length, 1)) m, "
                + "\(formatFixed(route.duration, 1)) s, in \(formatFixed(planned, 2)) s; flying…"
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
        let report = InspectionFlight.fly(
            route, cloud: cloud, origin: mission.origin, home: SIMD3(home.x, home.y, home.z),
            simulator: mission.drone.simulator, navigator: mission.drone.navigator)
        let wall = Self.seconds(since: started)
        if json { return try printJSON(InspectionSimulationReport(name: mission.name, planned: route, flown: report)) }
        print(
            "\n\(mission.name): \(mission.drone.id) flew \(report.snapshots) snapshot points in \(formatFixed(wall, 2)) s"
        )
        print("route       \(formatFixed(route.length, 1)) m planned, \(formatFixed(route.duration, 1)) s")
        print(
            "flown       \(formatFixed(report.distanceFlown, 1)) m in \(formatFixed(report.flightTime, 1)) s, "
                + (report.completed ? "completed" : "NOT COMPLETED"))
        print(
            "clearance   \(formatFixed(report.minimumClearance, 3)) m minimum to the cloud "
                + "(required \(formatFixed(mission.settings.clearance, 2)) m)")
        print("tracking    \(formatFixed(report.maximumTrackingError, 2)) m largest error from the planned route")
        print("snapshots   \(report.snapshotsTaken) of \(report.snapshots) held at their point and heading")
        if !report.completed || report.minimumClearance < mission.settings.clearance {
            throw SimulateError(description: "the inspection flight did not keep the clearance or did not finish")
        }
    }
}

/// `simulate --json` for an inspection scenario.
struct InspectionSimulationReport: Encodable {
    var name: String
    var plannedLength: Double
    var plannedDuration: Double
    var flown: InspectionFlightReport

    init(name: String, planned: InspectionRoute, flown: InspectionFlightReport) {
        self.name = name
        plannedLength = planned.length
        plannedDuration = planned.duration
        self.flown = flown
    }
}
