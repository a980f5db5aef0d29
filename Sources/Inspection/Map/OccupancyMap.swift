/// The obstacles of an inspection site: the cloud's points binned into cubic voxels of `resolution` metres (cell
/// `i` spans `[i·r, (i+1)·r)` on each axis, so the grid is aligned with the map origin), stored sparsely.
///
/// Only occupied voxels are kept, grouped in blocks of `blockEdge`³ voxels; each occupied voxel costs two bytes
/// (its place in its block) plus its block's share of the index. The planner asks one question of the map: how far
/// is a point from the nearest occupied voxel centre, up to a limit (``distanceToObstacle(_:within:)``); the answer
/// is exact, found among the blocks that overlap the sphere of that limit.
public struct OccupancyMap: Sendable {
    /// Voxel edge, metres.
    public let resolution: Double
    /// Occupied voxels.
    public let voxelCount: Int
    /// Points binned (the cloud's finite points within range).
    public let pointCount: Int
    /// Points farther than the range limit from the origin, dropped as outliers (a local map is not kilometres wide).
    public let droppedFarPoints: Int
    /// Occupied voxels holding a single point with no other occupied voxel within two voxels: likely outliers
    /// (spurious returns); kept as obstacles, which errs on the safe side, and reported.
    public let isolatedVoxels: Int
    /// The corner of the occupied voxels' bounding box nearest minus infinity, metres.
    public let lowerCorner: SIMD3<Double>
    /// The opposite corner, metres.
    public let upperCorner: SIMD3<Double>
    /// Voxels per block edge.
    let blockEdge: Int32
    let blocks: VoxelTable
    let blockStart: [Int32]
    let blockVoxels: [UInt16]

    /// Half the diagonal of a voxel: how far a point of the cloud can be from its voxel's centre.
    public var halfDiagonal: Double { resolution * 3.0.squareRoot() / 2 }

    /// Bytes the map holds after it is built.
    public var bytes: Int {
        blocks.bytes + blockStart.count * MemoryLayout<Int32>.size + blockVoxels.count * MemoryLayout<UInt16>.size
    }

    /// Bins `cloud` into voxels of `resolution` metres. `queryRadius` is the largest distance the planner will ask
    /// about (its clearance threshold): blocks are sized from it. Points farther than `maxRange` metres from the
    /// origin on any axis are dropped and counted.
    public init(
        cloud: PointCloud, resolution: Double = 0.2, queryRadius: Double = 1.2, maxRange: Double = 100_000
    ) throws(InspectionError) {
        guard resolution.isFinite, resolution >= 0.01, resolution <= 10 else {
            throw .badParameter("resolution must be between 0.01 and 10 m, found \(resolution)")
        }
        guard queryRadius.isFinite, queryRadius > 0 else {
            throw .badParameter("clearance must be positive, found \(queryRadius)")
        }
        let range = min(maxRange, Double(VoxelKey.limit - 1) * resolution)
        self.resolution = resolution
        let inverse = 1 / resolution
        var voxels = VoxelTable(capacity: min(cloud.points.count / 2, 1 << 24))
        var far = 0
        var lowX = Int32.max, lowY = Int32.max, lowZ = Int32.max
        var highX = Int32.min, highY = Int32.min, highZ = Int32.min
        let bias = VoxelKey.bias
        for p in cloud.points {
            let x = Double(p.x), y = Double(p.y), z = Double(p.z)
            if !(abs(x) <= range && abs(y) <= range && abs(z) <= range) {
                far += 1
                continue
            }
            let cx = Int32((x * inverse).rounded(.down)), cy = Int32((y * inverse).rounded(.down))
            let cz = Int32((z * inverse).rounded(.down))
            lowX = min(lowX, cx)
            lowY = min(lowY, cy)
            lowZ = min(lowZ, cz)
            highX = max(highX, cx)
            highY = max(highY, cy)
            highZ = max(highZ, cz)
            let key = ((Int64(cx) &+ bias) << 42) | ((Int64(cy) &+ bias) << 21) | (Int64(cz) &+ bias)
            let (s, _) = voxels.slot(for: key, initial: 0)
            voxels.add(1, at: s)
        }
        let low = SIMD3(lowX, lowY, lowZ), high = SIMD3(highX, highY, highZ)
        droppedFarPoints = far
        pointCount = cloud.points.count - far
        voxelCount = voxels.count
        if voxels.count == 0 {
            lowerCorner = .zero
            upperCorner = .zero
        } else {
            lowerCorner = SIMD3<Double>(low) * resolution
            upperCorner = SIMD3<Double>(high &+ 1) * resolution
        }
        // Outliers: voxels with one point and no other occupied voxel within two voxels (a surface sampled more
        // sparsely than the grid still has neighbours two voxels away). Nearest neighbours first: a voxel of a
        // surface is cleared by one of its first few lookups.
        var isolated = 0
        let around = Self.neighbourhood
        voxels.forEach { key, count in
            guard count == 1 else { return }
            let c = VoxelKey.unpack(key)
            for d in around where voxels.value(for: VoxelKey.pack(c &+ d)) != nil { return }
            isolated += 1
        }
        isolatedVoxels = isolated
        // Blocks: sized so that a query sphere spans at most three blocks per axis (at most 16 voxels per edge, so
        // a voxel's place in its block fits in 16 bits).
        let edge = Int32(min(16, max(4, (queryRadius / resolution).rounded(.up))))
        blockEdge = edge
        var blockTable = VoxelTable(capacity: max(16, voxels.count / 16))
        var perBlock: [Int32] = []
        voxels.forEach { key, _ in
            let b = Self.block(of: VoxelKey.unpack(key), edge: edge)
            let (s, inserted) = blockTable.slot(for: VoxelKey.pack(b), initial: Int32(perBlock.count))
            if inserted { perBlock.append(0) }
            perBlock[Int(blockTable.values[s])] += 1
        }
        var start = [Int32](repeating: 0, count: perBlock.count + 1)
        for i in perBlock.indices { start[i + 1] = start[i] + perBlock[i] }
        var fill = Array(start.dropLast())
        var members = [UInt16](repeating: 0, count: voxels.count)
        voxels.forEach { key, _ in
            let c = VoxelKey.unpack(key)
            let b = Self.block(of: c, edge: edge)
            let index = Int(blockTable.value(for: VoxelKey.pack(b))!)
            let l = c &- b &* edge
            members[Int(fill[index])] = UInt16(l.x + edge * (l.y + edge * l.z))
            fill[index] += 1
        }
        blocks = blockTable
        blockStart = start
        blockVoxels = members
    }

    /// The 124 offsets within two voxels, nearest first.
    static let neighbourhood: [SIMD3<Int32>] = {
        var offsets: [SIMD3<Int32>] = []
        for z in Int32(-2)...2 {
            for y in Int32(-2)...2 {
                for x in Int32(-2)...2 where x != 0 || y != 0 || z != 0 { offsets.append(SIMD3(x, y, z)) }
            }
        }
        return offsets.sorted { ($0 &* $0).wrappedSum() < ($1 &* $1).wrappedSum() }
    }()

    @inline(__always)
    static func block(of c: SIMD3<Int32>, edge: Int32) -> SIMD3<Int32> {
        SIMD3(floorDiv(c.x, edge), floorDiv(c.y, edge), floorDiv(c.z, edge))
    }

    @inline(__always)
    static func floorDiv(_ a: Int32, _ b: Int32) -> Int32 { a >= 0 ? a / b : (a - b + 1) / b }

    /// The voxel containing `p`.
    @inline(__always)
    public func voxel(containing p: SIMD3<Double>) -> SIMD3<Int32> {
        SIMD3<Int32>((p / resolution).rounded(.down))
    }

    /// The centre of voxel `c`, metres.
    @inline(__always)
    public func centre(of c: SIMD3<Int32>) -> SIMD3<Double> { (SIMD3<Double>(c) + 0.5) * resolution }

    /// The distance from `p` to the nearest occupied voxel centre, or `limit` when none is nearer.
    public func distanceToObstacle(_ p: SIMD3<Double>, within limit: Double) -> Double {
        let blockSize = Double(blockEdge) * resolution
        let lo = SIMD3<Int32>(((p - limit) / blockSize).rounded(.down))
        let hi = SIMD3<Int32>(((p + limit) / blockSize).rounded(.down))
        var best2 = limit * limit
        let e = Int(blockEdge)
        for bz in lo.z...hi.z {
            for by in lo.y...hi.y {
                for bx in lo.x...hi.x {
                    let b = SIMD3(bx, by, bz)
                    guard let index = blocks.value(for: VoxelKey.pack(b)) else { continue }
                    let corner = SIMD3<Double>(b) * blockSize
                    // Skip a block whose box is farther than the best so far.
                    let outside = pointwiseMax(pointwiseMax(corner - p, p - (corner + blockSize)), .zero)
                    if (outside * outside).sum() >= best2 { continue }
                    for i in Int(blockStart[Int(index)])..<Int(blockStart[Int(index) + 1]) {
                        let l = Int(blockVoxels[i])
                        let local = SIMD3<Double>(Double(l % e), Double((l / e) % e), Double(l / (e * e)))
                        let d = corner + (local + 0.5) * resolution - p
                        let d2 = (d * d).sum()
                        if d2 < best2 { best2 = d2 }
                    }
                }
            }
        }
        return best2.squareRoot()
    }
}
