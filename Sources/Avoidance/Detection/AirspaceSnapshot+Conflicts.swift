/// Conflict detection over a whole picture: the all-pairs reference and a broad phase that gives the same answer.
extension AirspaceSnapshot {
    /// Grid instants per time slab of the broad phase (1 s at the default 0.2 s step).
    static let slabLength = 5

    /// Every conflicting pair, by checking every pair at every instant. O(n²·k); the reference for ``conflicts()``.
    public func conflictsAllPairs() -> [Conflict] {
        var found: [UInt64: Conflict] = [:]
        let n = count
        guard n > 1 else { return [] }
        for a in 0..<(n - 1) {
            for b in (a + 1)..<n {
                narrowPhase(a, b, 0..<pointsPerTrack, into: &found)
            }
        }
        return found.values.sorted { ($0.first, $0.second) < ($1.first, $1.second) }
    }

    /// Every conflicting pair, found by sort-and-sweep per time slab: each track's points in a slab (1 s) are boxed,
    /// grown by half the minima plus the track's growth, boxes are swept along east, and only pairs whose boxes
    /// overlap in all three axes are checked point by point. Two points in conflict always have overlapping boxes,
    /// so the result equals ``conflictsAllPairs()`` exactly.
    public func conflicts() -> [Conflict] {
        var found: [UInt64: Conflict] = [:]
        let n = count
        guard n > 1 else { return [] }
        let k = pointsPerTrack
        var minX = [Double](repeating: 0, count: n), maxX = minX, minY = minX, maxY = minX, minZ = minX, maxZ = minX
        var order = Array(0..<n)
        var active: [Int] = []
        active.reserveCapacity(64)
        let halfH = horizontalSeparation / 2, halfV = verticalSeparation / 2
        var slabStart = 0
        while slabStart < k {
            let slab = slabStart..<min(k, slabStart + Self.slabLength)
            xs.withUnsafeBufferPointer { xs in
                ys.withUnsafeBufferPointer { ys in
                    zs.withUnsafeBufferPointer { zs in
                        growH.withUnsafeBufferPointer { gh in
                            growV.withUnsafeBufferPointer { gv in
                                for t in 0..<n {
                                    var lx = Double.infinity, hx = -Double.infinity, ly = Double.infinity,
                                        hy = -Double.infinity
                                    var lz = Double.infinity, hz = -Double.infinity, g = 0.0, gz = 0.0
                                    for i in (t * k + slab.lowerBound)..<(t * k + slab.upperBound) {
                                        lx = min(lx, xs[i])
                                        hx = max(hx, xs[i])
                                        ly = min(ly, ys[i])
                                        hy = max(hy, ys[i])
                                        lz = min(lz, zs[i])
                                        hz = max(hz, zs[i])
                                        g = max(g, gh[i])
                                        gz = max(gz, gv[i])
                                    }
                                    let r = halfH + g, rz = halfV + gz
                                    minX[t] = lx - r
                                    maxX[t] = hx + r
                                    minY[t] = ly - r
                                    maxY[t] = hy + r
                                    minZ[t] = lz - rz
                                    maxZ[t] = hz + rz
                                }
                            }
                        }
                    }
                }
            }
            order.sort { minX[$0] < minX[$1] || (minX[$0] == minX[$1] && $0 < $1) }
            active.removeAll(keepingCapacity: true)
            for b in order {
                let left = minX[b]
                active.removeAll { maxX[$0] < left }
                for a in active
                where minY[a] <= maxY[b] && minY[b] <= maxY[a] && minZ[a] <= maxZ[b] && minZ[b] <= maxZ[a] {
                    narrowPhase(min(a, b), max(a, b), slab, into: &found)
                }
                active.append(b)
            }
            slabStart = slab.upperBound
        }
        return found.values.sorted { ($0.first, $0.second) < ($1.first, $1.second) }
    }

    /// Checks tracks `a` < `b` at the instants `range` and merges what it finds into `found`.
    func narrowPhase(_ a: Int, _ b: Int, _ range: Range<Int>, into found: inout [UInt64: Conflict]) {
        let k = pointsPerTrack
        var first = -1, instants = 0, closest = Double.infinity
        for s in range {
            let i = a * k + s, j = b * k + s
            let dz = abs(zs[i] - zs[j])
            guard dz < verticalSeparation + growV[i] + growV[j] else { continue }
            let dx = xs[i] - xs[j], dy = ys[i] - ys[j]
            let r = horizontalSeparation + growH[i] + growH[j]
            let d2 = dx * dx + dy * dy
            guard d2 < r * r else { continue }
            if first < 0 { first = s }
            instants += 1
            closest = min(closest, d2.squareRoot())
        }
        guard first >= 0 else { return }
        let key = UInt64(a) << 32 | UInt64(b)
        if var c = found[key] {
            c.firstIndex = min(c.firstIndex, first)
            c.instants += instants
            c.closestHorizontal = min(c.closestHorizontal, closest)
            found[key] = c
        } else {
            found[key] = Conflict(
                first: a, second: b, firstIndex: first, instants: instants, closestHorizontal: closest)
        }
    }
}
