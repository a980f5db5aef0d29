extension SiteScene {
    /// A campus `size` metres square: ground, `buildings` boxes up to 45 m high, a row of lamp poles, and
    /// `snapshots` points drawn in free space around the buildings (each at least 3 m from every wall), all from
    /// `seed`. Surfaces are sampled every `step` metres (0.2 m gives about 2.6 million points at 200 m; 0.09 m
    /// about 10 million).
    public static func campus(
        size: Double = 200, buildings: Int = 24, snapshots: Int = 20, seed: UInt64 = 11, step: Double = 0.2
    ) -> SiteScene {
        var state = seed | 1
        func next() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state >> 11) / Double(1 << 53)
        }
        let half = size / 2
        var p = plane(x: -half...half, y: -half...half, z: 0, step: step)
        var boxes: [(SIMD3<Double>, SIMD3<Double>)] = []
        while boxes.count < buildings {
            let w = 10 + next() * 20, d = 10 + next() * 20, h = 8 + next() * 37
            let x = -half + 10 + next() * (size - 20 - w), y = -half + 10 + next() * (size - 20 - d)
            let lo = SIMD3(x, y, 0), hi = SIMD3(x + w, y + d, h)
            // Keep streets between buildings: at least 8 m apart.
            if boxes.contains(where: { all($0.0 .< hi + 8) && all(lo - 8 .< $0.1) }) { continue }
            boxes.append((lo, hi))
            p += box(lo, hi, step: step)
        }
        var poles = 0
        var x = -half + 5
        while x < half - 5 {
            let c = SIMD2(x, -half + 4)
            p += cylinder(c, radius: 0.1, z: 0...6, step: step)
            poles += 1
            x += 12
        }
        var shots: [SnapshotPoint] = []
        while shots.count < snapshots {
            let q = SIMD3(-half + 5 + next() * (size - 10), -half + 8 + next() * (size - 13), 3 + next() * 40)
            let clear = boxes.allSatisfy { b in
                let outside = pointwiseMax(pointwiseMax(b.0 - q, q - b.1), .zero)
                return (outside * outside).sum() >= 9
            }
            guard clear else { continue }
            shots.append(
                SnapshotPoint(position: q, heading: (next() * 360).rounded(), label: "snapshot \(shots.count + 1)"))
        }
        return SiteScene(name: "campus", cloud: PointCloud(points: p, format: "campus"), points: shots)
    }
}
