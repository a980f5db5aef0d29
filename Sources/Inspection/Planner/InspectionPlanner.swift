import Flight

/// A place to take a picture: local ENU position (metres from the map origin) and the heading to face there
/// (degrees clockwise from grid north; nil keeps the heading the drone arrives with).
public struct SnapshotPoint: Sendable, Hashable {
    /// Local ENU position, metres.
    public var position: SIMD3<Double>
    /// Heading to face, degrees clockwise from grid north.
    public var heading: Double?
    /// Where the point came from, for messages: "snapshot 3" or "points.csv:4".
    public var label: String

    /// A snapshot point.
    public init(position: SIMD3<Double>, heading: Double? = nil, label: String) {
        self.position = position
        self.heading = heading
        self.label = label
    }
}

/// Plans an inspection route: a collision-free path through snapshot points on an ``OccupancyMap``.
///
/// Each leg is an A* search on the voxel grid (``GridSearch``) whose cells keep `clearance` from the cloud,
/// shortened by line of sight and tightened (``PathShortening``). The clearance is guaranteed against the raw
/// points, not only the voxels: a cell counts as free when its centre is `clearance` plus half a voxel's diagonal
/// (the farthest a point can be from its voxel's centre) plus a centimetre from every occupied voxel centre.
public struct InspectionPlanner: Sendable {
    /// Planner settings.
    public struct Settings: Sendable, Hashable {
        /// Smallest distance from the drone's path to any point of the cloud, metres (the drone's radius plus a
        /// margin).
        public var clearance = 1.0
        /// Seconds to hover at each snapshot point after turning to its heading.
        public var hover = 2.0
        /// The lowest altitude (local z) the path may use; nil: the cloud's lowest voxel plus the clearance.
        public var floor: Double?
        /// Metres the planning space extends beyond the cloud and the points (sideways and above).
        public var margin = 5.0
        /// A* weight: 1 finds the grid optimum; above 1 searches fewer cells, at most that factor longer.
        public var searchWeight = 1.0
        /// The grids each leg is searched on, coarsest first, in voxels per cell; the next is tried when a grid
        /// finds no path. `[1]` searches the voxel grid only.
        public var searchGrids: [Int] = [8, 4, 2, 1]
        /// Most cells one leg's search may visit.
        public var maxCellsPerLeg = 8_000_000
        /// Speed, acceleration, climb and yaw-rate limits of the timed route.
        public var limits = TrajectoryPlanner.Limits()

        /// Defaults: 1 m clearance, 2 s hover, 5 m margin, weight 1, the trajectory planner's limits (4 m/s).
        public init() {}
    }

    /// The map planned in.
    public let map: OccupancyMap
    /// The settings used.
    public let settings: Settings

    /// Minimum distance from a path point to any occupied voxel centre.
    public var threshold: Double { settings.clearance + map.halfDiagonal + 0.01 }

    /// A planner on `map`; the map must have been built with a query radius of at least the threshold.
    public init(map: OccupancyMap, settings: Settings = Settings()) throws(InspectionError) {
        guard settings.clearance.isFinite, settings.clearance > 0 else {
            throw .badParameter("clearance must be positive, found \(settings.clearance)")
        }
        guard settings.hover.isFinite, settings.hover >= 0 else {
            throw .badParameter("hover must be zero or more seconds, found \(settings.hover)")
        }
        guard settings.searchWeight.isFinite, settings.searchWeight >= 1 else {
            throw .badParameter("search weight must be at least 1, found \(settings.searchWeight)")
        }
        guard !settings.searchGrids.isEmpty, settings.searchGrids.allSatisfy({ $0 >= 1 && $0 <= 64 }) else {
            throw .badParameter("search grids must be 1 to 64 voxels per cell, found \(settings.searchGrids)")
        }
        self.map = map
        self.settings = settings
    }

    /// The planning space in metres and its floor, given the points that must be inside it.
    func bounds(including points: [SIMD3<Double>]) -> (lower: SIMD3<Double>, upper: SIMD3<Double>, floor: Double) {
        var lo = map.lowerCorner, hi = map.upperCorner
        if map.voxelCount == 0, let first = points.first { (lo, hi) = (first, first) }
        for p in points {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        let floor = settings.floor ?? (map.voxelCount > 0 ? map.lowerCorner.z + settings.clearance : lo.z)
        let m = settings.margin
        return (SIMD3(lo.x - m, lo.y - m, floor), hi + m, floor)
    }

    /// Checks that `p` keeps the clearance and is inside the planning space.
    func checkFree(_ p: SnapshotPoint, floor: Double) throws(InspectionError) {
        let v = p.position
        guard v.x.isFinite && v.y.isFinite && v.z.isFinite else {
            throw .pointNotFree("\(p.label): coordinates must be finite")
        }
        if v.z < floor - 1e-9 {
            throw .pointNotFree(
                "\(p.label) \(formatPoint(v)) is below the planning floor at z = \(format2(floor)) m "
                    + "(the cloud's lowest voxel plus the clearance; set the floor to plan lower)")
        }
        let d = map.distanceToObstacle(v, within: threshold)
        if d < threshold {
            throw .pointNotFree(
                "\(p.label) \(formatPoint(v)) is \(format2(max(0, d - map.halfDiagonal))) m from the cloud "
                    + "(nearest voxel centre \(format2(d)) m), inside the \(format2(settings.clearance)) m clearance")
        }
    }

    /// The shortened free path from `a` to `b` (both included) and the cells the searches expanded.
    ///
    /// The search runs first on cells eight voxels wide (512 times fewer cells), then four, two and one, until a path is
    /// found: every move of a coarse path is checked exactly against the voxels, so a coarse path is as safe as a
    /// fine one and only a gap narrower than the coarse cells needs the finer grids.
    func leg(from a: SnapshotPoint, to b: SnapshotPoint, space: (lower: SIMD3<Double>, upper: SIMD3<Double>))
        throws(InspectionError) -> (path: [SIMD3<Double>], expanded: Int)
    {
        let check = SegmentCheck(map: map, threshold: threshold)
        if check.isFree(a.position, b.position) { return ([a.position, b.position], 0) }
        var expanded = 0
        var lastFailure = ""
        for factor in settings.searchGrids {
            let cell = map.resolution * Double(factor)
            let lower = SIMD3<Int32>((space.lower / cell - 0.5).rounded(.up))
            let upper = SIMD3<Int32>((space.upper / cell - 0.5).rounded(.down))
            var search = GridSearch(
                map: map, cell: cell, threshold: threshold, lower: lower, upper: upper, weight: settings.searchWeight,
                maxCells: settings.maxCellsPerLeg)
            guard let from = entryCell(a.position, &search, check), let to = entryCell(b.position, &search, check)
            else {
                lastFailure =
                    "no free grid cell next to \(a.label) or \(b.label): the point is too close to the clearance "
                    + "limit for a \(format2(map.resolution)) m grid; move it or use a finer resolution"
                continue
            }
            let (cells, exhausted) = search.path(from: from, to: to)
            expanded += search.expanded
            guard let cells else {
                let why =
                    exhausted
                    ? "the search gave up after visiting \(search.visited) cells (raise the limit or the search weight)"
                    : "every way is blocked within the planning space (\(expanded) cells searched)"
                lastFailure =
                    "no path with \(format2(settings.clearance)) m clearance from \(a.label) "
                    + "\(formatPoint(a.position)) to \(b.label) \(formatPoint(b.position)): \(why)"
                continue
            }
            let raw = [a.position] + cells.map { search.centre(of: $0) } + [b.position]
            let shortening = PathShortening(check: check)
            return (shortening.tighten(shortening.shorten(raw)), expanded)
        }
        throw .noPath(lastFailure)
    }

    /// A free cell whose centre `p` sees in a straight free segment: its own, else the nearest of its neighbours.
    private func entryCell(_ p: SIMD3<Double>, _ search: inout GridSearch, _ check: SegmentCheck) -> SIMD3<Int32>? {
        let c = search.cell(containing: p)
        if search.isFree(c) && check.isFree(p, search.centre(of: c)) { return c }
        var candidates: [SIMD3<Int32>] = []
        for dz in Int32(-1)...1 {
            for dy in Int32(-1)...1 { for dx in Int32(-1)...1 { candidates.append(c &+ SIMD3(dx, dy, dz)) } }
        }
        candidates.sort {
            let a = search.centre(of: $0) - p, b = search.centre(of: $1) - p
            return (a * a).sum() < (b * b).sum()
        }
        return candidates.first { search.isFree($0) && check.isFree(p, search.centre(of: $0)) }
    }
}

func format2(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    return r == r.rounded() ? "\(Int(r)).0" : "\(r)"
}

func formatPoint(_ v: SIMD3<Double>) -> String { "(\(format2(v.x)), \(format2(v.y)), \(format2(v.z)))" }
