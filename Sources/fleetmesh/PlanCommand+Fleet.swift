import Foundation
import Geodesy
import Inspection

extension PlanInspectionCommand {
    /// Several starts: the points split among the drones, each route written to its own file, the waits printed.
    func runFleet(
        cloud: PointCloud, grid: OccupancyMap, snapshots: [SnapshotPoint], starts: [SIMD3<Double>],
        settings: InspectionPlanner.Settings, origin: MapOrigin?
    ) throws {
        let clock = ContinuousClock()
        let began = clock.now
        let fleet: FleetInspectionPlan
        do { fleet = try InspectionPlanner(map: grid, settings: settings).planFleet(snapshots, starts: starts) } catch {
            throw failure("error: \(error)", code: 1)
        }
        let planTime = (clock.now - began).inSeconds
        var reports: [FleetDroneReport] = []
        for (i, route) in fleet.routes.enumerated() {
            guard let route else {
                reports.append(FleetDroneReport(drone: i + 1, points: [], length: 0, duration: 0, wait: 0))
                continue
            }
            let clearance = RouteClearance.minimum(path: route.vertices, cloud: cloud).distance
            guard clearance >= settings.clearance else {
                throw failure("error: drone \(i + 1)'s route comes \(clearance) m from the cloud", code: 1)
            }
            var file: String?
            if let out, let origin {
                let url = URL(fileURLWithPath: out)
                let ext = url.pathExtension.isEmpty ? "txt" : url.pathExtension
                let path = url.deletingPathExtension().path + "-\(i + 1).\(ext)"
                do {
                    try route.waypointFile(origin: origin).write(toFile: path, atomically: true, encoding: .utf8)
                } catch {
                    throw failure("error: cannot write \(path): \(error.localizedDescription)", code: 73)
                }
                file = path
            }
            reports.append(
                FleetDroneReport(
                    drone: i + 1, points: route.order.map { $0 + 1 }, length: route.length, duration: route.duration,
                    wait: fleet.delays[i], minimumClearance: clearance, out: file))
        }
        let summary = FleetPlanReport(
            drones: reports, conflictsBefore: fleet.conflictsBefore, conflictsAfter: fleet.conflictsAfter,
            makespan: fleet.makespan, planSeconds: planTime)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self))
            return
        }
        for r in reports {
            let line =
                "drone \(r.drone)    "
                + (r.points.isEmpty
                    ? "no points"
                    : "points \(r.points.map(String.init).joined(separator: " ")), "
                        + String(format: "%.1f m, %.1f s, wait %.0f s", r.length, r.duration, r.wait)
                        + (r.minimumClearance.map { String(format: ", clearance %.3f m", $0) } ?? "")
                        + (r.out.map { ", wrote \($0)" } ?? ""))
            print(line)
        }
        print(
            "conflicts  \(fleet.conflictsBefore) between the routes as planned, \(fleet.conflictsAfter) after the waits "
                + String(format: "(all done after %.1f s; planned in %.2f s)", fleet.makespan, planTime))
    }
}

/// One drone of `plan inspection` with several starts.
struct FleetDroneReport: Encodable {
    var drone: Int
    var points: [Int]
    var length: Double
    var duration: Double
    var wait: Double
    var minimumClearance: Double?
    var out: String?
}

/// `plan inspection --json` with several starts.
struct FleetPlanReport: Encodable {
    var drones: [FleetDroneReport]
    var conflictsBefore: Int
    var conflictsAfter: Int
    var makespan: Double
    var planSeconds: Double
}
