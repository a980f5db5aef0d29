/// A binary scalar type as stored in PCD and PLY files.
enum ScalarType: Sendable, Equatable {
    case int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64

    /// Size in bytes.
    var size: Int {
        switch self {
        case .int8, .uint8: return 1
        case .int16, .uint16: return 2
        case .int32, .uint32, .float32: return 4
        case .int64, .uint64, .float64: return 8
        }
    }

    var isInteger: Bool { self != .float32 && self != .float64 }

    /// Loads one value at `p` (unaligned), converting to Float.
    @inline(__always)
    func load(_ p: UnsafeRawPointer, bigEndian: Bool) -> Float {
        switch self {
        case .int8: return Float(p.load(as: Int8.self))
        case .uint8: return Float(p.load(as: UInt8.self))
        case .int16:
            let v = p.loadUnaligned(as: UInt16.self)
            return Float(Int16(bitPattern: bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v)))
        case .uint16:
            let v = p.loadUnaligned(as: UInt16.self)
            return Float(bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v))
        case .int32:
            let v = p.loadUnaligned(as: UInt32.self)
            return Float(Int32(bitPattern: bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v)))
        case .uint32:
            let v = p.loadUnaligned(as: UInt32.self)
            return Float(bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v))
        case .int64:
            let v = p.loadUnaligned(as: UInt64.self)
            return Float(Int64(bitPattern: bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)))
        case .uint64:
            let v = p.loadUnaligned(as: UInt64.self)
            return Float(bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v))
        case .float32:
            let v = p.loadUnaligned(as: UInt32.self)
            return Float(bitPattern: bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v))
        case .float64:
            let v = p.loadUnaligned(as: UInt64.self)
            return Float(Double(bitPattern: bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)))
        }
    }

    /// Loads an integer value (a PLY list count) at `p`; floats are rejected by the header parser.
    @inline(__always)
    func loadInt(_ p: UnsafeRawPointer, bigEndian: Bool) -> Int {
        switch self {
        case .float32, .float64: return Int(load(p, bigEndian: bigEndian))
        case .int8: return Int(p.load(as: Int8.self))
        case .uint8: return Int(p.load(as: UInt8.self))
        case .int16:
            let v = p.loadUnaligned(as: UInt16.self)
            return Int(Int16(bitPattern: bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v)))
        case .uint16:
            let v = p.loadUnaligned(as: UInt16.self)
            return Int(bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v))
        case .int32:
            let v = p.loadUnaligned(as: UInt32.self)
            return Int(Int32(bitPattern: bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v)))
        case .uint32:
            let v = p.loadUnaligned(as: UInt32.self)
            return Int(bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v))
        case .int64:
            let v = p.loadUnaligned(as: UInt64.self)
            return Int(Int64(bitPattern: bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)))
        case .uint64:
            let v = p.loadUnaligned(as: UInt64.self)
            let u = bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)
            return u > UInt64(Int.max) ? -1 : Int(u)
        }
    }
}

/// Where one coordinate lives in a binary buffer: the first value at `offset`, the next `stride` bytes on.
struct ComponentLayout {
    var offset: Int
    var stride: Int
    var type: ScalarType
}

/// Gathers `count` points from binary data, dropping those with a non-finite coordinate.
enum PointExtractor {
    /// `base` must hold every addressed value; callers check bounds first.
    static func extract(
        _ base: UnsafeRawPointer, count: Int,
        x: ComponentLayout, y: ComponentLayout, z: ComponentLayout, bigEndian: Bool
    ) -> (points: [SIMD3<Float>], dropped: Int) {
        var kept = 0
        let fast = !bigEndian && x.type == .float32 && y.type == .float32 && z.type == .float32
        let points = [SIMD3<Float>](unsafeUninitializedCapacity: count) { out, initialized in
            guard let dst = out.baseAddress else {
                initialized = 0
                return
            }
            let px = base + x.offset
            let py = base + y.offset
            let pz = base + z.offset
            var k = 0
            if fast {
                for i in 0..<count {
                    let xv = Float(
                        bitPattern: UInt32(
                            littleEndian: px.loadUnaligned(fromByteOffset: i &* x.stride, as: UInt32.self)))
                    let yv = Float(
                        bitPattern: UInt32(
                            littleEndian: py.loadUnaligned(fromByteOffset: i &* y.stride, as: UInt32.self)))
                    let zv = Float(
                        bitPattern: UInt32(
                            littleEndian: pz.loadUnaligned(fromByteOffset: i &* z.stride, as: UInt32.self)))
                    (dst + k).initialize(to: SIMD3(xv, yv, zv))
                    k &+= (xv.isFinite && yv.isFinite && zv.isFinite) ? 1 : 0
                }
            } else {
                for i in 0..<count {
                    let xv = x.type.load(px + i &* x.stride, bigEndian: bigEndian)
                    let yv = y.type.load(py + i &* y.stride, bigEndian: bigEndian)
                    let zv = z.type.load(pz + i &* z.stride, bigEndian: bigEndian)
                    (dst + k).initialize(to: SIMD3(xv, yv, zv))
                    k &+= (xv.isFinite && yv.isFinite && zv.isFinite) ? 1 : 0
                }
            }
            initialized = k
            kept = k
        }
        return (points, count - kept)
    }
}
