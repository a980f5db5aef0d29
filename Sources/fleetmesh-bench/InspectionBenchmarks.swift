import Foundation
import Inspection

/// `fleetmesh-bench inspection` (issue #18): loading and voxelising a 10-million-point cloud against Open3D in the
/// same run, planning through 20 snapshot points on a 200 × 200 × 50 m site against a search on the voxel grid
/// alone, and the map's memory for a 500 × 500 m site.
enum InspectionBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        out.heading("Inspection: point clouds, occupancy map, route planning")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleetmesh-inspection-bench").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let runs = Int(ProcessInfo.processInfo.environment["FLEETMESH_BENCH_INSPECTION_RUNS"] ?? "") ?? 5

        // 1. Ten million points: read and voxelise, FleetMesh vs Open3D.
        let dense = SiteScene.campus(step: 0.1)
        let file = "\(dir)/campus-10m.pcd"
        try PointCloudWriter.write(dense.cloud.points, as: .pcd(.binary), to: file)
        var read = Samples(), voxelise = Samples(), total = Samples()
        var voxels = 0
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let t0 = clock.now
            let cloud = try PointCloudReader.read(path: file)
            let t1 = clock.now
            let map = try OccupancyMap(cloud: cloud, resolution: 0.2, queryRadius: 1.2)
            let t2 = clock.now
            read.add(t1 - t0)
            voxelise.add(t2 - t1)
            total.add(t2 - t0)
            voxels = map.voxelCount
        }
        out.line("cloud", "\(dense.cloud.points.count) points, binary PCD, \(fileSize(file) / 1_048_576) MiB")
        out.latency("FleetMesh read", read)
        out.latency("FleetMesh voxelise (0.2 m)", voxelise)
        out.latency("FleetMesh read + voxelise", total)
        out.line("FleetMesh voxels", "\(voxels)")
        let o3d = try open3D(file, voxel: 0.2, runs: runs)
        out.latency("Open3D read_point_cloud", o3d.load)
        out.latency("Open3D voxel_down_sample", o3d.voxelise)
        out.latency("Open3D read + down-sample", o3d.total)
        out.line(
            "Open3D voxels (grid on the origin)", "\(o3d.voxels) (\(o3d.version)); down-sampled \(o3d.downSampled)")
        out.ratio(
            "read + voxelise, Open3D / FleetMesh (p50)", o3d.total.quantile(0.5) / total.quantile(0.5),
            against: "Open3D")
        out.ratio(
            "voxelise alone, Open3D / FleetMesh (p50)", o3d.voxelise.quantile(0.5) / voxelise.quantile(0.5),
            against: "Open3D")

        // 2. Planning through 20 points on the 200 m site (0.2 m voxels), coarse-to-fine vs the voxel grid alone.
        let site = SiteScene.campus()
        let map = try OccupancyMap(cloud: site.cloud, resolution: 0.2, queryRadius: 1.2)
        out.line(
            "site",
            "200 × 200 m, \(site.cloud.points.count) points, \(map.voxelCount) voxels, map \(map.bytes / 1024) KiB")
        for (name, grids) in [
            ("coarse to fine (8, 4, 2, 1 voxels)", [8, 4, 2, 1]), ("voxel grid only (baseline)", [1]),
        ] {
            var settings = InspectionPlanner.Settings()
            settings.searchGrids = grids
            let planner = try InspectionPlanner(map: map, settings: settings)
            var times = Samples()
            var route: InspectionRoute?
            for _ in 0..<(grids == [1] ? max(1, runs / 2) : runs) {
                let t0 = clock.now
                route = try planner.plan(site.points)
                times.add(clock.now - t0)
            }
            guard let route else { continue }
            let clearance = RouteClearance.minimum(path: route.vertices, cloud: site.cloud)
            out.latency("plan 20 points, \(name)", times)
            out.line(
                "  route",
                "\(String(format: "%.1f", route.length)) m, \(route.expandedCells) cells expanded, minimum clearance "
                    + "\(String(format: "%.3f", clearance.distance)) m")
        }
        out.line("peak RSS so far", "\(peakRSS() / 1024) MiB")

        // 3. Memory: a 500 × 500 m site at 0.2 m.
        let large = SiteScene.campus(size: 500, buildings: 150, snapshots: 1, seed: 5)
        let t0 = clock.now
        let largeMap = try OccupancyMap(cloud: large.cloud, resolution: 0.2, queryRadius: 1.2)
        let built = clock.now - t0
        out.line(
            "500 × 500 m site",
            "\(large.cloud.points.count) points, \(largeMap.voxelCount) voxels, map \(largeMap.bytes / 1_048_576) MiB, "
                + "built in \(String(format: "%.2f", built.seconds)) s")
        out.line("peak RSS", "\(peakRSS() / 1024) MiB (the cloud's points included)")
    }

    struct Open3DFigures {
        var load = Samples(), voxelise = Samples(), total = Samples()
        var voxels = 0, downSampled = 0
        var version = ""
    }

    /// Open3D loading and voxelising the same file (Tools/open3d-voxel-bench.py).
    static func open3D(_ file: String, voxel: Double, runs: Int) throws -> Open3DFigures {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/open3d-voxel-bench.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "\(voxel)", "\(runs)", file]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let load = json["load"] as? [Double], let down = json["voxelise"] as? [Double],
            let total = json["total"] as? [Double]
        else {
            throw SecureTransportBenchmarks.BenchFailure(
                "Tools/open3d-voxel-bench.py failed (status \(process.terminationStatus)); open3d installed? (make setup)"
            )
        }
        var f = Open3DFigures()
        load.forEach { f.load.add($0) }
        down.forEach { f.voxelise.add($0) }
        total.forEach { f.total.add($0) }
        f.voxels = json["voxels"] as? Int ?? 0
        f.downSampled = json["down_sampled"] as? Int ?? 0
        f.version = json["open3d"] as? String ?? "?"
        return f
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// The process's peak resident set, KiB (VmHWM).
    static func peakRSS() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
}
