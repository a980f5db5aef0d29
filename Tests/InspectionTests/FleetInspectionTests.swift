import Avoidance
import Flight
import Testing

@testable import Inspection

@Suite("Inspection with several drones")
struct FleetInspectionTests {
    @Test(
        "the hall's points split among 3 drones: each point once, every route clear, the longest shorter than one drone's"
    )
    func split() throws {
        let scene = SiteScene.hall()
        var points = scene.points
        points += [
            SnapshotPoint(position: SIMD3(12, 14, 4), heading: 0, label: "snapshot 6"),
            SnapshotPoint(position: SIMD3(20, 2, 3), heading: 90, label: "snapshot 7"),
            SnapshotPoint(position: SIMD3(28, 6, 5), heading: 180, label: "snapshot 8"),
            SnapshotPoint(position: SIMD3(32, 22, 3), heading: 270, label: "snapshot 9"),
        ]
        let map = try OccupancyMap(cloud: scene.cloud, resolution: 0.2, queryRadius: 1.2)
        let planner = try InspectionPlanner(map: map)
        let starts = [SIMD3(-2.0, -2, 2), SIMD3(16.0, -2, 2), SIMD3(34.0, -2, 2)]
        let fleet = try planner.planFleet(points, starts: starts)
        let visited = fleet.routes.flatMap { $0?.order ?? [] }.sorted()
        #expect(visited == Array(points.indices))
        #expect(fleet.routes.allSatisfy { $0 != nil })
        for (s, route) in fleet.routes.enumerated() {
            let r = try #require(route)
            #expect(r.vertices.first == starts[s])
            #expect(bruteClearance(r.vertices, scene.cloud) >= 1.0)
        }
        let alone = try planner.plan(points, start: starts[0], reorder: true)
        let longest = fleet.routes.compactMap { $0?.length }.max()!
        #expect(longest < alone.length / 1.8, "longest \(longest) m, alone \(alone.length) m")
        #expect(fleet.conflictsAfter == 0)
    }

    @Test("two routes crossing the same spot at the same moment are found in conflict and one waits until they are not")
    func deconflicted() throws {
        let cloud = PointCloud(points: SiteScene.plane(x: -25...25, y: -25...25, z: 0, step: 0.5))
        let map = try OccupancyMap(cloud: cloud, resolution: 0.2, queryRadius: 1.2)
        let planner = try InspectionPlanner(map: map)
        let a = try planner.plan([SnapshotPoint(position: SIMD3(20, 0, 5), label: "a")], start: SIMD3(-20, 0, 5))
        // A turns 2 s to face east before it sets off; B, facing north already, starts 8 m farther back: both are
        // at the crossing 8.3 s after the start.
        let b = try planner.plan([SnapshotPoint(position: SIMD3(0, 20, 5), label: "b")], start: SIMD3(0, -28, 5))
        func closest(delay: Double) -> Double {
            var best = Double.infinity
            var t = 0.0
            while t < max(a.duration, b.duration + delay) {
                let p = a.trajectory.sample(at: t).position, q = b.trajectory.sample(at: t - delay).position
                best = min(best, ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot())
                t += 0.1
            }
            return best
        }
        #expect(closest(delay: 0) < 1)
        let (delays, before, after) = try InspectionPlanner.deconflict([a, b])
        #expect(before == 1)
        #expect(after == 0)
        #expect(delays[0] == 0 && delays[1] > 0)
        // Checked independently: every 0.1 s the two drones are at least 5 m apart (same altitude throughout).
        #expect(closest(delay: delays[1]) >= 5, "\(closest(delay: delays[1])) m with a \(delays[1]) s wait")
    }

    @Test("starts closer than the separation are refused")
    func closeStarts() throws {
        let cloud = PointCloud(points: SiteScene.plane(x: -5...5, y: -5...5, z: 0, step: 0.5))
        let planner = try InspectionPlanner(map: try OccupancyMap(cloud: cloud, resolution: 0.2, queryRadius: 1.2))
        #expect {
            try planner.planFleet(
                [SnapshotPoint(position: SIMD3(0, 0, 5), label: "p")], starts: [SIMD3(0, 0, 3), SIMD3(2, 0, 3)])
        } throws: { error in
            "\(error)" == "starts (0.0, 0.0, 3.0) and (2.0, 0.0, 3.0) are closer than the 5.0 m separation"
        }
    }
}
