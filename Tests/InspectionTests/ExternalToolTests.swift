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
        for scene in [SiteScene.hall(), .bridge(), .forest(), .courtyard()] {
            // Shifted off the grid, so that points are not on voxel faces.
            let points = scene.cloud.points.map { $0 + SIMD3<Float>(0.013, -0.021, 0.007) }
            let path = "\(dir)/\(scene.name).pcd"
            try PointCloudWriter.write(points, as: .pcd(.binary), to: path)
            let out = try ExternalTools.run("python3", [script, path, "\(resolution)", "1"])
            try #require(out.status == 0, "\(out.text)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [String: Any], "\(out.text)")
            let map = try OccupancyMap(cloud: PointCloud(points: points), resolution: resolution)
            #expect(json["points"] as? Int == points.count)
            #expect(json["voxels"] as? Int == map.voxelCount, "\(scene.name) at \(resolution) m")
        }
    }
}
