import Foundation
import Testing

@testable import Inspection

@Suite("Cross-checks with PCL's command-line tools", .serialized)
struct PCLTests {
    /// A random cloud and an organised one with NaN returns (finite points, NaN count).
    static func clouds() -> [(
        name: String, points: [SIMD3<Float>], width: Int?, finite: [SIMD3<Float>]
    )] {
        let plain = Fixtures.randomPoints(3000, seed: 21)
        var organised = Fixtures.randomPoints(32 * 20, seed: 22)
        for i in organised.indices where i % 5 == 0 || i / 32 == 3 {
            organised[i] = SIMD3(.nan, .nan, .nan)
        }
        return [
            ("plain", plain, nil, plain),
            ("organised", organised, 32, organised.filter { $0.x.isFinite }),
        ]
    }

    static func convert(_ input: String, _ output: String, _ mode: Int) throws {
        var args = [input, output, String(mode)]
        if mode == 0 { args.append("9") }  // ASCII precision: 9 significant digits round-trip a Float
        let out = try ExternalTools.run("pcl_convert_pcd_ascii_binary", args)
        #expect(out.status == 0, "pcl_convert_pcd_ascii_binary \(args): \(out.text)")
    }

    @Test(
        "PCL converts our ASCII PCD to ascii/binary/binary_compressed; we read PCL's files",
        .enabled(if: ExternalTools.hasPCL))
    func pclWritesWeRead() throws {
        let dir = try ExternalTools.temporaryDirectory("pcl")
        defer { ExternalTools.remove(dir) }
        for cloud in Self.clouds() {
            let input = "\(dir)/\(cloud.name).pcd"
            try PointCloudWriter.write(
                bytes: PointCloudWriter.pcd(cloud.points, encoding: .ascii, width: cloud.width), to: input)
            for (mode, format) in [(0, "PCD ascii"), (1, "PCD binary"), (2, "PCD binary_compressed")] {
                let output = "\(dir)/\(cloud.name)-pcl\(mode).pcd"
                try Self.convert(input, output, mode)
                let read = try PointCloudReader.read(path: output)
                #expect(read.format == format)
                #expect(read.droppedNonFinite == cloud.points.count - cloud.finite.count)
                expectSamePoints(read.points, cloud.finite, "\(cloud.name) via PCL mode \(mode)")
            }
        }
    }

    @Test(
        "PCL reads our binary and binary_compressed PCD (our LZF) and writes ASCII we read back",
        .enabled(if: ExternalTools.hasPCL))
    func weWritePCLReads() throws {
        let dir = try ExternalTools.temporaryDirectory("pcl")
        defer { ExternalTools.remove(dir) }
        for cloud in Self.clouds() {
            for encoding in [PointCloudWriter.PCDEncoding.binary, .binaryCompressed] {
                let input = "\(dir)/\(cloud.name)-\(encoding.rawValue).pcd"
                let output = "\(dir)/\(cloud.name)-\(encoding.rawValue)-ascii.pcd"
                try PointCloudWriter.write(
                    bytes: PointCloudWriter.pcd(cloud.points, encoding: encoding, width: cloud.width),
                    to: input)
                try Self.convert(input, output, 0)
                let read = try PointCloudReader.read(path: output)
                #expect(read.droppedNonFinite == cloud.points.count - cloud.finite.count)
                expectSamePoints(read.points, cloud.finite, "\(cloud.name) \(encoding) read by PCL")
            }
        }
    }

    @Test("PCL re-encodes hand-made files with `_` padding and extra fields", .enabled(if: ExternalTools.hasPCL))
    func pclPaddingAndExtraFields() throws {
        let dir = try ExternalTools.temporaryDirectory("pcl")
        defer { ExternalTools.remove(dir) }
        let points = Fixtures.randomPoints(700, seed: 24)
        let fields: [PCDField] = [
            .init(name: "intensity", size: 4, type: "F"), .init(name: "x", size: 4, type: "F"),
            .init(name: "_", size: 1, type: "U", count: 4), .init(name: "y", size: 4, type: "F"),
            .init(name: "rgb", size: 4, type: "U"), .init(name: "z", size: 8, type: "F"),
            .init(name: "normal", size: 4, type: "F", count: 3),
        ]
        for data in ["ascii", "binary"] {
            let input = "\(dir)/padded-\(data).pcd"
            try PointCloudWriter.write(bytes: PCDField.file(fields, points, data: data), to: input)
            for mode in 0...2 {
                let output = "\(dir)/padded-\(data)-pcl\(mode).pcd"
                try Self.convert(input, output, mode)
                let read = try PointCloudReader.read(path: output)
                expectSamePoints(read.points, points, "padded \(data) via PCL mode \(mode) (\(read.format))")
            }
        }
    }

    @Test(
        "pcl_normal_estimation output (normals before x y z) in every encoding",
        .enabled(if: ExternalTools.find("pcl_normal_estimation") != nil && ExternalTools.hasPCL))
    func pclNormals() throws {
        let dir = try ExternalTools.temporaryDirectory("pcl")
        defer { ExternalTools.remove(dir) }
        let points = Fixtures.randomPoints(1500, seed: 25).map { $0 / 10 }
        try PointCloudWriter.write(points, as: .pcd(.binary), to: "\(dir)/in.pcd")
        let out = try ExternalTools.run("pcl_normal_estimation", ["\(dir)/in.pcd", "\(dir)/normals.pcd", "-k", "10"])
        try #require(out.status == 0, "\(out.text)")
        let header = try PointCloudReader.read(path: "\(dir)/normals.pcd")
        expectSamePoints(header.points, points, "pcl_normal_estimation output (\(header.format))")
        for mode in 0...2 {
            try Self.convert("\(dir)/normals.pcd", "\(dir)/normals\(mode).pcd", mode)
            let read = try PointCloudReader.read(path: "\(dir)/normals\(mode).pcd")
            expectSamePoints(read.points, points, "normals via PCL mode \(mode) (\(read.format))")
        }
    }

    @Test("pcl_pcd2ply and pcl_ply2pcd in both encodings", .enabled(if: ExternalTools.hasPCLPLY))
    func pclPLY() throws {
        let dir = try ExternalTools.temporaryDirectory("pcl")
        defer { ExternalTools.remove(dir) }
        let points = Fixtures.randomPoints(2000, seed: 23)
        let pcd = "\(dir)/in.pcd"
        try PointCloudWriter.write(points, as: .pcd(.binary), to: pcd)
        for (flag, format) in [("0", "PLY ascii"), ("1", "PLY binary_little_endian")] {
            let ply = "\(dir)/pcl\(flag).ply"
            let out = try ExternalTools.run("pcl_pcd2ply", ["-format", flag, pcd, ply])
            #expect(out.status == 0, "\(out.text)")
            let read = try PointCloudReader.read(path: ply)
            #expect(read.format == format)
            expectSamePoints(
                read.points, points, tolerance: flag == "0" ? 1e-5 : 0, "pcl_pcd2ply -format \(flag)")
        }
        for encoding in PointCloudWriter.PLYEncoding.allCases {
            let ply = "\(dir)/ours-\(encoding.rawValue).ply"
            try PointCloudWriter.write(points, as: .ply(encoding), to: ply)
            for flag in ["0", "1"] {
                let out = "\(dir)/pcl-\(encoding.rawValue)-\(flag).pcd"
                let result = try ExternalTools.run("pcl_ply2pcd", ["-format", flag, ply, out])
                #expect(result.status == 0, "\(result.text)")
                let read = try PointCloudReader.read(path: out)
                expectSamePoints(
                    read.points, points, tolerance: flag == "0" ? 1e-5 : 0,
                    "pcl_ply2pcd \(encoding) -format \(flag) (\(read.format))")
            }
        }
    }
}

@Suite("Cross-checks with Open3D", .serialized)
struct Open3DTests {
    static let script = """
        import sys
        import open3d as o3d
        outdir = sys.argv[1]
        for src in sys.argv[2:]:
            pcd = o3d.io.read_point_cloud(src)
            base = src.rsplit("/", 1)[-1].replace(".", "_")
            print(src, len(pcd.points))
            for name, kw in [("ascii.pcd", dict(write_ascii=True)), ("binary.pcd", {}),
                             ("compressed.pcd", dict(compressed=True)),
                             ("ascii.ply", dict(write_ascii=True)), ("binary.ply", {})]:
                assert o3d.io.write_point_cloud(f"{outdir}/{base}-o3d-{name}", pcd, **kw), name
        """

    @Test(
        "Open3D reads each of our formats and writes PCD/PLY (ascii, binary, compressed) that we read",
        .enabled(if: ExternalTools.hasOpen3D))
    func open3DRoundTrips() throws {
        let dir = try ExternalTools.temporaryDirectory("o3d")
        defer { ExternalTools.remove(dir) }
        let points = Fixtures.randomPoints(2500, seed: 31)
        var inputs: [String] = []
        let formats: [(PointCloudWriter.Format, String)] = [
            (.pcd(.ascii), "ascii.pcd"), (.pcd(.binary), "binary.pcd"),
            (.pcd(.binaryCompressed), "compressed.pcd"),
            (.ply(.ascii), "ascii.ply"), (.ply(.binaryLittleEndian), "binary.ply"),
        ]
        for (format, name) in formats {
            let path = "\(dir)/ours-\(name)"
            try PointCloudWriter.write(points, as: format, to: path)
            inputs.append(path)
        }
        try PointCloudWriter.write(bytes: Array(Self.script.utf8), to: "\(dir)/convert.py")
        let out = try ExternalTools.run("python3", ["\(dir)/convert.py", dir] + inputs)
        try #require(out.status == 0, "\(out.text)")
        for input in inputs {
            let base = String(input.split(separator: "/").last!).replacingOccurrences(of: ".", with: "_")
            for (_, name) in formats {
                let path = "\(dir)/\(base)-o3d-\(name)"
                let read = try PointCloudReader.read(path: path)
                // Open3D's text writers round (PLY ASCII keeps about 6 digits); binary must be exact.
                let tolerance: Float = name.hasPrefix("ascii") ? 1e-5 : 0
                let expectedFormat = [
                    "ascii.pcd": "PCD ascii", "binary.pcd": "PCD binary",
                    "compressed.pcd": "PCD binary_compressed",
                    "ascii.ply": "PLY ascii", "binary.ply": "PLY binary_little_endian",
                ][name]
                #expect(read.format == expectedFormat)
                expectSamePoints(
                    read.points, points, tolerance: tolerance,
                    "\(base) -> Open3D \(name) (\(read.format)); Open3D said: \(out.text)")
            }
        }
    }
}

@Suite("Voxel counts against Open3D")
struct Open3DVoxelTests {
    @Test(
        "the occupancy map's voxels equal Open3D's VoxelGrid of the same file on the same grid (every site, 0.2 and 0.5 m)",
        .enabled(if: ExternalTools.hasOpen3D), arguments: [0.2, 0.5])
    func voxelCounts(resolution: Double) throws {
        let dir = try ExternalTools.temporaryDirectory("o3d-voxels")
        defer { ExternalTools.remove(dir) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/open3d-voxel-bench.py").path
        // Shifted off the grid, so that points are not on voxel faces; one Open3D run for the four sites.
        let scenes = [SiteScene.hall(), .bridge(), .forest(), .courtyard()]
        var clouds: [String: [SIMD3<Float>]] = [:]
        for scene in scenes {
            let path = "\(dir)/\(scene.name).pcd"
            clouds[path] = scene.cloud.points.map { $0 + SIMD3<Float>(0.013, -0.021, 0.007) }
            try PointCloudWriter.write(clouds[path]!, as: .pcd(.binary), to: path)
        }
        let files = scenes.map { "\(dir)/\($0.name).pcd" }
        let out = try ExternalTools.run("python3", [script, "\(resolution)", "1"] + files)
        try #require(out.status == 0, "\(out.text)")
        let lines = out.text.split(separator: "\n").filter { $0.hasPrefix("{") }
        try #require(lines.count == files.count, "\(out.text)")
        for line in lines {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try #require(json["file"] as? String)
            let points = try #require(clouds[path])
            let map = try OccupancyMap(cloud: PointCloud(points: points), resolution: resolution)
            #expect(json["points"] as? Int == points.count)
            #expect(json["voxels"] as? Int == map.voxelCount, "\(path) at \(resolution) m")
        }
    }
}

@Suite("Planning in clouds sampled from meshes by PCL")
struct PCLMeshSamplingTests {
    /// An OBJ mesh of axis-aligned boxes (12 triangles each).
    static func obj(_ boxes: [(SIMD3<Double>, SIMD3<Double>)]) -> String {
        var v: [String] = [], f: [String] = []
        for (b, (lo, hi)) in boxes.enumerated() {
            for z in [lo.z, hi.z] {
                for (x, y) in [(lo.x, lo.y), (hi.x, lo.y), (hi.x, hi.y), (lo.x, hi.y)] { v.append("v \(x) \(y) \(z)") }
            }
            let o = b * 8
            for t in [
                (1, 2, 3), (1, 3, 4), (5, 6, 7), (5, 7, 8), (1, 2, 6), (1, 6, 5), (2, 3, 7), (2, 7, 6), (3, 4, 8),
                (3, 8, 7), (4, 1, 5), (4, 5, 8),
            ] { f.append("f \(t.0 + o) \(t.1 + o) \(t.2 + o)") }
        }
        return (v + f).joined(separator: "\n") + "\n"
    }

    /// Distance from `p` to the surface of the box, or 0 inside it.
    static func distance(_ p: SIMD3<Double>, _ lo: SIMD3<Double>, _ hi: SIMD3<Double>) -> Double {
        let outside = pointwiseMax(pointwiseMax(lo - p, p - hi), .zero)
        return (outside * outside).sum().squareRoot()
    }

    @Test(
        "a tower and a wall sampled by pcl_mesh_sampling: the route keeps the clearance from the cloud and from the mesh",
        .enabled(if: ExternalTools.find("pcl_mesh_sampling") != nil))
    func meshSampled() throws {
        let dir = try ExternalTools.temporaryDirectory("mesh")
        defer { ExternalTools.remove(dir) }
        let boxes: [(SIMD3<Double>, SIMD3<Double>)] = [
            (SIMD3(-1, -1, 0), SIMD3(1, 1, 12)),  // a tower
            (SIMD3(6, -10, 0), SIMD3(7, 10, 6)),  // a wall
            (SIMD3(-15, -15, -0.2), SIMD3(20, 15, 0)),  // the ground
        ]
        try PointCloudWriter.write(bytes: Array(Self.obj(boxes).utf8), to: "\(dir)/site.obj")
        let out = try ExternalTools.run(
            "pcl_mesh_sampling",
            ["\(dir)/site.obj", "\(dir)/site.pcd", "-n_samples", "400000", "-leaf_size", "0.1", "-no_vis_result"])
        try #require(out.status == 0, "\(out.text)")
        let cloud = try PointCloudReader.read(path: "\(dir)/site.pcd")
        #expect(cloud.points.count > 20_000, "\(cloud.points.count) points")
        // Every sample lies on a box's surface.
        for q in cloud.points.prefix(5_000) {
            let p = SIMD3<Double>(q)
            #expect(boxes.contains { Self.distance(p, $0.0, $0.1) < 1e-3 })
        }
        let map = try OccupancyMap(cloud: cloud, resolution: 0.2, queryRadius: 1.2)
        let route = try InspectionPlanner(map: map).plan(
            [
                SnapshotPoint(position: SIMD3(-3, 0, 4), heading: 90, label: "tower west"),
                SnapshotPoint(position: SIMD3(3, 0, 4), heading: 270, label: "tower east"),
                SnapshotPoint(position: SIMD3(10, 0, 3), heading: 270, label: "behind the wall"),
            ], start: SIMD3(-8, -8, 2))
        #expect(bruteClearance(route.vertices, cloud) >= 1.0)
        // Against the mesh itself: the samples are at most about 0.1 m apart, so the surface between them is close.
        var closest = Double.infinity
        for (a, b) in zip(route.vertices, route.vertices.dropFirst()) {
            for k in 0...200 {
                let p = a + (b - a) * (Double(k) / 200)
                for box in boxes { closest = min(closest, Self.distance(p, box.0, box.1)) }
            }
        }
        #expect(closest >= 0.9, "\(closest) m from the mesh")
    }
}
