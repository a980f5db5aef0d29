import Testing

@testable import Inspection

@Suite("PCD reader")
struct PCDReaderTests {
    static let encodings = ["ascii", "binary", "binary_compressed"]

    static func read(_ bytes: [UInt8]) throws -> PointCloud {
        try PointCloudReader.readPCD(bytes, file: "site.pcd")
    }

    static func error(_ line: Int, _ reason: String) -> PointCloudError {
        PointCloudError(file: "site.pcd", location: .line(line), reason: reason)
    }

    @Test(
        "extra fields in varied orders (rgb, intensity, `_` padding, normals, curvature)",
        arguments: encodings)
    func extraFields(data: String) throws {
        let points = Fixtures.randomPoints(300, seed: 11)
        let layouts: [[PCDField]] = [
            [
                .init(name: "x", size: 4, type: "F"), .init(name: "y", size: 4, type: "F"),
                .init(name: "z", size: 4, type: "F"),
                .init(name: "_", size: 1, type: "U", count: 4), .init(name: "rgb", size: 4, type: "U"),
            ],
            [
                .init(name: "rgb", size: 4, type: "F"), .init(name: "intensity", size: 2, type: "U"),
                .init(name: "z", size: 4, type: "F"),
                .init(name: "_", size: 1, type: "U", count: 2), .init(name: "x", size: 4, type: "F"),
                .init(name: "normal", size: 4, type: "F", count: 3), .init(name: "y", size: 4, type: "F"),
                .init(name: "curvature", size: 4, type: "F"),
            ],
            [
                .init(name: "normal_x", size: 4, type: "F"), .init(name: "normal_y", size: 4, type: "F"),
                .init(name: "normal_z", size: 4, type: "F"), .init(name: "y", size: 8, type: "F"),
                .init(name: "x", size: 8, type: "F"),
                .init(name: "label", size: 8, type: "I"), .init(name: "z", size: 8, type: "F"),
                .init(name: "_", size: 1, type: "U", count: 3),
            ],
        ]
        for fields in layouts {
            let cloud = try Self.read(PCDField.file(fields, points, data: data))
            #expect(cloud.points == points, "\(fields.map(\.name))")
            #expect(cloud.format == "PCD \(data)")
        }
    }

    @Test("binary_compressed that keeps `_` padding in the packed data is accepted too")
    func compressedWithPadding() throws {
        let points = Fixtures.randomPoints(50)
        let fields: [PCDField] = [
            .init(name: "x", size: 4, type: "F"), .init(name: "_", size: 1, type: "U", count: 4),
            .init(name: "y", size: 4, type: "F"), .init(name: "z", size: 4, type: "F"),
        ]
        #expect(
            try Self.read(
                PCDField.file(fields, points, data: "binary_compressed", paddingInCompressed: true)
            ).points == points)
    }

    @Test("integer coordinates (I/U of every size)", arguments: encodings)
    func integerFields(data: String) throws {
        let points: [SIMD3<Float>] = (0..<40).map { SIMD3(Float($0), Float(100 - $0), Float($0 % 7)) }
        let fields: [PCDField] = [
            .init(name: "z", size: 1, type: "U"), .init(name: "x", size: 2, type: "I"),
            .init(name: "y", size: 8, type: "U"),
        ]
        #expect(try Self.read(PCDField.file(fields, points, data: data)).points == points)
        let wide: [PCDField] = [
            .init(name: "x", size: 4, type: "I"), .init(name: "y", size: 4, type: "U"),
            .init(name: "z", size: 2, type: "U"),
        ]
        #expect(try Self.read(PCDField.file(wide, points, data: data)).points == points)
    }

    @Test("old headers: VERSION .5 / 0.6, no COUNT, no WIDTH/HEIGHT, COLUMNS")
    func oldHeaders() throws {
        let text =
            "VERSION .5\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nPOINTS 2\nDATA ascii\n1 2 3\n4 5 6\n"
        #expect(try Self.read(Fixtures.text(text)).points == [SIMD3(1, 2, 3), SIMD3(4, 5, 6)])
        let v6 =
            "VERSION 0.6\nCOLUMNS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 2\nDATA ascii\n1 2 3\r\n\n4 5 6"
        #expect(try Self.read(Fixtures.text(v6)).points == [SIMD3(1, 2, 3), SIMD3(4, 5, 6)])
    }

    @Test("ASCII NaN spellings and blank lines")
    func asciiNaN() throws {
        let text = """
            FIELDS x y z rgb
            SIZE 4 4 4 4
            TYPE F F F F
            WIDTH 2
            HEIGHT 2
            POINTS 4
            DATA ascii
            nan nan nan 0
            1.5 -2e1 +3 4.2108e+06

            -nan 1 1 0
            \t 7 8 9 0\t

            """
        let cloud = try Self.read(Fixtures.text(text))
        #expect(cloud.points == [SIMD3(1.5, -20, 3), SIMD3(7, 8, 9)])
        #expect(cloud.droppedNonFinite == 2)
    }

    static let good =
        "# c\nVERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 2\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 2\n"

    @Test("header errors name the line")
    func headerErrors() {
        func check(
            _ text: String, _ expected: PointCloudError, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(throws: expected, sourceLocation: sourceLocation) {
                try Self.read(Fixtures.text(text))
            }
        }
        check(
            "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nPOINTS 1\n",
            PointCloudError(file: "site.pcd", location: .file, reason: "no DATA line in header"))
        check(
            "SIZE 4 4 4\nTYPE F F F\nPOINTS 1\nDATA ascii\n", Self.error(4, "missing FIELDS before DATA"))
        check(
            "FIELDS x y z\nTYPE F F F\nPOINTS 1\nDATA ascii\n", Self.error(4, "missing SIZE before DATA"))
        check(
            "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nDATA ascii\n",
            Self.error(4, "missing POINTS before DATA"))
        check(
            "VERSION 0.7\nFIELDS x y rgb\nSIZE 4 4 4\nTYPE F F F\nPOINTS 1\nDATA ascii\n",
            Self.error(2, "FIELDS has no 'z' (needs x, y and z)"))
        check(
            "FIELDS x y z\nSIZE 4 4\nTYPE F F F\nPOINTS 1\nDATA ascii\n",
            Self.error(2, "SIZE has 2 values, FIELDS has 3"))
        check(
            "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F F\nPOINTS 1\nDATA ascii\n",
            Self.error(3, "TYPE has 4 values, FIELDS has 3"))
        check(
            "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1\nPOINTS 1\nDATA ascii\n",
            Self.error(4, "COUNT has 2 values, FIELDS has 3"))
        check(
            "FIELDS x y z\nSIZE 4 4 4\nTYPE F Q F\n",
            Self.error(3, "unknown TYPE 'Q' (expected F, I or U)"))
        check(
            "FIELDS x y z\nSIZE 4 2 4\nTYPE F F F\nPOINTS 1\nDATA ascii\n",
            Self.error(3, "field 'y': SIZE 2 is not valid for TYPE F"))
        check("FIELDS x y z\nSIZE 4 4 four\n", Self.error(2, "SIZE: bad value 'four'"))
        check(
            "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 0 1\n", Self.error(4, "COUNT: bad value '0'"))
        check(
            "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 640\nHEIGHT 2\nPOINTS 1000\nDATA binary\n",
            Self.error(6, "POINTS 1000 does not match WIDTH*HEIGHT = 640*2"))
        check(
            "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH -1\n", Self.error(4, "WIDTH: bad value '-1'"))
        check("VERSION 0.9\n", Self.error(1, "unsupported VERSION '0.9' (expected 0.7, 0.6 or 0.5)"))
        check("# x\nFIELDS x y z\nRANGE 1\n", Self.error(3, "unknown header keyword 'RANGE'"))
        check(
            Self.good + "DATA binary_lzma\n",
            Self.error(
                11, "unknown DATA format 'binary_lzma' (expected ascii, binary or binary_compressed)"))
    }

    @Test("ASCII data errors name the line")
    func asciiErrors() {
        let shortLine = Self.good + "DATA ascii\n1 2 3\n4 5\n"
        #expect(throws: Self.error(13, "expected 3 values (x y z), found 2")) {
            try Self.read(Fixtures.text(shortLine))
        }
        let longLine = Self.good + "DATA ascii\n1 2 3 4\n"
        #expect(throws: Self.error(12, "expected 3 values (x y z), found 4")) {
            try Self.read(Fixtures.text(longLine))
        }
        let badNumber = Self.good + "DATA ascii\n1 2 3\n4 5e 6\n"
        #expect(throws: Self.error(13, "bad number '5e' for field 'y'")) {
            try Self.read(Fixtures.text(badNumber))
        }
        let early = Self.good + "DATA ascii\n1 2 3\n"
        #expect(throws: Self.error(13, "data ends early: expected 2 points, found 1")) {
            try Self.read(Fixtures.text(early))
        }
        let counted =
            "FIELDS x y z normal\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 3\nPOINTS 1\nDATA ascii\n1 2 3 4 5\n"
        #expect(throws: Self.error(7, "expected 6 values (x y z normal*3), found 5")) {
            try Self.read(Fixtures.text(counted))
        }
    }

    @Test("binary data errors give byte offsets")
    func binaryErrors() {
        let header = Self.good + "DATA binary\n"
        var bytes = Fixtures.text(header)
        bytes += [UInt8](repeating: 0, count: 20)
        #expect(
            throws: PointCloudError(
                file: "site.pcd", location: .byte(header.utf8.count),
                reason: "binary data ends early (needs 24 bytes, 20 left)")
        ) {
            try Self.read(bytes)
        }
    }

    @Test("binary_compressed errors give byte offsets")
    func compressedErrors() throws {
        let points = Fixtures.randomPoints(100)
        let good = PointCloudWriter.pcd(points, encoding: .binaryCompressed)
        let headerEnd = Self.dataStart(good)
        let smallStart = (Self.good + "DATA binary_compressed\n").utf8.count
        func at(_ offset: Int, _ reason: String) -> PointCloudError {
            PointCloudError(file: "site.pcd", location: .byte(offset), reason: reason)
        }
        // Sizes cut short.
        #expect(throws: at(headerEnd, "compressed header ends early (needs 8 bytes, 5 left)")) {
            try Self.read(Array(good.prefix(headerEnd + 5)))
        }
        // Compressed payload cut short.
        let compressed =
            Int(good[headerEnd]) | Int(good[headerEnd + 1]) << 8 | Int(good[headerEnd + 2]) << 16
        #expect(
            throws: at(headerEnd + 8, "compressed data ends early (needs \(compressed) bytes, 100 left)")
        ) {
            try Self.read(Array(good.prefix(headerEnd + 108)))
        }
        // Wrong uncompressed size.
        var wrongSize = good
        wrongSize[headerEnd + 4] &+= 4
        #expect(
            throws: at(headerEnd + 4, "uncompressed size 1204 does not match POINTS*point size = 100*12")
        ) {
            try Self.read(wrongSize)
        }
        // A back-reference before the start of the output.
        var b = ByteBuilder()
        b.bytes = Fixtures.text(Self.good + "DATA binary_compressed\n")
        b.int(UInt32(6))
        b.int(UInt32(24))
        b.bytes += [0x01, 0x41, 0x42, 0x20, 0x05, 0x00]
        #expect(
            throws: at(
                smallStart + 11,
                "corrupt LZF data: back-reference before start of output (6 back at output byte 2)")
        ) {
            try Self.read(b.bytes)
        }
        // Data that decodes to too little.
        var c = ByteBuilder()
        c.bytes = Fixtures.text(Self.good + "DATA binary_compressed\n")
        c.int(UInt32(3))
        c.int(UInt32(24))
        c.bytes += [0x01, 0x41, 0x42]
        #expect(throws: at(smallStart + 11, "corrupt LZF data: decodes to 2 bytes, expected 24")) {
            try Self.read(c.bytes)
        }
    }

    /// Offset of the first byte after the `DATA` line.
    static func dataStart(_ bytes: [UInt8]) -> Int {
        let marker = Array("DATA binary_compressed\n".utf8)
        for i in 0...(bytes.count - marker.count) where Array(bytes[i..<(i + marker.count)]) == marker {
            return i + marker.count
        }
        return -1
    }
}
