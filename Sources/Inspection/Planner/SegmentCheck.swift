/// Whether a straight segment keeps `threshold` metres from every occupied voxel centre, exactly: the segment is
/// walked in steps of half a block, every block within reach of a step is visited once, and each of its voxel
/// centres is measured against the segment itself (not against probes along it).
struct SegmentCheck {
    let map: OccupancyMap
    let threshold: Double

    /// True when no occupied voxel centre is nearer to the segment `a`–`b` than the threshold.
    func isFree(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Bool {
        let d = b - a
        let length2 = (d * d).sum()
        let blockSize = Double(map.blockEdge) * map.resolution
        let spacing = blockSize / 2
        let n = max(1, Int((length2.squareRoot() / spacing).rounded(.up)))
        // A centre within the threshold of the segment is within threshold + spacing / 2 of some step.
        let reach = threshold + spacing / 2
        let t2 = threshold * threshold
        let blockReach = threshold + blockSize * 3.0.squareRoot() / 2
        var seen = VoxelTable(capacity: 64)
        let e = Int(map.blockEdge)
        for i in 0...n {
            let p = a + d * (Double(i) / Double(n))
            let lo = SIMD3<Int32>(((p - reach) / blockSize).rounded(.down))
            let hi = SIMD3<Int32>(((p + reach) / blockSize).rounded(.down))
            for bz in lo.z...hi.z {
                for by in lo.y...hi.y {
                    for bx in lo.x...hi.x {
                        let block = SIMD3(bx, by, bz)
                        let key = VoxelKey.pack(block)
                        guard seen.slot(for: key, initial: 0).inserted, let index = map.blocks.value(for: key) else {
                            continue
                        }
                        let corner = SIMD3<Double>(block) * blockSize
                        if distance2(corner + blockSize / 2, a, d, length2) > blockReach * blockReach { continue }
                        for v in Int(map.blockStart[Int(index)])..<Int(map.blockStart[Int(index) + 1]) {
                            let l = Int(map.blockVoxels[v])
                            let local = SIMD3<Double>(Double(l % e), Double((l / e) % e), Double(l / (e * e)))
                            if distance2(corner + (local + 0.5) * map.resolution, a, d, length2) < t2 { return false }
                        }
                    }
                }
            }
        }
        return true
    }

    /// Squared distance from `c` to the segment from `a` along `d` (`length2` = |d|²).
    @inline(__always)
    private func distance2(_ c: SIMD3<Double>, _ a: SIMD3<Double>, _ d: SIMD3<Double>, _ length2: Double) -> Double {
        let t = length2 > 0 ? min(1, max(0, ((c - a) * d).sum() / length2)) : 0
        let e = a + d * t - c
        return (e * e).sum()
    }
}
