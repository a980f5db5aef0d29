import ArgumentParser
import Flight
import Foundation
import Geodesy
import Inspection

/// `fleetmesh plan …`: plans made before flight.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Plan flights before flying them.",
        subcommands: [PlanInspectionCommand.self, PlanExampleCommand.self])
}

/// `fleetmesh plan inspection --map site.pcd --points points.csv --out route.txt`.
struct PlanInspectionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspection",
        abstract: "Plan a collision-free route through snapshot points in a point-cloud map of the site.",
        discussion: """
            The map is a PCD (ascii, binary, binary_compressed) or PLY (ascii, binary) point cloud in the mission's \
            local frame: x east, y north, z up, metres from the map origin (UTM grid axes, as every FleetMesh node \
            uses). Say where that origin is with --origin LAT,LON[,ALT], or with --utm ZONE,EASTING,NORTHING[,ALT] \
            when the cloud's (0,0,0) is a UTM point. Points: CSV x,y,z[,heading] (or lat,lon,alt[,heading] with a \
            header line) or JSON. The route keeps --clearance from every point of the cloud. In the timed trajectory \
            (--trajectory, and fleetmesh simulate) the drone turns to each point's heading and holds --hover seconds; \
            a drone sent the route with `fleetmesh send N trajectory @FILE` stops at each point. docs/INSPECTION.md.
            Example: fleetmesh plan inspection --map hall.pcd --points shots.csv --origin 59.9,10.7 --start 0,0,5 \
            --out route.txt, then fleetmesh send 1 trajectory @route.txt
            """)

    @Option(help: "The site's point cloud: .pcd or .ply.")
    var map: String
    @Option(help: "Snapshot points: .csv or .json.")
    var points: String
    @Option(help: "Voxel edge of the occupancy grid, metres.")
    var resolution = 0.2
    @Option(help: "Smallest distance from the route to any point of the cloud, metres (drone radius plus margin).")
    var clearance = 1.0
    @Option(
        help:
            "Where the drone starts, local x,y,z metres (above its takeoff spot); the first leg starts there. With a negative x write --start=-25,0,3. Repeat for several drones: the points are split among them (route-1.txt, route-2.txt, …)."
    )
    var start: [String] = []
    @Flag(help: "Visit the points in the shortest order found (nearest neighbour and 2-opt on path lengths).")
    var reorder = false
    @Option(help: "Seconds to hover at each snapshot point.")
    var hover = 2.0
    @Option(help: "Cruise speed of the timed route, m/s.")
    var speed = 4.0
    @Option(help: "Lowest altitude (local z) the route may use; default: the cloud's lowest voxel plus the clearance.")
    var floor: Double?
    @Option(help: "The map origin: LAT,LON[,ALT] (degrees, metres).")
    var origin: String?
    @Option(help: "The map origin as a UTM point: ZONE,EASTING,NORTHING[,ALT], e.g. 33N,500000,5550000.")
    var utm: String?
    @Option(help: "Waypoint file for `fleetmesh send N trajectory @FILE` (LAT,LON,ALT per line; needs the origin).")
    var out: String?
    @Option(help: "The timed trajectory (every 8 cm, with turns and hovers): .csv or .geojson.")
    var trajectory: String?
    @Flag(help: "Print the figures as JSON.")
    var json = false

    func run() throws {
        let mapOrigin = try parseOrigin()
        if out != nil && mapOrigin == nil {
            throw failure("error: --out writes latitudes and longitudes: give --origin LAT,LON or --utm", code: 64)
        }
        var settings = InspectionPlanner.Settings()
        settings.clearance = clearance
        settings.hover = hover
        settings.floor = floor
        settings.limits.maxSpeed = speed
        guard speed > 0 && speed <= 20 else { throw failure("error: --speed must be in (0, 20] m/s", code: 64) }
        let starts = try start.map { text -> SIMD3<Double> in
            let v = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 3, v.allSatisfy(\.isFinite) else {
                throw failure("error: --start must be X,Y,Z in metres, found \"\(text)\"", code: 64)
            }
            return SIMD3(v[0], v[1], v[2])
        }
        let clock = ContinuousClock()
        progress("reading \(map)…")
        let readStart = clock.now
        let cloud: PointCloud
        do { cloud = try PointCloudReader.read(path: map) } catch { throw failure("error: \(error)", code: 65) }
        let readTime = clock.now - readStart
        progress("\(cloud.points.count) points (\(cloud.format)) in \(seconds(readTime)); building the grid…")
        let mapStart = clock.now
        let grid: OccupancyMap
        let snapshots: [SnapshotPoint]
        do {
            grid = try OccupancyMap(
                cloud: cloud, resolution: resolution, queryRadius: clearance + resolution * 0.87 + 0.01)
            snapshots = try SnapshotFile.read(path: points, origin: mapOrigin)
        } catch { throw failure("error: \(error)", code: 65) }
        let mapTime = clock.now - mapStart
        progress("\(grid.voxelCount) voxels in \(seconds(mapTime)); planning through \(snapshots.count) points…")
        if starts.count > 1 {
            return try runFleet(
                cloud: cloud, grid: grid, snapshots: snapshots, starts: starts, settings: settings,
                origin: mapOrigin)
        }
        let planStart = clock.now
        let route: InspectionRoute
        do {
            route = try InspectionPlanner(map: grid, settings: settings).plan(
                snapshots, start: starts.first, reorder: reorder)
        } catch { throw failure("error: \(error)", code: 1) }
        let planTime = clock.now - planStart
        let checked = RouteClearance.minimum(path: route.vertices, cloud: cloud)
        if let out, let mapOrigin {
            do { try route.waypointFile(origin: mapOrigin).write(toFile: out, atomically: true, encoding: .utf8) } catch
            {
                throw failure("error: cannot write \(out): \(error.localizedDescription)", code: 73)
            }
        }
        if let trajectory {
            do { try route.trajectory.save(path: trajectory, origin: mapOrigin) } catch {
                throw failure("error: cannot write \(trajectory): \(error)", code: 73)
            }
        }
        let report = PlanReport(
            map: map, format: cloud.format, points: cloud.points.count, droppedNonFinite: cloud.droppedNonFinite,
            droppedFar: grid.droppedFarPoints, voxels: grid.voxelCount, isolatedVoxels: grid.isolatedVoxels,
            resolution: resolution, mapBytes: grid.bytes, snapshots: route.points.count,
            order: route.order.map { $0 + 1 }, waypoints: route.vertices.count - (route.hasStart ? 1 : 0),
            length: route.length, duration: route.duration, clearance: clearance,
            minimumClearance: checked.distance, expandedCells: route.expandedCells,
            readSeconds: readTime.inSeconds, gridSeconds: mapTime.inSeconds,
            planSeconds: planTime.inSeconds, out: out, trajectory: trajectory)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            report.print()
        }
        if checked.distance < clearance {
            throw failure(
                "error: the route comes \(String(format: "%.3f", checked.distance)) m from the cloud, under the clearance",
                code: 1)
        }
    }

    private func parseOrigin() throws -> MapOrigin? {
        if origin != nil && utm != nil { throw failure("error: give --origin or --utm, not both", code: 64) }
        if let origin {
            let v = origin.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 2 || v.count == 3, let lat = v[0], let lon = v[1] else {
                throw failure("error: --origin must be LAT,LON[,ALT], found \"\(origin)\"", code: 64)
            }
            do { return try MapOrigin(latitude: lat, longitude: lon, altitude: v.count == 3 ? (v[2] ?? 0) : 0) } catch {
                throw failure("error: --origin: \(error)", code: 64)
            }
        }
        if let utm {
            let f = utm.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard f.count == 3 || f.count == 4, let e = Double(f[1]), let n = Double(f[2]),
                f.count == 3 || Double(f[3]) != nil
            else {
                throw failure("error: --utm must be ZONE,EASTING,NORTHING[,ALT], found \"\(utm)\"", code: 64)
            }
            do {
                let zone = try UTMZone(parsing: f[0])
                let point = try UTM.inverse(
                    UTMCoordinate(zone: zone, easting: e, northing: n), altitude: f.count == 4 ? Double(f[3])! : 0)
                return try MapOrigin(point, forcedZone: zone.number)
            } catch {
                throw failure("error: --utm: \(error)", code: 64)
            }
        }
        return nil
    }

    func progress(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }

    func seconds(_ d: Duration) -> String { String(format: "%.2f s", d.inSeconds) }
}

/// What `plan inspection` prints.
struct PlanReport: Encodable {
    var map: String
    var format: String
    var points: Int
    var droppedNonFinite: Int
    var droppedFar: Int
    var voxels: Int
    var isolatedVoxels: Int
    var resolution: Double
    var mapBytes: Int
    var snapshots: Int
    var order: [Int]
    var waypoints: Int
    var length: Double
    var duration: Double
    var clearance: Double
    var minimumClearance: Double
    var expandedCells: Int
    var readSeconds: Double
    var gridSeconds: Double
    var planSeconds: Double
    var out: String?
    var trajectory: String?

    func print() {
        func f(_ v: Double, _ d: Int = 2) -> String { String(format: "%.\(d)f", v) }
        Swift.print(
            "map        \(map): \(format), \(points) points (\(droppedNonFinite) not finite, \(droppedFar) out of range "
                + "dropped), \(voxels) voxels at \(f(resolution)) m (\(isolatedVoxels) isolated), "
                + "\(f(Double(mapBytes) / 1_048_576, 1)) MiB")
        Swift.print("route      \(snapshots) snapshot points, order \(order.map(String.init).joined(separator: " "))")
        Swift.print("length     \(f(length, 1)) m, \(waypoints) waypoints")
        Swift.print("duration   \(f(duration, 1)) s")
        Swift.print("clearance  \(f(minimumClearance, 3)) m minimum to the cloud (required \(f(clearance)) m)")
        Swift.print(
            "time       read \(f(readSeconds)) s, grid \(f(gridSeconds)) s, planning \(f(planSeconds, 3)) s "
                + "(\(expandedCells) cells expanded)")
        if let out { Swift.print("wrote      \(out): fly it with `fleetmesh send UAV trajectory @\(out)`") }
        if let trajectory { Swift.print("wrote      \(trajectory)") }
    }
}

/// `fleetmesh plan example hall --dir DIR`: a synthetic site and its snapshot points, to try the planner with.
struct PlanExampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "example",
        abstract: "Write a synthetic site (PCD) and snapshot points (CSV) to try `plan inspection` with.",
        discussion: """
            Sites: hall (pillars and walls), courtyard (a building round an open courtyard), bridge (a deck with a \
            passage under it), forest (poles), campus (200 m square, 24 buildings, 20 points).
            Example: fleetmesh plan example bridge --dir /tmp/site, then fleetmesh plan inspection \
            --map /tmp/site/bridge.pcd --points /tmp/site/bridge-points.csv --origin 59.9,10.7
            """)

    @Argument(help: "hall, courtyard, bridge, forest or campus.")
    var site: String
    @Option(help: "Directory to write SITE.pcd and SITE-points.csv into.")
    var dir = "."
    @Option(help: "PCD encoding: ascii, binary or binary_compressed.")
    var encoding = "binary"
    @Option(help: "Surface sampling step, metres (campus only; smaller gives more points).")
    var step = 0.2

    func run() throws {
        guard let scene = SiteScene.example(named: site, step: step) else {
            throw failure(
                "error: unknown site \"\(site)\" (\(SiteScene.exampleNames.joined(separator: ", ")))", code: 64)
        }
        let pcd: PointCloudWriter.PCDEncoding
        switch encoding {
        case "ascii": pcd = .ascii
        case "binary": pcd = .binary
        case "binary_compressed": pcd = .binaryCompressed
        default: throw failure("error: --encoding must be ascii, binary or binary_compressed", code: 64)
        }
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let cloudPath = "\(dir)/\(site).pcd", pointsPath = "\(dir)/\(site)-points.csv"
        do { try PointCloudWriter.write(scene.cloud.points, as: .pcd(pcd), to: cloudPath) } catch {
            throw failure("error: \(error)", code: 73)
        }
        var csv = "x,y,z,heading\n"
        for p in scene.points {
            csv += String(format: "%.2f,%.2f,%.2f,%.0f\n", p.position.x, p.position.y, p.position.z, p.heading ?? 0)
        }
        do { try csv.write(toFile: pointsPath, atomically: true, encoding: .utf8) } catch {
            throw failure("error: cannot write \(pointsPath): \(error.localizedDescription)", code: 73)
        }
        print(
            "wrote \(cloudPath) (\(scene.cloud.points.count) points) and \(pointsPath) (\(scene.points.count) points)")
    }
}

extension Duration {
    /// The duration in seconds.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
