import Flight

/// A planned inspection: the path's vertices, where each snapshot is on it, the timed trajectory and its figures.
public struct InspectionRoute: Sendable {
    /// One leg, from the previous point (or the start) to a snapshot point.
    public struct Leg: Sendable, Hashable {
        /// Vertices of the leg, both ends included.
        public var path: [SIMD3<Double>]
        /// Path length, metres.
        public var length: Double
        /// Grid cells the search expanded (0 when the straight line was free).
        public var expandedCells: Int
    }

    /// The snapshot points in the order flown (reordered when asked).
    public var points: [SnapshotPoint]
    /// For each point flown, its index in the input.
    public var order: [Int]
    /// The legs, one per point flown (the first from the start, when given).
    public var legs: [Leg]
    /// The whole path's vertices (the start, when given, first; no vertex repeated).
    public var vertices: [SIMD3<Double>]
    /// For each point flown, the index of its vertex in ``vertices``.
    public var snapshotVertices: [Int]
    /// The timed trajectory: every leg at the limits, a turn to each point's heading and a hover there.
    public var trajectory: Trajectory
    /// Whether the route starts at a given start position (else at the first point).
    public var hasStart: Bool
    /// Seconds held at each snapshot point.
    public var hover: Double

    /// Path length, metres.
    public var length: Double { legs.reduce(0) { $0 + $1.length } }
    /// Grid cells expanded over all legs.
    public var expandedCells: Int { legs.reduce(0) { $0 + $1.expandedCells } }
    /// Seconds from the start to the end of the last hover.
    public var duration: Double { trajectory.duration }
}

extension InspectionPlanner {
    /// Plans through `points` in order (or in the shortest order found when `reorder` is set), from `start` when
    /// given. Every point must keep the clearance.
    public func plan(_ points: [SnapshotPoint], start: SIMD3<Double>? = nil, reorder: Bool = false)
        throws(InspectionError) -> InspectionRoute
    {
        guard !points.isEmpty else { throw .badPoints("no snapshot points") }
        let all = points.map(\.position) + (start.map { [$0] } ?? [])
        let space = bounds(including: all)
        let origin = start.map { SnapshotPoint(position: $0, label: "the start") }
        if let origin { try checkFree(origin, floor: space.floor) }
        for p in points { try checkFree(p, floor: space.floor) }
        let box = (lower: space.lower, upper: space.upper)

        var order = Array(points.indices)
        var known: [Int: [Int: (path: [SIMD3<Double>], expanded: Int)]] = [:]
        if reorder && points.count > 2 {
            // Path lengths through the map between every pair (and from the start), then the shortest open tour.
            let nodes = (origin.map { [$0] } ?? []) + points
            var cost = [[Double]](repeating: [Double](repeating: 0, count: nodes.count), count: nodes.count)
            for i in nodes.indices {
                for j in nodes.indices where j > i {
                    let l = try leg(from: nodes[i], to: nodes[j], space: box)
                    known[i, default: [:]][j] = l
                    cost[i][j] = pathLength(l.path)
                    cost[j][i] = cost[i][j]
                }
            }
            let tour = TourOrder.openTour(cost: cost, fixedStart: origin != nil)
            order = origin != nil ? tour.dropFirst().map { $0 - 1 } : tour
        }

        var legs: [InspectionRoute.Leg] = []
        var previous = origin
        let offset = origin != nil ? 1 : 0
        var previousIndex: Int? = origin != nil ? 0 : nil
        for index in order {
            let p = points[index]
            if let from = previous, let fi = previousIndex {
                let ti = index + offset
                let l: (path: [SIMD3<Double>], expanded: Int)
                if let cached = known[min(fi, ti)]?[max(fi, ti)] {
                    l = fi < ti ? cached : (cached.path.reversed(), cached.expanded)
                } else {
                    l = try leg(from: from, to: p, space: box)
                }
                legs.append(.init(path: l.path, length: pathLength(l.path), expandedCells: l.expanded))
            } else {
                legs.append(.init(path: [p.position], length: 0, expandedCells: 0))
            }
            previous = p
            previousIndex = index + offset
        }
        var vertices: [SIMD3<Double>] = []
        var snapshotVertices: [Int] = []
        for l in legs {
            vertices.append(contentsOf: vertices.isEmpty ? l.path : Array(l.path.dropFirst()))
            snapshotVertices.append(vertices.count - 1)
        }
        let flown = order.map { points[$0] }
        let trajectory = try timed(vertices: vertices, snapshotVertices: snapshotVertices, points: flown)
        return InspectionRoute(
            points: flown, order: order, legs: legs, vertices: vertices, snapshotVertices: snapshotVertices,
            trajectory: trajectory, hasStart: origin != nil, hover: settings.hover)
    }

    /// Times the route at the limits, as a drone flies an uploaded trajectory with stops (`TrajectoryPlanner`): each
    /// straight segment rest to rest, turning in place to face along it; at each snapshot point a turn to the point's
    /// heading and a hover.
    func timed(vertices: [SIMD3<Double>], snapshotVertices: [Int], points: [SnapshotPoint]) throws(InspectionError)
        -> Trajectory
    {
        var stops: [Int: TrajectoryPlanner.Stop] = [:]
        for (v, p) in zip(snapshotVertices, points) { stops[v] = .init(heading: p.heading, hold: settings.hover) }
        do {
            return try TrajectoryPlanner(limits: settings.limits).plan(
                vertices.map { Vector3($0.x, $0.y, $0.z) }, initialHeading: points.first?.heading ?? 0, stops: stops)
        } catch {
            throw .noPath("the route cannot be timed: \(error)")
        }
    }
}

func pathLength(_ path: [SIMD3<Double>]) -> Double {
    var total = 0.0
    for i in path.indices.dropFirst() {
        let d = path[i] - path[i - 1]
        total += (d * d).sum().squareRoot()
    }
    return total
}
