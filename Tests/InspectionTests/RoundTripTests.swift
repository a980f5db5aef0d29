import Testing

@testable import Inspection

@Suite("Round trips through the writer and reader")
struct RoundTripTests {
    static let formats: [PointCloudWriter.Format] = [
        .pcd(.ascii), .pcd(.binary), .pcd(.binaryCompressed), .ply(.ascii), .ply(.binaryLittleEndian),
    ]

    static func read(_ bytes: [UInt8], _ format: PointCloudWriter.Format) throws -> PointCloud {
        switch format {
        case .pcd: return try PointCloudReader.readPCD(bytes, file: "t.pcd")
        case .ply: return try PointCloudReader.readPLY(bytes, file: "t.ply")
        }
    }

    @Test("every format reads back bit-exactly", arguments: formats)
    func roundTrip(format: PointCloudWriter.Format) throws {
        let points = Fixtures.randomPoints(5000, seed: 7)
        let cloud = try Self.read(PointCloudWriter.encode(points, as: format), format)
        #expect(cloud.points.count == points.count)
        #expect(cloud.droppedNonFinite == 0)
        for (a, b) in zip(cloud.points, points) where a != b {
            Issue.record("\(format): read \(a), wrote \(b)")
            break
        }
        let expected: [String] = [
            "PCD ascii", "PCD binary", "PCD binary_compressed", "PLY ascii", "PLY binary_little_endian",
        ]
        #expect(cloud.format == expected[Self.formats.firstIndex(of: format)!])
    }

    @Test("empty clouds", arguments: formats)
    func empty(format: PointCloudWriter.Format) throws {
        let cloud = try Self.read(PointCloudWriter.encode([], as: format), format)
        #expect(cloud.points.isEmpty)
        #expect(cloud.droppedNonFinite == 0)
    }

    @Test("organised cloud with NaN returns: NaN points dropped and counted", arguments: formats)
    func organisedWithNaN(format: PointCloudWriter.Format) throws {
        var points = Fixtures.randomPoints(64 * 48, seed: 3)
        var finite: [SIMD3<Float>] = []
        var nanCount = 0
        for i in points.indices {
            if i % 7 == 0 || (i / 64) == 5 {
                points[i] = SIMD3(.nan, .nan, .nan)
                nanCount += 1
            } else if i % 101 == 0 {
                points[i].z = .infinity
                nanCount += 1
            } else {
                finite.append(points[i])
            }
        }
        let bytes: [UInt8]
        if case .pcd(let e) = format {
            bytes = PointCloudWriter.pcd(points, encoding: e, width: 64)
            #expect(String(decoding: bytes.prefix(400), as: UTF8.self).contains("WIDTH 64\nHEIGHT 48\n"))
        } else {
            bytes = PointCloudWriter.encode(points, as: format)
        }
        let cloud = try Self.read(bytes, format)
        #expect(cloud.droppedNonFinite == nanCount)
        #expect(cloud.points == finite)
    }

    @Test("read(path:) picks the format by extension, any case")
    func readPath() throws {
        let points = Fixtures.randomPoints(100)
        let dir = "/tmp/inspection-roundtrip-\(getpid())"
        mkdir(dir, 0o755)
        defer {
            for f in ["a.PCD", "b.Ply"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }
        try PointCloudWriter.write(points, as: .pcd(.binaryCompressed), to: "\(dir)/a.PCD")
        try PointCloudWriter.write(points, as: .ply(.binaryLittleEndian), to: "\(dir)/b.Ply")
        #expect(try PointCloudReader.read(path: "\(dir)/a.PCD").points == points)
        #expect(try PointCloudReader.read(path: "\(dir)/b.Ply").points == points)
    }

    @Test("read(path:) errors: unknown extension, missing file")
    func readPathErrors() {
        #expect(
            throws: PointCloudError(
                file: "scan.xyz", location: .file,
                reason: "unknown point cloud extension '.xyz' (expected .pcd or .ply)")
        ) {
            try PointCloudReader.read(path: "/tmp/scan.xyz")
        }
        #expect(
            throws: PointCloudError(
                file: "scan", location: .file,
                reason: "unknown point cloud extension none (expected .pcd or .ply)")
        ) {
            try PointCloudReader.read(path: "/tmp/scan")
        }
        let missing = PointCloudError(
            file: "site.pcd", location: .file, reason: "cannot read: No such file or directory")
        #expect(throws: missing) { try PointCloudReader.read(path: "/nonexistent-dir/site.pcd") }
        #expect(missing.description == "site.pcd: cannot read: No such file or directory")
    }

    @Test("error descriptions")
    func descriptions() {
        #expect(
            PointCloudError(
                file: "site.pcd", location: .line(12), reason: "expected 3 values (x y z), found 2"
            ).description
                == "site.pcd:12: expected 3 values (x y z), found 2")
        #expect(
            PointCloudError(
                file: "site.pcd", location: .byte(1024),
                reason: "compressed data ends early (needs 4096 bytes, 812 left)"
            ).description
                == "site.pcd: byte 1024: compressed data ends early (needs 4096 bytes, 812 left)")
    }
}

#if canImport(Glibc)
    import Glibc
#endif
