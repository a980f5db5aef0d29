/// Shortens a grid path by line of sight ("string pulling"): from each kept vertex, the next kept vertex is the
/// farthest later one reachable in a straight free segment. The result is an any-angle path whose every segment was
/// checked against the map; on open ground it is the straight line, around a pillar it hugs the clearance.
struct PathShortening {
    let check: SegmentCheck

    func shorten(_ path: [SIMD3<Double>]) -> [SIMD3<Double>] {
        guard path.count > 2 else { return path }
        var out = [path[0]]
        var i = 0
        while i < path.count - 1 {
            var j = i + 1
            var k = i + 2
            // Farthest visible vertex: scan forward; give up a few vertices after the first blocked one.
            var misses = 0
            while k < path.count {
                if check.isFree(path[i], path[k]) {
                    j = k
                    misses = 0
                } else {
                    misses += 1
                    if misses > 8 { break }
                }
                k += 1
            }
            out.append(path[j])
            i = j
        }
        return out
    }

    /// Removes vertices whose neighbours see each other (repeated until none can go), then moves each inner vertex
    /// toward the midpoint of its neighbours while the segments stay free: a shorter path through the same gaps.
    func tighten(_ path: [SIMD3<Double>], rounds: Int = 4) -> [SIMD3<Double>] {
        var p = path
        var changed = true
        while changed && p.count > 2 {
            changed = false
            var i = 1
            while i < p.count - 1 {
                if check.isFree(p[i - 1], p[i + 1]) {
                    p.remove(at: i)
                    changed = true
                } else {
                    i += 1
                }
            }
        }
        guard p.count > 2 else { return p }
        for _ in 0..<rounds {
            for i in 1..<(p.count - 1) {
                let target = (p[i - 1] + p[i + 1]) / 2
                var f = 0.5
                while f > 0.03 {
                    let moved = p[i] + (target - p[i]) * f
                    if check.isFree(p[i - 1], moved) && check.isFree(moved, p[i + 1]) {
                        p[i] = moved
                        break
                    }
                    f /= 2
                }
            }
        }
        return p
    }
}
