/// Reader for PCL's PCD format (v0.7, also 0.6 / 0.5 headers): `ascii`, `binary`, `binary_compressed`.
enum PCDReader {
    struct Field {
        var name: String
        var size: Int
        var type: String
        var count: Int
    }

    /// What the header says, with the line each keyword was found on (for error messages).
    struct Header {
        var names: [String] = []
        var sizes: [Int] = []
        var types: [String] = []
        var counts: [Int]? = nil
        var width: Int? = nil
        var height: Int? = nil
        var points: Int? = nil
        var lines: [String: Int] = [:]
    }

    static func read(_ buf: UnsafeBufferPointer<UInt8>, file: String) throws(PointCloudError)
        -> PointCloud
    {
        var sc = TextScanner(buf)
        var h = Header()
        func fail(_ line: Int, _ reason: String) -> PointCloudError {
            PointCloudError(file: file, location: .line(line), reason: reason)
        }
        func integers(_ key: String, _ values: [String], _ line: Int) throws(PointCloudError) -> [Int] {
            var out: [Int] = []
            for v in values {
                guard let n = Int(v), n >= 0 else { throw fail(line, "\(key): bad value '\(v)'") }
                out.append(n)
            }
            return out
        }
        func single(_ key: String, _ values: [String], _ line: Int) throws(PointCloudError) -> Int {
            guard values.count == 1 else {
                throw fail(line, "\(key) needs one value, found \(values.count)")
            }
            return try integers(key, values, line)[0]
        }

        while !sc.atEnd {
            let line = sc.line
            let text = sc.readLine()
            let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(
                String.init)
            guard let first = tokens.first, !first.hasPrefix("#") else { continue }
            let key = first.uppercased()
            let values = Array(tokens.dropFirst())
            h.lines[key] = line
            switch key {
            case "VERSION":
                guard values.count == 1, let v = Double(values[0]), v == 0.7 || v == 0.6 || v == 0.5 else {
                    throw fail(
                        line,
                        "unsupported VERSION '\(values.joined(separator: " "))' (expected 0.7, 0.6 or 0.5)")
                }
            case "FIELDS", "COLUMNS":
                guard !values.isEmpty else { throw fail(line, "FIELDS lists no fields") }
                h.names = values
                h.lines["FIELDS"] = line
            case "SIZE":
                h.sizes = try integers("SIZE", values, line)
            case "TYPE":
                for t in values where t != "F" && t != "I" && t != "U" {
                    throw fail(line, "unknown TYPE '\(t)' (expected F, I or U)")
                }
                h.types = values
            case "COUNT":
                let counts = try integers("COUNT", values, line)
                if counts.contains(0) { throw fail(line, "COUNT: bad value '0'") }
                h.counts = counts
            case "WIDTH": h.width = try single("WIDTH", values, line)
            case "HEIGHT": h.height = try single("HEIGHT", values, line)
            case "POINTS": h.points = try single("POINTS", values, line)
            case "VIEWPOINT": break
            case "DATA":
                let fields = try validate(h, dataLine: line, file: file)
                let points = try pointCount(h, dataLine: line, file: file)
                guard values.count == 1 else {
                    throw fail(line, "DATA needs one value (ascii, binary or binary_compressed)")
                }
                switch values[0].lowercased() {
                case "ascii":
                    return try readASCII(&sc, fields: fields, points: points, file: file)
                case "binary":
                    return try readBinary(buf, at: sc.pos, fields: fields, points: points, file: file)
                case "binary_compressed":
                    return try readCompressed(buf, at: sc.pos, fields: fields, points: points, file: file)
                default:
                    throw fail(
                        line, "unknown DATA format '\(values[0])' (expected ascii, binary or binary_compressed)"
                    )
                }
            default:
                throw fail(line, "unknown header keyword '\(first)'")
            }
        }
        throw PointCloudError(file: file, location: .file, reason: "no DATA line in header")
    }

    /// Checks FIELDS/SIZE/TYPE/COUNT agree and x, y, z exist; returns the fields.
    static func validate(_ h: Header, dataLine: Int, file: String) throws(PointCloudError) -> [Field] {
        func fail(_ key: String, _ reason: String) -> PointCloudError {
            PointCloudError(file: file, location: .line(h.lines[key] ?? dataLine), reason: reason)
        }
        for key in ["FIELDS", "SIZE", "TYPE"] where h.lines[key] == nil {
            throw fail("DATA", "missing \(key) before DATA")
        }
        let n = h.names.count
        if h.sizes.count != n {
            throw fail("SIZE", "SIZE has \(h.sizes.count) values, FIELDS has \(n)")
        }
        if h.types.count != n {
            throw fail("TYPE", "TYPE has \(h.types.count) values, FIELDS has \(n)")
        }
        let counts = h.counts ?? Array(repeating: 1, count: n)
        if counts.count != n {
            throw fail("COUNT", "COUNT has \(counts.count) values, FIELDS has \(n)")
        }
        var fields: [Field] = []
        for i in 0..<n {
            let f = Field(name: h.names[i], size: h.sizes[i], type: h.types[i], count: counts[i])
            if scalar(f) == nil {
                throw fail("TYPE", "field '\(f.name)': SIZE \(f.size) is not valid for TYPE \(f.type)")
            }
            fields.append(f)
        }
        for axis in ["x", "y", "z"] where !h.names.contains(axis) {
            throw fail("FIELDS", "FIELDS has no '\(axis)' (needs x, y and z)")
        }
        return fields
    }

    /// Resolves WIDTH, HEIGHT and POINTS (old headers may omit some) and checks they agree.
    static func pointCount(_ h: Header, dataLine: Int, file: String) throws(PointCloudError) -> Int {
        guard let points = h.points ?? h.width.map({ $0 * (h.height ?? 1) }) else {
            throw PointCloudError(
                file: file, location: .line(dataLine), reason: "missing POINTS before DATA")
        }
        let width = h.width ?? points
        let height = h.height ?? 1
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || product != points {
            throw PointCloudError(
                file: file, location: .line(h.lines["POINTS"] ?? dataLine),
                reason: "POINTS \(points) does not match WIDTH*HEIGHT = \(width)*\(height)")
        }
        return points
    }

    static func scalar(_ f: Field) -> ScalarType? {
        switch (f.type, f.size) {
        case ("F", 4): return .float32
        case ("F", 8): return .float64
        case ("I", 1): return .int8
        case ("I", 2): return .int16
        case ("I", 4): return .int32
        case ("I", 8): return .int64
        case ("U", 1): return .uint8
        case ("U", 2): return .uint16
        case ("U", 4): return .uint32
        case ("U", 8): return .uint64
        default: return nil
        }
    }

    // MARK: - Bodies

    static func readASCII(_ sc: inout TextScanner, fields: [Field], points: Int, file: String)
        throws(PointCloudError) -> PointCloud
    {
        // roles[k]: 0 = ignore token k, 1/2/3 = x/y/z.
        var roles: [Int] = []
        var seen: Set<String> = []
        for f in fields {
            let role = ["x": 1, "y": 2, "z": 3][f.name] ?? 0
            let first = role != 0 && seen.insert(f.name).inserted
            roles.append(first ? role : 0)
            roles.append(contentsOf: repeatElement(0, count: f.count - 1))
        }
        let total = roles.count
        let names = fields.map { $0.count == 1 ? $0.name : "\($0.name)*\($0.count)" }.joined(
            separator: " ")
        var out: [SIMD3<Float>] = []
        out.reserveCapacity(points)
        var dropped = 0
        var found = 0
        try roles.withUnsafeBufferPointer { (roles) throws(PointCloudError) in
            while found < points {
                sc.skipBlanks()
                if sc.atEnd {
                    throw PointCloudError(
                        file: file, location: .line(sc.line),
                        reason: "data ends early: expected \(points) points, found \(found)")
                }
                if sc.atLineEnd {
                    sc.consumeNewline()
                    continue
                }
                var v = SIMD3<Float>(repeating: 0)
                var k = 0
                while !sc.atLineEnd {
                    let role = k < total ? roles[k] : 0
                    if role != 0 {
                        guard let f = sc.parseFloat() else {
                            throw PointCloudError(
                                file: file, location: .line(sc.line),
                                reason:
                                    "bad number '\(sc.token(at: sc.pos))' for field '\(["x", "y", "z"][role - 1])'")
                        }
                        v[role - 1] = f
                    } else {
                        sc.skipToken()
                    }
                    k += 1
                    sc.skipBlanks()
                }
                if k != total {
                    throw PointCloudError(
                        file: file, location: .line(sc.line),
                        reason: "expected \(total) values (\(names)), found \(k)")
                }
                sc.consumeNewline()
                found += 1
                if v.x.isFinite && v.y.isFinite && v.z.isFinite {
                    out.append(v)
                } else {
                    dropped += 1
                }
            }
        }
        return PointCloud(points: out, droppedNonFinite: dropped, format: "PCD ascii")
    }

    /// Layout of x, y, z given per-field byte offsets and strides.
    static func layout(_ fields: [Field], offsets: [Int], strides: [Int]) -> (
        ComponentLayout, ComponentLayout, ComponentLayout
    ) {
        func component(_ name: String) -> ComponentLayout {
            let i = fields.firstIndex { $0.name == name }!
            return ComponentLayout(offset: offsets[i], stride: strides[i], type: scalar(fields[i])!)
        }
        return (component("x"), component("y"), component("z"))
    }

    static func readBinary(
        _ buf: UnsafeBufferPointer<UInt8>, at start: Int, fields: [Field], points: Int, file: String
    ) throws(PointCloudError) -> PointCloud {
        var offsets: [Int] = []
        var record = 0
        for f in fields {
            offsets.append(record)
            record += f.size * f.count
        }
        let (needed, overflow) = points.multipliedReportingOverflow(by: record)
        let left = buf.count - start
        if overflow || needed > left {
            throw PointCloudError(
                file: file, location: .byte(start),
                reason:
                    "binary data ends early (needs \(overflow ? "too many" : String(needed)) bytes, \(left) left)"
            )
        }
        if points == 0 { return PointCloud(points: [], format: "PCD binary") }
        let (x, y, z) = layout(
            fields, offsets: offsets, strides: Array(repeating: record, count: fields.count))
        let r = PointExtractor.extract(
            UnsafeRawPointer(buf.baseAddress! + start), count: points, x: x, y: y, z: z, bigEndian: false)
        return PointCloud(points: r.points, droppedNonFinite: r.dropped, format: "PCD binary")
    }

    static func readCompressed(
        _ buf: UnsafeBufferPointer<UInt8>, at start: Int, fields: [Field], points: Int, file: String
    ) throws(PointCloudError) -> PointCloud {
        let format = "PCD binary_compressed"
        let left = buf.count - start
        if points == 0 && left < 8 { return PointCloud(points: [], format: format) }
        guard left >= 8 else {
            throw PointCloudError(
                file: file, location: .byte(start),
                reason: "compressed header ends early (needs 8 bytes, \(left) left)")
        }
        let base = UnsafeRawPointer(buf.baseAddress! + start)
        let compressedSize = Int(UInt32(littleEndian: base.loadUnaligned(as: UInt32.self)))
        let uncompressedSize = Int(
            UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        // PCL leaves `_` padding fields out of the compressed data; accept writers that keep them too.
        let withoutPadding = fields.filter { $0.name != "_" }
        let packed = withoutPadding.reduce(0) { $0 + $1.size * $1.count }
        let full = fields.reduce(0) { $0 + $1.size * $1.count }
        let stored: [Field]
        if points.multipliedReportingOverflow(by: packed) == (uncompressedSize, false) {
            stored = withoutPadding
        } else if points.multipliedReportingOverflow(by: full) == (uncompressedSize, false) {
            stored = fields
        } else {
            throw PointCloudError(
                file: file, location: .byte(start + 4),
                reason:
                    "uncompressed size \(uncompressedSize) does not match POINTS*point size = \(points)*\(packed)"
            )
        }
        if compressedSize > left - 8 {
            throw PointCloudError(
                file: file, location: .byte(start + 8),
                reason: "compressed data ends early (needs \(compressedSize) bytes, \(left - 8) left)")
        }
        let input = UnsafeBufferPointer(start: buf.baseAddress! + start + 8, count: compressedSize)
        let data: [UInt8]
        switch LZF.decompress(input, outputCount: uncompressedSize) {
        case .success(let d): data = d
        case .failure(let f):
            throw PointCloudError(
                file: file, location: .byte(start + 8 + f.offset), reason: "corrupt LZF data: \(f.reason)")
        }
        if points == 0 { return PointCloud(points: [], format: format) }
        // Field-major: each field's block holds all points' values for that field.
        var offsets: [Int] = []
        var strides: [Int] = []
        var blockStart = 0
        for f in stored {
            offsets.append(blockStart)
            strides.append(f.size * f.count)
            blockStart += points * f.size * f.count
        }
        let (x, y, z) = layout(stored, offsets: offsets, strides: strides)
        let r = data.withUnsafeBytes { raw in
            PointExtractor.extract(raw.baseAddress!, count: points, x: x, y: y, z: z, bigEndian: false)
        }
        return PointCloud(points: r.points, droppedNonFinite: r.dropped, format: format)
    }
}
