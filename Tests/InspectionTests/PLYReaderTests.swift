import Testing

@testable import Inspection

/// A PLY property for hand-made files: `list` holds the count type for list properties.
struct PLYProp {
    var type: String
    var name: String
    var list: String? = nil
}

/// Builds a PLY file; x/y/z of `vertex` take the points, everything else filler (lists of i % 4 items).
func makePLY(
    _ encoding: String, points: [SIMD3<Float>], vertex: [PLYProp],
    before: [(String, Int, [PLYProp])] = [], after: [(String, Int, [PLYProp])] = []
) -> [UInt8] {
    let elements = before + [("vertex", points.count, vertex)] + after
    var b = ByteBuilder()
    b.bigEndian = encoding == "binary_big_endian"
    b.text("ply\nformat \(encoding) 1.0\ncomment made by a test\nobj_info nothing\n")
    for (name, count, props) in elements {
        b.text("element \(name) \(count)\n")
        for p in props {
            b.text(
                p.list.map { "property list \($0) \(p.type) \(p.name)\n" }
                    ?? "property \(p.type) \(p.name)\n")
        }
    }
    b.text("end_header\n")
    for (name, count, props) in elements {
        for i in 0..<count {
            var words: [String] = []
            for p in props {
                let t = PLYReader.scalar(p.type)!
                var values: [Double]
                switch (name, p.name) {
                case ("vertex", "x"): values = [Double(points[i].x)]
                case ("vertex", "y"): values = [Double(points[i].y)]
                case ("vertex", "z"): values = [Double(points[i].z)]
                default: values = p.list == nil ? [Double(i % 50)] : (0..<(i % 4)).map { Double($0 + 1) }
                }
                if let ct = p.list {
                    if encoding == "ascii" {
                        words.append(String(values.count))
                    } else {
                        b.scalar(Double(values.count), PLYReader.scalar(ct)!)
                    }
                }
                for v in values {
                    if encoding == "ascii" {
                        words.append(t == .float32 ? "\(Float(v))" : t == .float64 ? "\(v)" : "\(Int(v))")
                    } else {
                        b.scalar(v, t)
                    }
                }
            }
            if encoding == "ascii" { b.text(words.joined(separator: " ") + "\n") }
        }
    }
    return b.bytes
}

@Suite("PLY reader")
struct PLYReaderTests {
    static let encodings = ["ascii", "binary_little_endian", "binary_big_endian"]
    static let face: (String, Int, [PLYProp]) = (
        "face", 9,
        [
            PLYProp(type: "int", name: "vertex_indices", list: "uchar"),
            PLYProp(type: "uchar", name: "flags"),
        ]
    )
    static let edge: (String, Int, [PLYProp]) = (
        "edge", 5, [PLYProp(type: "int32", name: "vertex1"), PLYProp(type: "int32", name: "vertex2")]
    )

    static func read(_ bytes: [UInt8]) throws -> PointCloud {
        try PointCloudReader.readPLY(bytes, file: "mesh.ply")
    }

    static func error(_ line: Int, _ reason: String) -> PointCloudError {
        PointCloudError(file: "mesh.ply", location: .line(line), reason: reason)
    }

    @Test(
        "faces before and after vertices, extra vertex properties, double coordinates",
        arguments: encodings)
    func elementsAroundVertices(encoding: String) throws {
        let points = Fixtures.randomPoints(200, seed: 5)
        let vertexLayouts: [[PLYProp]] = [
            [
                PLYProp(type: "float", name: "x"), PLYProp(type: "float", name: "y"),
                PLYProp(type: "float", name: "z"),
            ],
            [
                PLYProp(type: "double", name: "y"), PLYProp(type: "float", name: "nx"),
                PLYProp(type: "uchar", name: "red"),
                PLYProp(type: "float64", name: "x"), PLYProp(type: "float32", name: "z"),
                PLYProp(type: "ushort", name: "id"),
            ],
            [
                PLYProp(type: "float", name: "z"), PLYProp(type: "int", name: "uv", list: "uint8"),
                PLYProp(type: "float", name: "x"),
                PLYProp(type: "float", name: "y"),
            ],
        ]
        for vertex in vertexLayouts {
            for (before, after) in [
                ([Self.face], [Self.edge]), ([], [Self.face]), ([Self.face, Self.edge], []),
            ] {
                let file = makePLY(encoding, points: points, vertex: vertex, before: before, after: after)
                let cloud = try Self.read(file)
                #expect(cloud.points == points, "\(vertex.map(\.name)) before: \(before.map(\.0))")
                #expect(cloud.format == "PLY \(encoding)")
            }
        }
    }

    @Test("integer vertex coordinates")
    func integerCoordinates() throws {
        let points: [SIMD3<Float>] = (0..<20).map { SIMD3(Float($0), -Float($0), 3) }
        let vertex = [
            PLYProp(type: "short", name: "x"), PLYProp(type: "int", name: "y"),
            PLYProp(type: "uchar", name: "z"),
        ]
        for e in Self.encodings {
            #expect(try Self.read(makePLY(e, points: points, vertex: vertex)).points == points)
        }
    }

    @Test("header errors name the line")
    func headerErrors() {
        func check(
            _ text: String, _ expected: PointCloudError, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(throws: expected, sourceLocation: sourceLocation) {
                try Self.read(Fixtures.text(text))
            }
        }
        check("PLY\n", Self.error(1, "not a PLY file (first line must be 'ply')"))
        check(
            "ply\nformat binary_middle_endian 1.0\n",
            Self.error(
                2,
                "unknown format 'binary_middle_endian' (expected ascii, binary_little_endian or binary_big_endian)"
            ))
        check("ply\nformat ascii 2.0\n", Self.error(2, "unsupported PLY version '2.0'"))
        check(
            "ply\nformat ascii 1.0\nproperty float x\n", Self.error(3, "property outside of an element"))
        check(
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty half x\n",
            Self.error(4, "unknown property type 'half'"))
        check(
            "ply\nformat ascii 1.0\nelement face 1\nproperty list float int idx\n",
            Self.error(4, "list count type must be an integer type, found 'float'"))
        check("ply\nformat ascii 1.0\nelement vertex many\n", Self.error(3, "bad element count 'many'"))
        check(
            "ply\nformat ascii 1.0\nelement face 0\nend_header\n", Self.error(4, "no 'vertex' element"))
        check(
            "ply\ncomment\nelement vertex 1\nproperty float x\nend_header\n",
            Self.error(5, "missing format line"))
        check(
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n",
            Self.error(3, "element 'vertex' has no property 'z'"))
        check(
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n",
            PointCloudError(file: "mesh.ply", location: .file, reason: "header has no end_header line"))
        check("ply\nformat ascii 1.0\nvertices 3\n", Self.error(3, "unknown header keyword 'vertices'"))
    }

    static let asciiHeader =
        "ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int vertex_indices\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n"

    @Test("ASCII data errors name the line")
    func asciiErrors() throws {
        #expect(throws: Self.error(12, "expected 3 values (x y z), found 2")) {
            try Self.read(Fixtures.text(Self.asciiHeader + "3 0 1 2\n1 2 3\n4 5\n"))
        }
        #expect(throws: Self.error(11, "bad number 'one' for property 'x'")) {
            try Self.read(Fixtures.text(Self.asciiHeader + "3 0 1 2\none 2 3\n4 5 6\n"))
        }
        #expect(throws: Self.error(12, "data ends early: expected 2 'vertex' entries, found 1")) {
            try Self.read(Fixtures.text(Self.asciiHeader + "3 0 1 2\n1 2 3\n"))
        }
        #expect(throws: Self.error(10, "data ends early: expected 1 'face' entries, found 0")) {
            try Self.read(Fixtures.text(Self.asciiHeader))
        }
        let listVertex =
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty list uchar int l\nproperty float y\nproperty float z\nend_header\n"
        #expect(throws: Self.error(9, "line ends inside list 'l'")) {
            try Self.read(Fixtures.text(listVertex + "1 3 7 7\n"))
        }
        #expect(throws: Self.error(9, "line ends before property 'z'")) {
            try Self.read(Fixtures.text(listVertex + "1 2 7 7 2\n"))
        }
        #expect(throws: Self.error(9, "bad list count '-1' for property 'l'")) {
            try Self.read(Fixtures.text(listVertex + "1 -1 2 3\n"))
        }
        #expect(try Self.read(Fixtures.text(listVertex + "1 2 7 7 2 3\n")).points == [SIMD3(1, 2, 3)])
    }

    @Test("binary data errors give byte offsets")
    func binaryErrors() {
        let points = Fixtures.randomPoints(10)
        let vertex = [
            PLYProp(type: "float", name: "x"), PLYProp(type: "float", name: "y"),
            PLYProp(type: "float", name: "z"),
        ]
        let file = makePLY("binary_little_endian", points: points, vertex: vertex, before: [Self.face])
        let headerLength = Array(file).firstRange(of: Array("end_header\n".utf8))!.upperBound
        // Faces: 9 entries of 1 count byte + (i % 4) ints + 1 flag byte.
        let faceBytes = (0..<9).reduce(0) { $0 + 2 + 4 * ($1 % 4) }
        func at(_ offset: Int, _ reason: String) -> PointCloudError {
            PointCloudError(file: "mesh.ply", location: .byte(offset), reason: reason)
        }
        #expect(
            throws: at(
                headerLength + faceBytes, "data ends early in element 'vertex' (needs 120 bytes, 119 left)")
        ) {
            try Self.read(Array(file.dropLast()))
        }
        // Cut inside face 2's list (count byte 2, then 2 ints): 2 + 6 + 1 bytes precede its items.
        #expect(
            throws: at(
                headerLength + 9, "data ends early in element 'face' at entry 2 (needs 8 bytes, 3 left)")
        ) {
            try Self.read(Array(file.prefix(headerLength + 12)))
        }
        var negative = Fixtures.text(
            "ply\nformat binary_little_endian 1.0\nelement face 1\nproperty list char int i\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
        )
        let start = negative.count
        negative += [0xFF]
        #expect(throws: at(start, "negative list count -1 in element 'face'")) {
            try Self.read(negative)
        }
    }
}
