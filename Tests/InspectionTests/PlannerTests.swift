import Flight
import Foundation
import Geodesy
import Testing

@testable import Inspection

/// The smallest distance from a polyline to a cloud by brute force: every point against every segment
/// (independent of the planner's and `RouteClearance`'s indexes).
func bruteClearance(_ path: [SIMD3<Double>], _ cloud: PointCloud) -> Double {
    var best = Double.infinity
    for q in cloud.points {
        let p = SIMD3<Double>(q)
        for (a, b) in zip(path, path.dropFirst()) {
            let d = b - a
            let t = min(1, max(0, ((p - a) * d).sum() / max((d * d).sum(), 1e-12)))
            let e = a + d * t - p
            best = min(best, (e * e).sum())
        }
    }
    return best.squareRoot()
}

func planScene(_ scene: SiteScene, clearance: Double = 1, reorder: Bool = false, start: SIMD3<Double>? = nil)
    throws -> (InspectionRoute, OccupancyMap)
{
    var settings = InspectionPlanner.Settings()
    settings.clearance = clearance
    let map = try OccupancyMap(cloud: scene.cloud, resolution: 0.2, queryRadius: clearance + 0.2)
    let route = try InspectionPlanner(map: map, settings: settings).plan(scene.points, start: start, reorder: reorder)
    return (route, map)
}

@Suite("Inspection planning")
struct PlannerTests {
    @Test(
        "every scene: the route keeps the clearance from every raw point (brute force), visits every point in order",
        arguments: ["hall", "courtyard", "bridge", "forest"])
    func scenesKeepClearance(name: String) throws {
        let scene: SiteScene =
            switch name {
            case "hall": .hall()
            case "courtyard": .courtyard()
            case "bridge": .bridge()
            default: .forest()
            }
        let (route, _) = try planScene(scene)
        #expect(route.points.map(\.label) == scene.points.map(\.label))
        for (i, v) in route.snapshotVertices.enumerated() { #expect(route.vertices[v] == scene.points[i].position) }
        let clearance = bruteClearance(route.vertices, scene.cloud)
        #expect(clearance >= 1.0, "\(name): \(clearance) m")
        // The exact index agrees with brute force.
        let indexed = RouteClearance.minimum(path: route.vertices, cloud: scene.cloud)
        #expect(abs(indexed.distance - clearance) < 1e-9)
    }

    @Test("around one pillar the path is within 3 % of the shortest path that keeps the clearance")
    func pillarNearOptimal() throws {
        var points = SiteScene.plane(x: -15...15, y: -15...15, z: 0, step: 0.3)
        points += SiteScene.cylinder(SIMD2(0, 0), radius: 1, z: 0...10, step: 0.1)
        let scene = SiteScene(
            name: "pillar", cloud: PointCloud(points: points),
            points: [
                SnapshotPoint(position: SIMD3(-10, 0, 3), label: "a"),
                SnapshotPoint(position: SIMD3(10, 0, 3), label: "b"),
            ])
        let (route, _) = try planScene(scene)
        // In the plane z = 3: tangents to a circle of radius R = pillar + clearance, and the arc between them.
        let r = 2.0, d = 10.0
        let optimum = 2 * (d * d - r * r).squareRoot() + r * (Double.pi - 2 * acos(r / d))
        #expect(route.length >= optimum - 1e-6)
        #expect(route.length <= optimum * 1.03, "length \(route.length), optimum \(optimum)")
    }

    @Test("under the bridge: the straight passage is taken, not the way over the deck")
    func bridgePassage() throws {
        let scene = SiteScene.bridge()
        let (route, _) = try planScene(
            SiteScene(name: "b", cloud: scene.cloud, points: Array(scene.points.prefix(2))))
        #expect(abs(route.length - 30) < 0.01, "length \(route.length)")
        #expect(route.vertices.allSatisfy { $0.z < 5 })
    }

    @Test("into the courtyard the route climbs over the roof: above 13 m, and the way out is the same height")
    func courtyardOverTheRoof() throws {
        let (route, _) = try planScene(.courtyard())
        #expect(route.legs[1].path.map(\.z).max()! >= 13)
        #expect(route.legs[2].path.map(\.z).max()! >= 13)
    }

    @Test("a point inside the clearance is named with its distance; an enclosed point has no path")
    func badPoints() throws {
        let scene = SiteScene.hall()
        var points = scene.points
        points[2] = SnapshotPoint(position: SIMD3(4.9, 4, 3), label: "snapshot 3")
        let map = try OccupancyMap(cloud: scene.cloud, resolution: 0.2, queryRadius: 1.2)
        #expect {
            try InspectionPlanner(map: map).plan(points)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("snapshot 3 (4.9, 4.0, 3.0) is 0.") && text.contains("inside the 1.0 m clearance")
        }
        var cloud = SiteScene.plane(x: -10...10, y: -10...10, z: 0, step: 0.3)
        cloud += SiteScene.box(SIMD3(-3, -3, 0), SIMD3(3, 3, 6), step: 0.15)
        let boxed = try OccupancyMap(cloud: PointCloud(points: cloud), resolution: 0.5, queryRadius: 1.5)
        var coarse = InspectionPlanner.Settings()
        coarse.margin = 2
        #expect {
            try InspectionPlanner(map: boxed, settings: coarse).plan([
                SnapshotPoint(position: SIMD3(-8, 0, 3), label: "outside"),
                SnapshotPoint(position: SIMD3(0, 0, 3), label: "inside"),
            ])
        } throws: { error in
            "\(error)".hasPrefix("no path with 1.0 m clearance from outside (-8.0, 0.0, 3.0) to inside (0.0, 0.0, 3.0)")
        }
    }

    @Test("reordering visits points on a line in line order, shorter than the scrambled order")
    func reorder() throws {
        let cloud = PointCloud(points: SiteScene.plane(x: -5...60, y: -5...5, z: 0, step: 0.5))
        let xs: [Double] = [30, 10, 50, 20, 40]
        let points = xs.enumerated().map { SnapshotPoint(position: SIMD3($1, 0, 3), label: "p\($0 + 1)") }
        let map = try OccupancyMap(cloud: cloud, resolution: 0.2, queryRadius: 1.2)
        let planner = try InspectionPlanner(map: map)
        let given = try planner.plan(points, start: SIMD3(0, 0, 3))
        let best = try planner.plan(points, start: SIMD3(0, 0, 3), reorder: true)
        #expect(best.order == [1, 3, 0, 4, 2])
        #expect(abs(best.length - 50) < 1e-6)
        #expect(given.length > 100)
    }

    @Test("the timed route: 8 cm spacing, each point held for the hover facing its heading, within the limits")
    func timedRoute() throws {
        let scene = SiteScene.hall()
        let (route, _) = try planScene(scene, start: SIMD3(-2, -2, 2))
        let p = route.trajectory.points
        for i in p.indices.dropFirst() { #expect((p[i].position - p[i - 1].position).length <= 0.08 + 1e-9) }
        #expect(route.trajectory.duration > route.length / 4)
        for point in scene.points {
            let here = p.filter {
                ($0.position - Vector3(point.position.x, point.position.y, point.position.z)).length < 1e-9
            }
            let facing = here.filter { abs(headingDifference(from: $0.heading, to: point.heading!)) < 1e-6 }
            let held = (facing.last?.time ?? 0) - (facing.first?.time ?? 0)
            #expect(held >= 2 - 0.03, "\(point.label) held \(held) s")
        }
    }

    @Test("the waypoint file reads back to the route's vertices through the map origin (1 cm)")
    func waypointFile() throws {
        let (route, _) = try planScene(.forest(), start: SIMD3(-24, -24, 2))
        let origin = try MapOrigin(latitude: 59.9, longitude: 10.7, altitude: 120)
        let text = route.waypointFile(origin: origin)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.count == route.vertices.count - 1)
        for (line, v) in zip(lines, route.vertices.dropFirst()) {
            let f = line.split(separator: ",").map { Double($0)! }
            let l = try origin.local(GeodeticCoordinate(latitude: f[0], longitude: f[1], altitude: 120 + f[2]))
            #expect(abs(l.east - v.x) < 0.01 && abs(l.north - v.y) < 0.01 && abs(l.up - v.z) < 0.001)
        }
        #expect(text.contains("# snapshot 2: snapshot 2, heading 225.0°"))
        // Each snapshot's line carries its heading and the hover: the drone turns and holds there.
        let snapshotLines = lines.filter { $0.split(separator: ",").count == 5 }
        #expect(snapshotLines.count == 3)
        #expect(snapshotLines.map { $0.split(separator: ",")[3] } == ["45.00", "225.00", "135.00"])
        #expect(snapshotLines.allSatisfy { $0.hasSuffix(",2.0") })
    }

    @Test("outliers: lone returns are counted and kept as obstacles; points kilometres away are dropped and counted")
    func outliers() throws {
        var points = SiteScene.plane(x: -10...10, y: -10...10, z: 0, step: 0.4)
        points += [SIMD3(0, 0, 8), SIMD3(5, 5, 12), SIMD3(-6, 3, 20)]
        points += [SIMD3(2e6, 0, 0), SIMD3(0, -3e5, 1)]
        let map = try OccupancyMap(cloud: PointCloud(points: points), resolution: 0.2, queryRadius: 1.2)
        #expect(map.isolatedVoxels == 3)
        #expect(map.droppedFarPoints == 2)
        #expect(map.voxelCount == points.count - 2)
        #expect(map.upperCorner.z > 20 && map.upperCorner.x < 11)
        #expect {
            try InspectionPlanner(map: map).plan([
                SnapshotPoint(position: SIMD3(0, 0, 7.5), label: "under the lone return")
            ])
        } throws: { error in
            "\(error)".hasPrefix("under the lone return (0.0, 0.0, 7.5) is 0.")
        }
    }
}
