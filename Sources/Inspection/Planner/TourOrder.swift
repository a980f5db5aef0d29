/// The order to visit points in: nearest neighbour, then 2-opt (reversing a stretch of the tour while that
/// shortens it) on the given costs. The tour is open (it ends at its last point) and, with `fixedStart`, begins at
/// node 0.
enum TourOrder {
    static func openTour(cost: [[Double]], fixedStart: Bool) -> [Int] {
        let n = cost.count
        guard n > 2 else { return Array(0..<n) }
        let starts = fixedStart ? [0] : Array(0..<n)
        var best: [Int] = []
        var bestLength = Double.infinity
        for s in starts {
            var tour = [s]
            var left = Set(0..<n)
            left.remove(s)
            while let next = left.min(by: { cost[tour.last!][$0] < cost[tour.last!][$1] }) {
                tour.append(next)
                left.remove(next)
            }
            tour = improve(tour, cost: cost, fixedStart: fixedStart)
            let l = length(tour, cost)
            if l < bestLength - 1e-9 {
                best = tour
                bestLength = l
            }
        }
        return best
    }

    static func length(_ tour: [Int], _ cost: [[Double]]) -> Double {
        zip(tour, tour.dropFirst()).reduce(0) { $0 + cost[$1.0][$1.1] }
    }

    /// 2-opt for an open path: reverse tour[i...j]; the edge after j may not exist.
    static func improve(_ start: [Int], cost: [[Double]], fixedStart: Bool) -> [Int] {
        var tour = start
        let n = tour.count
        var improved = true
        while improved {
            improved = false
            for i in (fixedStart ? 1 : 0)..<(n - 1) {
                for j in (i + 1)..<n {
                    let before = (i > 0 ? cost[tour[i - 1]][tour[i]] : 0) + (j < n - 1 ? cost[tour[j]][tour[j + 1]] : 0)
                    let after = (i > 0 ? cost[tour[i - 1]][tour[j]] : 0) + (j < n - 1 ? cost[tour[i]][tour[j + 1]] : 0)
                    if after < before - 1e-9 {
                        tour[i...j].reverse()
                        improved = true
                    }
                }
            }
        }
        return tour
    }
}
