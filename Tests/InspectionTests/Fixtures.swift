@testable import Inspection

/// Deterministic pseudo-random numbers (SplitMix64) so failures reproduce.
struct SeededRNG: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Fixtures {
    /// Points spread over a site-sized box, plus a few awkward values.
    static func randomPoints(_ n: Int, seed: UInt64 = 1) -> [SIMD3<Float>] {
        var rng = SeededRNG(seed: seed)
        var pts = (0..<n).map { _ in
            SIMD3<Float>(
                Float.random(in: -500...500, using: &rng), Float.random(in: -500...500, using: &rng),
                Float.random(in: -20...120, using: &rng))
        }
        if n >= 6 {
            pts[0] = SIMD3(0, -0.0, 1)
            pts[1] = SIMD3(1e-30, -3.4e38, 1.17549435e-38)
            pts[2] = SIMD3(.leastNonzeroMagnitude, .greatestFiniteMagnitude, 123_456_789)
            pts[3] = SIMD3(0.1, 0.2, 0.3)
            pts[4] = SIMD3(-1e-7, 16_777_217, 8.5)
            pts[5] = SIMD3(1e10, -2.5e-12, 3)
        }
        return pts
    }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }
}

/// Little helper for assembling binary test files.
struct ByteBuilder {
    var bytes: [UInt8] = []
    var bigEndian = false

    mutating func text(_ s: String) { bytes.append(contentsOf: s.utf8) }

    mutating func int<T: FixedWidthInteger>(_ v: T) {
        let ordered = bigEndian ? v.bigEndian : v.littleEndian
        withUnsafeBytes(of: ordered) { bytes.append(contentsOf: $0) }
    }

    mutating func f32(_ v: Float) { int(v.bitPattern) }
    mutating func f64(_ v: Double) { int(v.bitPattern) }

    /// Appends `v` encoded as the PCD/PLY scalar `type`.
    mutating func scalar(_ v: Double, _ type: ScalarType) {
        switch type {
        case .int8: int(Int8(v))
        case .uint8: int(UInt8(v))
        case .int16: int(Int16(v))
        case .uint16: int(UInt16(v))
        case .int32: int(Int32(v))
        case .uint32: int(UInt32(v))
        case .int64: int(Int64(v))
        case .uint64: int(UInt64(v))
        case .float32: f32(Float(v))
        case .float64: f64(v)
        }
    }
}

/// A PCD field for hand-made test files: `value(point, element)` gives the stored value.
struct PCDField {
    var name: String
    var size: Int
    var type: String
    var count: Int = 1

    var scalar: ScalarType {
        PCDReader.scalar(.init(name: name, size: size, type: type, count: count))!
    }

    /// Builds a PCD file with these fields. x/y/z take the points' coordinates; other fields get filler.
    /// `paddingInCompressed` keeps `_` fields in binary_compressed data (PCL leaves them out).
    static func file(
        _ fields: [PCDField], _ points: [SIMD3<Float>], data: String, width: Int? = nil,
        version: String = "0.7", paddingInCompressed: Bool = false
    ) -> [UInt8] {
        let w = width ?? points.count
        var b = ByteBuilder()
        b.text("# hand-made\nVERSION \(version)\nFIELDS \(fields.map(\.name).joined(separator: " "))\n")
        b.text("SIZE \(fields.map { String($0.size) }.joined(separator: " "))\n")
        b.text("TYPE \(fields.map(\.type).joined(separator: " "))\n")
        b.text("COUNT \(fields.map { String($0.count) }.joined(separator: " "))\n")
        b.text("WIDTH \(w)\nHEIGHT \(w == 0 ? 1 : points.count / w)\nVIEWPOINT 0 0 0 1 0 0 0\n")
        b.text("POINTS \(points.count)\nDATA \(data)\n")
        func value(_ f: PCDField, _ i: Int, _ k: Int) -> Double {
            switch f.name {
            case "x": return Double(points[i].x)
            case "y": return Double(points[i].y)
            case "z": return Double(points[i].z)
            default: return f.type == "F" ? Double(i) * 0.25 + Double(k) : Double((i + k) % 100)
            }
        }
        switch data {
        case "ascii":
            for i in points.indices {
                var parts: [String] = []
                for f in fields {
                    for k in 0..<f.count {
                        let v = value(f, i, k)
                        parts.append(f.type == "F" ? (f.size == 4 ? "\(Float(v))" : "\(v)") : "\(Int(v))")
                    }
                }
                b.text(parts.joined(separator: " ") + "\n")
            }
        case "binary":
            for i in points.indices {
                for f in fields { for k in 0..<f.count { b.scalar(value(f, i, k), f.scalar) } }
            }
        default:
            var raw = ByteBuilder()
            for f in fields where f.name != "_" || paddingInCompressed {
                for i in points.indices { for k in 0..<f.count { raw.scalar(value(f, i, k), f.scalar) } }
            }
            let packed = LZF.compress(raw.bytes)
            b.int(UInt32(packed.count))
            b.int(UInt32(raw.bytes.count))
            b.bytes += packed
        }
        return b.bytes
    }
}
