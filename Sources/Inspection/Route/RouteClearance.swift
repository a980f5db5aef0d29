/// The smallest distance between a path and the raw points of a cloud, exactly (not through the voxels): every cloud
/// point near the path is measured against the path's segments themselves.
public enum RouteClearance {
    /// The smallest distance from the polyline `path` to any point of `cloud`, up to `limit` (returned when nothing
    /// is nearer), and the cloud point where it occurs.
    public static func minimum(path: [SIMD3<Double>], cloud: PointCloud, limit: Double = 10) -> (
        distance: Double, at: SIMD3<Double>?
    ) {
        guard let first = path.first else { return (limit, nil) }
        let segments = path.count == 1 ? [(first, first)] : zip(path, path.dropFirst()).map { ($0, $1) }
        // Each segment is listed in every cell of `limit` metres within `limit` of it (found by walking it in
        // half-cell steps): a cloud point then looks in its own cell only.
        let cell = limit
        var table = VoxelTable(capacity: 1024)
        var lists: [[Int32]] = []
        for (s, (a, b)) in segments.enumerated() {
            let d = b - a
            let n = max(1, Int(((d * d).sum().squareRoot() / (cell / 2)).rounded(.up)))
            for i in 0...n {
                let c = SIMD3<Int32>(((a + d * (Double(i) / Double(n))) / cell).rounded(.down))
                for dz in Int32(-1)...1 {
                    for dy in Int32(-1)...1 {
                        for dx in Int32(-1)...1 {
                            let (slot, inserted) = table.slot(
                                for: VoxelKey.pack(c &+ SIMD3(dx, dy, dz)), initial: Int32(lists.count))
                            if inserted { lists.append([]) }
                            let l = Int(table.values[slot])
                            if lists[l].last != Int32(s) { lists[l].append(Int32(s)) }
                        }
                    }
                }
            }
        }
        var best = limit * limit
        var at: SIMD3<Double>?
        let inverse = 1 / cell
        for q in cloud.points {
            let p = SIMD3<Double>(q)
            guard abs(p.x) < 1e6 && abs(p.y) < 1e6 && abs(p.z) < 1e6 else { continue }
            let key = VoxelKey.pack(
                SIMD3(
                    Int32((p.x * inverse).rounded(.down)), Int32((p.y * inverse).rounded(.down)),
                    Int32((p.z * inverse).rounded(.down))))
            guard let l = table.value(for: key) else { continue }
            for s in lists[Int(l)] {
                let (a, b) = segments[Int(s)]
                let d = b - a
                let length2 = (d * d).sum()
                let t = length2 > 0 ? min(1, max(0, ((p - a) * d).sum() / length2)) : 0
                let e = a + d * t - p
                let d2 = (e * e).sum()
                if d2 < best {
                    best = d2
                    at = p
                }
            }
        }
        return (best.squareRoot(), at)
    }
}
