import Avoidance
import Flight

/// Inspection routes for several drones: the points split into balanced tours, one per drone, each from its own
/// start, checked against each other with FleetMesh's conflict detection (`AirspaceSnapshot`, the avoidance's own)
/// and deconflicted in time before anyone flies.
public struct FleetInspectionPlan: Sendable {
    /// Each drone's route, in the order of the starts given (a drone with no points has nil).
    public var routes: [InspectionRoute?]
    /// Seconds each drone waits, hovering at its start, before it sets off.
    public var delays: [Double]
    /// Conflicting pairs found before the delays, and after (0: none).
    public var conflictsBefore: Int
    public var conflictsAfter: Int
    /// Seconds until the last drone finishes (delays included).
    public var makespan: Double
}

extension InspectionPlanner {
    /// Splits `points` among drones starting at `starts` and plans each one's route.
    ///
    /// The points are put in one shortest open tour (path lengths through the map; nearest neighbour and 2-opt),
    /// the tour is cut into one contiguous stretch per drone so that the longest drone's work (the way from its start
    /// plus its stretch) is as short as possible, each stretch is given to a start (every assignment tried for up
    /// to 5 drones, nearest start first above that) and re-ordered from its start. The timed routes are then checked
    /// for conflicts with the avoidance's separation minima; a drone in conflict waits at its start, in steps of
    /// `delayStep` seconds, until it has none with those before it.
    public func planFleet(
        _ points: [SnapshotPoint], starts: [SIMD3<Double>],
        separation: AvoidanceConfiguration = AvoidanceConfiguration(),
        delayStep: Double = 5
    ) throws(InspectionError) -> FleetInspectionPlan {
        let k = starts.count
        guard k >= 1, k <= 16 else { throw .badParameter("between 1 and 16 drones, found \(k)") }
        guard !points.isEmpty else { throw .badPoints("no snapshot points") }
        for (i, a) in starts.enumerated() {
            for b in starts[(i + 1)...]
            where ((a - b) * (a - b)).sum() < separation.horizontalSeparation * separation.horizontalSeparation {
                throw .badParameter(
                    "starts \(formatPoint(a)) and \(formatPoint(b)) are closer than the \(format2(separation.horizontalSeparation)) m separation"
                )
            }
        }
        let space = bounds(including: points.map(\.position) + starts)
        let box = (lower: space.lower, upper: space.upper)
        let startPoints = starts.enumerated().map { SnapshotPoint(position: $1, label: "start \($0 + 1)") }
        for s in startPoints { try checkFree(s, floor: space.floor) }
        for p in points { try checkFree(p, floor: space.floor) }

        // Path lengths: point to point, and start to point.
        let n = points.count
        var cost = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        var fromStart = [[Double]](repeating: [Double](repeating: 0, count: n), count: k)
        for i in 0..<n {
            for j in (i + 1)..<n {
                cost[i][j] = pathLength(try leg(from: points[i], to: points[j], space: box).path)
                cost[j][i] = cost[i][j]
            }
            for s in 0..<k {
                fromStart[s][i] = pathLength(try leg(from: startPoints[s], to: points[i], space: box).path)
            }
        }
        let tour = TourOrder.openTour(cost: cost, fixedStart: false)
        let groups = Self.split(tour, cost: cost, fromStart: fromStart, drones: k)

        var routes: [InspectionRoute?] = Array(repeating: nil, count: k)
        for (s, group) in groups.enumerated() where !group.isEmpty {
            let subset = group.map { points[$0] }
            var route = try plan(subset, start: starts[s], reorder: subset.count > 2)
            route.order = route.order.map { group[$0] }
            routes[s] = route
        }
        let (delays, before, after) = try Self.deconflict(routes, separation: separation, delayStep: delayStep)
        let makespan = zip(routes, delays).map { ($0?.duration ?? 0) + $1 }.max() ?? 0
        return FleetInspectionPlan(
            routes: routes, delays: delays, conflictsBefore: before, conflictsAfter: after, makespan: makespan)
    }

    /// Delays that keep the timed routes out of conflict: in the order given, each drone waits at its start, in
    /// steps of `delayStep` seconds, until it has no conflict with those before it. Returns the delays and the
    /// conflicting pairs before and after.
    public static func deconflict(
        _ routes: [InspectionRoute?], separation: AvoidanceConfiguration = AvoidanceConfiguration(),
        delayStep: Double = 5
    ) throws(InspectionError) -> (delays: [Double], before: Int, after: Int) {
        let k = routes.count
        var delays = [Double](repeating: 0, count: k)
        let before = conflicts(routes, delays: delays, separation: separation, among: Array(0..<k))
        var fixed: [Int] = []
        for s in 0..<k where routes[s] != nil {
            var tries = 0
            while !conflicts(routes, delays: delays, separation: separation, among: fixed + [s]).isEmpty {
                delays[s] += delayStep
                tries += 1
                if tries > 200 {
                    throw .noPath(
                        "drone \(s + 1)'s route stays in conflict with another's after waiting \(format2(delays[s])) s "
                            + "(their starts or ends are within the separation)")
                }
            }
            fixed.append(s)
        }
        let after = conflicts(routes, delays: delays, separation: separation, among: Array(0..<k))
        return (delays, before.count, after.count)
    }

    /// Contiguous stretches of `tour`, one per drone, minimising the longest drone's path (start to its first
    /// point, then along the stretch, either way round).
    static func split(_ tour: [Int], cost: [[Double]], fromStart: [[Double]], drones k: Int) -> [[Int]] {
        let n = tour.count
        var prefix = [0.0]
        for i in 1..<max(1, n) { prefix.append(prefix[i - 1] + cost[tour[i - 1]][tour[i]]) }
        func work(_ s: Int, _ a: Int, _ b: Int) -> Double {  // stretch tour[a...b] flown by start s
            let along = prefix[b] - prefix[a]
            return along + min(fromStart[s][tour[a]], fromStart[s][tour[b]])
        }
        func best(assignment: [Int]) -> (Double, [ClosedRange<Int>?]) {
            // dp[j][i]: the best bottleneck covering tour[0..<i] with the first j drones of `assignment`.
            var dp = [[Double]](repeating: [Double](repeating: .infinity, count: n + 1), count: k + 1)
            var cut = [[Int]](repeating: [Int](repeating: 0, count: n + 1), count: k + 1)
            dp[0][0] = 0
            for j in 1...k {
                for i in 0...n {
                    dp[j][i] = dp[j - 1][i]  // drone j takes nothing
                    cut[j][i] = i
                    guard i > 0 else { continue }
                    for a in 0..<i where dp[j - 1][a] < .infinity {
                        let v = max(dp[j - 1][a], work(assignment[j - 1], a, i - 1))
                        if v < dp[j][i] {
                            dp[j][i] = v
                            cut[j][i] = a
                        }
                    }
                }
            }
            var ranges: [ClosedRange<Int>?] = Array(repeating: nil, count: k)
            var i = n
            for j in stride(from: k, to: 0, by: -1) {
                let a = cut[j][i]
                if a < i { ranges[j - 1] = a...(i - 1) }
                i = a
            }
            return (dp[k][n], ranges)
        }
        var assignments: [[Int]] = []
        if k <= 5 {
            func permute(_ prefix: [Int], _ left: [Int]) {
                if left.isEmpty { assignments.append(prefix) }
                for (i, x) in left.enumerated() {
                    var rest = left
                    rest.remove(at: i)
                    permute(prefix + [x], rest)
                }
            }
            permute([], Array(0..<k))
        } else {
            // Starts in the order of their distance to the tour's first point.
            assignments = [Array(0..<k).sorted { fromStart[$0][tour[0]] < fromStart[$1][tour[0]] }]
        }
        var bestValue = Double.infinity
        var groups = [[Int]](repeating: [], count: k)
        for assignment in assignments {
            let (value, ranges) = best(assignment: assignment)
            guard value < bestValue - 1e-9 else { continue }
            bestValue = value
            groups = [[Int]](repeating: [], count: k)
            for (j, r) in ranges.enumerated() { if let r { groups[assignment[j]] = Array(tour[r]) } }
        }
        return groups
    }

    /// Conflicting pairs among the drones `among`, each flying its route after its delay (hovering at its start
    /// before, at its end after), judged by the avoidance's conflict detection over the whole mission.
    static func conflicts(
        _ routes: [InspectionRoute?], delays: [Double], separation: AvoidanceConfiguration, among: [Int]
    ) -> [Conflict] {
        let step = 0.5
        var config = separation
        config.step = step
        let horizon = among.map { (routes[$0]?.duration ?? 0) + delays[$0] }.max() ?? 0
        config.horizon = max(step, (horizon / step).rounded(.up) * step)
        config.staleAfter = .infinity
        config.forgetAfter = .infinity
        var tracks: [AirspaceTrack] = []
        for s in among {
            guard let route = routes[s] else { continue }
            let t = route.trajectory
            var points: [PredictedTrajectory.Point] = []
            var time = 0.0
            while time <= config.horizon + 1e-9 {
                let p = t.sample(at: time - delays[s])
                points.append(.init(offset: time, position: p.position))
                time += step
            }
            tracks.append(
                AirspaceTrack(
                    uavNumber: s + 1, avoiding: true,
                    prediction: PredictedTrajectory(time: 0, origin: t.start.position, points: points)))
        }
        return AirspaceSnapshot(tracks: tracks, now: 0, configuration: config).conflicts()
    }
}
