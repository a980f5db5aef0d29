/// Writes point clouds as PCD (v0.7, fields x y z as F4) or PLY (vertex x y z as float).
public enum PointCloudWriter {
    /// PCD `DATA` encodings.
    public enum PCDEncoding: String, Sendable, CaseIterable {
        case ascii
        case binary
        /// Field-major data, LZF-compressed.
        case binaryCompressed = "binary_compressed"
    }

    /// PLY `format` encodings.
    public enum PLYEncoding: String, Sendable, CaseIterable {
        case ascii
        case binaryLittleEndian = "binary_little_endian"
    }

    /// A file format and encoding.
    public enum Format: Sendable, Equatable {
        case pcd(PCDEncoding)
        case ply(PLYEncoding)
    }

    /// Encodes `points` in `format`. Non-finite points are written as they are.
    public static func encode(_ points: [SIMD3<Float>], as format: Format) -> [UInt8] {
        switch format {
        case .pcd(let e): return pcd(points, encoding: e)
        case .ply(let e): return ply(points, encoding: e)
        }
    }

    /// Encodes and writes `points` to `path` (errors name the file).
    public static func write(_ points: [SIMD3<Float>], as format: Format, to path: String)
        throws(PointCloudError)
    {
        try FileIO.writeAll(encode(points, as: format), to: path)
    }

    /// Writes already-encoded bytes to `path`.
    public static func write(bytes: [UInt8], to path: String) throws(PointCloudError) {
        try FileIO.writeAll(bytes, to: path)
    }

    /// A PCD file. With `width`, the cloud is organised: WIDTH `width`, HEIGHT `points.count / width`
    /// (`points.count` must be a multiple of `width`); otherwise HEIGHT is 1.
    public static func pcd(_ points: [SIMD3<Float>], encoding: PCDEncoding, width: Int? = nil)
        -> [UInt8]
    {
        let n = points.count
        let w = width ?? n
        precondition(w > 0 ? n % w == 0 : n == 0, "points.count must be a multiple of width")
        let h = w > 0 ? n / w : 1
        var out: [UInt8] = []
        let header = """
            # .PCD v0.7 - Point Cloud Data file format
            VERSION 0.7
            FIELDS x y z
            SIZE 4 4 4
            TYPE F F F
            COUNT 1 1 1
            WIDTH \(w)
            HEIGHT \(h)
            VIEWPOINT 0 0 0 1 0 0 0
            POINTS \(n)
            DATA \(encoding.rawValue)

            """
        out.append(contentsOf: header.utf8)
        switch encoding {
        case .ascii:
            out.reserveCapacity(out.count + n * 30)
            for p in points { appendTextLine(p, to: &out) }
        case .binary:
            appendFloats(points, to: &out)
        case .binaryCompressed:
            // Field-major: all x, then all y, then all z.
            var raw: [UInt8] = []
            raw.reserveCapacity(n * 12)
            for axis in 0..<3 {
                for p in points { appendLE(p[axis].bitPattern, to: &raw) }
            }
            precondition(raw.count <= Int(UInt32.max), "cloud too large for binary_compressed")
            let packed = LZF.compress(raw)
            appendLE(UInt32(packed.count), to: &out)
            appendLE(UInt32(raw.count), to: &out)
            out.append(contentsOf: packed)
        }
        return out
    }

    /// A PLY file with one `vertex` element of float x, y, z.
    public static func ply(_ points: [SIMD3<Float>], encoding: PLYEncoding) -> [UInt8] {
        var out: [UInt8] = []
        let header = """
            ply
            format \(encoding.rawValue) 1.0
            comment FleetMesh Inspection
            element vertex \(points.count)
            property float x
            property float y
            property float z
            end_header

            """
        out.append(contentsOf: header.utf8)
        switch encoding {
        case .ascii:
            out.reserveCapacity(out.count + points.count * 30)
            for p in points { appendTextLine(p, to: &out) }
        case .binaryLittleEndian:
            appendFloats(points, to: &out)
        }
        return out
    }

    // MARK: - Helpers

    static func appendLE(_ v: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: v))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 24))
    }

    /// Appends x y z of every point as little-endian Float32, record by record.
    static func appendFloats(_ points: [SIMD3<Float>], to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: points.count * 12))
        out.withUnsafeMutableBytes { raw in
            var p = raw.baseAddress! + start
            for v in points {
                p.storeBytes(of: v.x.bitPattern.littleEndian, as: UInt32.self)
                (p + 4).storeBytes(of: v.y.bitPattern.littleEndian, as: UInt32.self)
                (p + 8).storeBytes(of: v.z.bitPattern.littleEndian, as: UInt32.self)
                p += 12
            }
        }
    }

    /// Appends "x y z\n" with the shortest text that reads back to the same Float.
    static func appendTextLine(_ p: SIMD3<Float>, to out: inout [UInt8]) {
        appendNumber(p.x, to: &out)
        out.append(0x20)
        appendNumber(p.y, to: &out)
        out.append(0x20)
        appendNumber(p.z, to: &out)
        out.append(0x0A)
    }

    static func appendNumber(_ v: Float, to out: inout [UInt8]) {
        if v == v.rounded(.towardZero), abs(v) < 1e7 {
            // Integral values: skip Swift's trailing ".0".
            out.append(contentsOf: String(Int(v)).utf8)
            if v == 0 && v.sign == .minus { out.insert(0x2D, at: out.count - 1) }
        } else if abs(v) == .greatestFiniteMagnitude {
            // The shortest text "3.4028235e+38" is above FLT_MAX as a double; strict readers (rply) reject it.
            out.append(contentsOf: Double(v).description.utf8)
        } else {
            out.append(contentsOf: v.description.utf8)
        }
    }
}
