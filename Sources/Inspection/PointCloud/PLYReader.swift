/// Reader for PLY files (`ascii 1.0`, `binary_little_endian 1.0`, `binary_big_endian 1.0`): the
/// `vertex` element's x, y, z. Other elements and properties are skipped.
enum PLYReader {
    enum Encoding: String {
        case ascii
        case binaryLittleEndian = "binary_little_endian"
        case binaryBigEndian = "binary_big_endian"
    }

    struct Property {
        var name: String
        var type: ScalarType
        /// Non-nil for `property list COUNTTYPE ITEMTYPE NAME`: the count's type (`type` is the items').
        var countType: ScalarType?
    }

    struct Element {
        var name: String
        var count: Int
        var line: Int
        var properties: [Property] = []
        var hasLists: Bool { properties.contains { $0.countType != nil } }
        var fixedSize: Int { properties.reduce(0) { $0 + $1.type.size } }
    }

    static func scalar(_ name: String) -> ScalarType? {
        switch name {
        case "char", "int8": return .int8
        case "uchar", "uint8": return .uint8
        case "short", "int16": return .int16
        case "ushort", "uint16": return .uint16
        case "int", "int32": return .int32
        case "uint", "uint32": return .uint32
        case "float", "float32": return .float32
        case "double", "float64": return .float64
        default: return nil
        }
    }

    static func read(_ buf: UnsafeBufferPointer<UInt8>, file: String) throws(PointCloudError)
        -> PointCloud
    {
        func fail(_ line: Int, _ reason: String) -> PointCloudError {
            PointCloudError(file: file, location: .line(line), reason: reason)
        }
        var sc = TextScanner(buf)
        let magic = sc.readLine().trimmingBlanks()
        guard magic == "ply" else { throw fail(1, "not a PLY file (first line must be 'ply')") }
        var encoding: Encoding?
        var elements: [Element] = []
        while true {
            guard !sc.atEnd else {
                throw PointCloudError(file: file, location: .file, reason: "header has no end_header line")
            }
            let line = sc.line
            let tokens = sc.readLine().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
                .map(String.init)
            guard let key = tokens.first else { continue }
            let values = Array(tokens.dropFirst())
            switch key {
            case "comment", "obj_info":
                continue
            case "format":
                guard values.count == 2 else { throw fail(line, "format needs an encoding and a version") }
                guard let e = Encoding(rawValue: values[0]) else {
                    throw fail(
                        line,
                        "unknown format '\(values[0])' (expected ascii, binary_little_endian or binary_big_endian)"
                    )
                }
                guard values[1] == "1.0" || values[1] == "1" else {
                    throw fail(line, "unsupported PLY version '\(values[1])'")
                }
                encoding = e
            case "element":
                guard values.count == 2 else { throw fail(line, "element needs a name and a count") }
                guard let n = Int(values[1]), n >= 0 else {
                    throw fail(line, "bad element count '\(values[1])'")
                }
                elements.append(Element(name: values[0], count: n, line: line))
            case "property":
                guard !elements.isEmpty else { throw fail(line, "property outside of an element") }
                let property: Property
                if values.first == "list" {
                    guard values.count == 4 else {
                        throw fail(line, "property list needs COUNTTYPE ITEMTYPE NAME")
                    }
                    guard let c = scalar(values[1]) else {
                        throw fail(line, "unknown property type '\(values[1])'")
                    }
                    guard c.isInteger else {
                        throw fail(line, "list count type must be an integer type, found '\(values[1])'")
                    }
                    guard let t = scalar(values[2]) else {
                        throw fail(line, "unknown property type '\(values[2])'")
                    }
                    property = Property(name: values[3], type: t, countType: c)
                } else {
                    guard values.count == 2 else { throw fail(line, "property needs TYPE NAME") }
                    guard let t = scalar(values[0]) else {
                        throw fail(line, "unknown property type '\(values[0])'")
                    }
                    property = Property(name: values[1], type: t, countType: nil)
                }
                elements[elements.count - 1].properties.append(property)
            case "end_header":
                guard let encoding else { throw fail(line, "missing format line") }
                guard let vi = elements.firstIndex(where: { $0.name == "vertex" }) else {
                    throw fail(line, "no 'vertex' element")
                }
                let vertex = elements[vi]
                for axis in ["x", "y", "z"] {
                    guard let p = vertex.properties.first(where: { $0.name == axis }) else {
                        throw fail(vertex.line, "element 'vertex' has no property '\(axis)'")
                    }
                    if p.countType != nil { throw fail(vertex.line, "vertex property '\(axis)' is a list") }
                }
                if encoding == .ascii {
                    return try readASCII(&sc, elements: elements, file: file)
                }
                return try readBinary(
                    buf, at: sc.pos, elements: elements, bigEndian: encoding == .binaryBigEndian, file: file)
            default:
                throw fail(line, "unknown header keyword '\(key)'")
            }
        }
    }

    /// Index of the first property named x / y / z as role 1 / 2 / 3, others 0.
    static func roles(_ e: Element) -> [Int] {
        var seen: Set<String> = []
        return e.properties.map { p in
            let role = ["x": 1, "y": 2, "z": 3][p.name] ?? 0
            return role != 0 && seen.insert(p.name).inserted ? role : 0
        }
    }

    // MARK: - ASCII

    static func readASCII(_ sc: inout TextScanner, elements: [Element], file: String)
        throws(PointCloudError) -> PointCloud
    {
        func fail(_ reason: String) -> PointCloudError {
            PointCloudError(file: file, location: .line(sc.line), reason: reason)
        }
        var out: [SIMD3<Float>] = []
        var dropped = 0
        var vertexSeen = false
        for e in elements {
            let isVertex = e.name == "vertex" && !vertexSeen
            vertexSeen = vertexSeen || isVertex
            let roles = roles(e)
            let total = e.properties.count
            let names = e.properties.map(\.name).joined(separator: " ")
            if isVertex { out.reserveCapacity(e.count) }
            var found = 0
            while found < e.count {
                sc.skipBlanks()
                if sc.atEnd {
                    throw fail("data ends early: expected \(e.count) '\(e.name)' entries, found \(found)")
                }
                if sc.atLineEnd {
                    sc.consumeNewline()
                    continue
                }
                found += 1
                guard isVertex else {
                    sc.skipLine()
                    continue
                }
                var v = SIMD3<Float>(repeating: 0)
                var k = 0
                while !sc.atLineEnd {
                    if k >= total {
                        sc.skipToken()
                    } else if e.properties[k].countType != nil {
                        let name = e.properties[k].name
                        let start = sc.pos
                        guard let c = sc.parseFloat(), c >= 0, c == c.rounded(), c < 1e9 else {
                            throw fail("bad list count '\(sc.token(at: start))' for property '\(name)'")
                        }
                        for _ in 0..<Int(c) {
                            sc.skipBlanks()
                            if sc.atLineEnd { throw fail("line ends inside list '\(name)'") }
                            sc.skipToken()
                        }
                    } else if roles[k] != 0 {
                        guard let f = sc.parseFloat() else {
                            throw fail(
                                "bad number '\(sc.token(at: sc.pos))' for property '\(e.properties[k].name)'")
                        }
                        v[roles[k] - 1] = f
                    } else {
                        sc.skipToken()
                    }
                    k += 1
                    sc.skipBlanks()
                }
                if k != total {
                    if !e.hasLists { throw fail("expected \(total) values (\(names)), found \(k)") }
                    throw fail(
                        k < total
                            ? "line ends before property '\(e.properties[k].name)'"
                            : "too many values for element '\(e.name)'")
                }
                sc.consumeNewline()
                if v.x.isFinite && v.y.isFinite && v.z.isFinite {
                    out.append(v)
                } else {
                    dropped += 1
                }
            }
        }
        return PointCloud(points: out, droppedNonFinite: dropped, format: "PLY ascii")
    }

    // MARK: - Binary

    static func readBinary(
        _ buf: UnsafeBufferPointer<UInt8>, at start: Int, elements: [Element], bigEndian: Bool,
        file: String
    ) throws(PointCloudError) -> PointCloud {
        let format = bigEndian ? "PLY binary_big_endian" : "PLY binary_little_endian"
        var pos = start
        var result: (points: [SIMD3<Float>], dropped: Int)?
        let base = UnsafeRawPointer(buf.baseAddress ?? UnsafePointer(bitPattern: 1)!)
        for e in elements {
            let isVertex = e.name == "vertex" && result == nil
            if !e.hasLists {
                let stride = e.fixedSize
                let (needed, overflow) = e.count.multipliedReportingOverflow(by: stride)
                let left = buf.count - pos
                if overflow || needed > left {
                    throw PointCloudError(
                        file: file, location: .byte(pos),
                        reason:
                            "data ends early in element '\(e.name)' (needs \(overflow ? "too many" : String(needed)) bytes, \(left) left)"
                    )
                }
                if isVertex {
                    var offsets: [Int] = []
                    var o = 0
                    for p in e.properties {
                        offsets.append(o)
                        o += p.type.size
                    }
                    let roles = roles(e)
                    func component(_ role: Int) -> ComponentLayout {
                        let i = roles.firstIndex(of: role)!
                        return ComponentLayout(offset: offsets[i], stride: stride, type: e.properties[i].type)
                    }
                    result = PointExtractor.extract(
                        base + pos, count: e.count, x: component(1), y: component(2), z: component(3),
                        bigEndian: bigEndian)
                }
                pos += needed
            } else {
                var points: [SIMD3<Float>] = []
                var dropped = 0
                let roles = roles(e)
                for i in 0..<e.count {
                    var v = SIMD3<Float>(repeating: 0)
                    for (k, p) in e.properties.enumerated() {
                        func need(_ n: Int) throws(PointCloudError) {
                            if n > buf.count - pos {
                                throw PointCloudError(
                                    file: file, location: .byte(pos),
                                    reason:
                                        "data ends early in element '\(e.name)' at entry \(i) (needs \(n) bytes, \(buf.count - pos) left)"
                                )
                            }
                        }
                        if let ct = p.countType {
                            try need(ct.size)
                            let n = ct.loadInt(base + pos, bigEndian: bigEndian)
                            if n < 0 {
                                throw PointCloudError(
                                    file: file, location: .byte(pos),
                                    reason: "negative list count \(n) in element '\(e.name)'")
                            }
                            pos += ct.size
                            let (bytes, overflow) = n.multipliedReportingOverflow(by: p.type.size)
                            try need(overflow ? Int.max : bytes)
                            pos += bytes
                        } else {
                            try need(p.type.size)
                            if isVertex && roles[k] != 0 {
                                v[roles[k] - 1] = p.type.load(base + pos, bigEndian: bigEndian)
                            }
                            pos += p.type.size
                        }
                    }
                    if isVertex {
                        if v.x.isFinite && v.y.isFinite && v.z.isFinite {
                            points.append(v)
                        } else {
                            dropped += 1
                        }
                    }
                }
                if isVertex { result = (points, dropped) }
            }
        }
        let r = result ?? ([], 0)
        return PointCloud(points: r.points, droppedNonFinite: r.dropped, format: format)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and carriage returns.
    func trimmingBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) })
        else { return "" }
        return String(self[first...last])
    }
}
