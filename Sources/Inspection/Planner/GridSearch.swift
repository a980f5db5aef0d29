/// A* over a grid of cubic cells of `cell` metres (the map's voxels or a multiple of them), 26-connected, between
/// two free cells.
///
/// A cell is free when its centre is at least `threshold` metres from every occupied voxel centre; a move between
/// two free cells is allowed when the straight segment between their centres stays that far too (checked exactly
/// only near obstacles: far from them, the distance at the two ends already bounds it). The heuristic is the exact
/// 26-connected ("octile") distance, so with `weight` 1 the path is the grid optimum; a weight above 1 expands fewer
/// cells and bounds the length by that factor.
struct GridSearch {
    let map: OccupancyMap
    let cell: Double
    let threshold: Double
    let lower: SIMD3<Int32>
    let upper: SIMD3<Int32>
    let weight: Double
    let maxCells: Int

    private var cells = VoxelTable(capacity: 1 << 12)
    private var coordinate: [SIMD3<Int32>] = []
    private var cost: [Float] = []
    private var parent: [Int32] = []
    private var clearance: [Float] = []
    private var closed: [Bool] = []
    private var heap = MinHeap()
    /// Cells taken off the open list.
    private(set) var expanded = 0

    init(
        map: OccupancyMap, cell: Double, threshold: Double, lower: SIMD3<Int32>, upper: SIMD3<Int32>,
        weight: Double = 1, maxCells: Int = 8_000_000
    ) {
        self.map = map
        self.cell = cell
        self.threshold = threshold
        self.lower = lower
        self.upper = upper
        self.weight = weight
        self.maxCells = maxCells
    }

    /// Cells visited (free or not).
    var visited: Int { coordinate.count }

    private static let moves: [(SIMD3<Int32>, Float)] = {
        var m: [(SIMD3<Int32>, Float)] = []
        for z in Int32(-1)...1 {
            for y in Int32(-1)...1 {
                for x in Int32(-1)...1 where x != 0 || y != 0 || z != 0 {
                    m.append((SIMD3(x, y, z), Float(Double(x * x + y * y + z * z).squareRoot())))
                }
            }
        }
        return m
    }()

    /// The centre of cell `c`, metres.
    func centre(of c: SIMD3<Int32>) -> SIMD3<Double> { (SIMD3<Double>(c) + 0.5) * cell }

    /// The cell containing `p`.
    func cell(containing p: SIMD3<Double>) -> SIMD3<Int32> { SIMD3<Int32>((p / cell).rounded(.down)) }

    /// Distance from a cell's centre to the map's obstacles, capped a cell above the threshold.
    private func distance(at c: SIMD3<Int32>) -> Float {
        Float(map.distanceToObstacle(centre(of: c), within: threshold + cell))
    }

    private mutating func node(_ c: SIMD3<Int32>) -> Int {
        let (slot, inserted) = cells.slot(for: VoxelKey.pack(c), initial: Int32(coordinate.count))
        if inserted {
            coordinate.append(c)
            cost.append(.infinity)
            parent.append(-1)
            clearance.append(distance(at: c))
            closed.append(false)
        }
        return Int(cells.values[slot])
    }

    /// Whether the cell is free (its centre far enough from obstacles and within the search bounds).
    mutating func isFree(_ c: SIMD3<Int32>) -> Bool {
        guard all(c .>= lower) && all(c .<= upper) else { return false }
        return Double(clearance[node(c)]) >= threshold
    }

    private func heuristic(_ a: SIMD3<Int32>, _ b: SIMD3<Int32>) -> Float {
        let e = a &- b
        let d = SIMD3<Float>(Float(abs(e.x)), Float(abs(e.y)), Float(abs(e.z)))
        let hi = d.max(), lo = d.min(), mid = d.sum() - hi - lo
        return (1.7320508 - 1.4142135) * lo + (1.4142135 - 1) * mid + hi
    }

    /// The cells from `start` to `goal` inclusive, or nil when the goal cannot be reached within the bounds and the
    /// cell budget (`exhausted` tells which).
    mutating func path(from start: SIMD3<Int32>, to goal: SIMD3<Int32>) -> (cells: [SIMD3<Int32>]?, exhausted: Bool) {
        let s = node(start)
        cost[s] = 0
        heap.push(f: Float(weight) * heuristic(start, goal), g: 0, node: Int32(s))
        let w = Float(weight)
        let res = cell
        while let top = heap.pop() {
            let n = Int(top.node)
            if closed[n] { continue }
            closed[n] = true
            expanded += 1
            let here = coordinate[n]
            if here == goal { return (trace(from: n), false) }
            if coordinate.count > maxCells { return (nil, true) }
            let g = cost[n]
            let dHere = Double(clearance[n])
            for (step, length) in Self.moves {
                let next = here &+ step
                guard all(next .>= lower) && all(next .<= upper) else { continue }
                let m = node(next)
                if closed[m] { continue }
                let dNext = Double(clearance[m])
                guard dNext >= threshold else { continue }
                let candidate = g + length
                guard candidate < cost[m] else { continue }
                // Near an obstacle the segment between the two centres may dip below the threshold.
                if min(dHere, dNext) < threshold + Double(length) * res / 2,
                    !SegmentCheck(map: map, threshold: threshold).isFree(centre(of: here), centre(of: next))
                {
                    continue
                }
                cost[m] = candidate
                parent[m] = Int32(n)
                heap.push(f: candidate + w * heuristic(next, goal), g: candidate, node: Int32(m))
            }
        }
        return (nil, false)
    }

    private func trace(from end: Int) -> [SIMD3<Int32>] {
        var out: [SIMD3<Int32>] = []
        var n = end
        while n >= 0 {
            out.append(coordinate[n])
            n = Int(parent[n])
        }
        return out.reversed()
    }
}

/// A binary min-heap of open cells ordered by f, ties broken toward the larger g (deeper cells first).
struct MinHeap {
    struct Entry {
        var f: Float
        var g: Float
        var node: Int32
    }
    private var items: [Entry] = []

    @inline(__always)
    private static func less(_ a: Entry, _ b: Entry) -> Bool { a.f < b.f || (a.f == b.f && a.g > b.g) }

    mutating func push(f: Float, g: Float, node: Int32) {
        items.append(Entry(f: f, g: g, node: node))
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard Self.less(items[i], items[p]) else { break }
            items.swapAt(i, p)
            i = p
        }
    }

    mutating func pop() -> Entry? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && Self.less(items[l], items[m]) { m = l }
                if r < items.count && Self.less(items[r], items[m]) { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return first
    }
}
