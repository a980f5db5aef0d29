import Flight
import Foundation
import Geodesy
import Inspection

/// `[dashboard.inspection]`: the site's point cloud the station plans inspection routes in (docs/INSPECTION.md).
public struct DashboardInspection: Sendable, Equatable {
    /// The cloud's file (PCD or PLY) in the mission's local frame.
    public var map: String
    /// Voxel edge, metres.
    public var resolution: Double
    /// Clearance from every point of the cloud, metres.
    public var clearance: Double
    /// Cruise speed of the timed route, m/s.
    public var speed: Double
    /// Seconds held at each snapshot point.
    public var hover: Double

    /// Settings with the documented defaults (0.2 m, 1 m, 4 m/s, 2 s).
    public init(map: String, resolution: Double = 0.2, clearance: Double = 1, speed: Double = 4, hover: Double = 2) {
        self.map = map
        self.resolution = resolution
        self.clearance = clearance
        self.speed = speed
        self.hover = hover
    }
}

/// The station's inspection site: the cloud, its occupancy map and a view from above, loaded on first use and kept;
/// routes planned on it. An actor: one load, plans one at a time (each a fraction of a second).
actor InspectionWorkspace {
    let settings: DashboardInspection
    private var loaded: Result<Site, InspectionLoadError>?

    /// What a loaded site holds.
    struct Site: Sendable {
        var cloud: PointCloud
        var map: OccupancyMap
        var top: TopView
        var loadSeconds: Double
    }

    /// Why the site cannot be used.
    struct InspectionLoadError: Error, Sendable {
        let message: String
    }

    /// The cloud seen from above: the highest point in each cell of a grid over the cloud, row by row from the
    /// south-west corner (east along a row), in decimetres above the lowest point; -1 for an empty cell.
    struct TopView: Sendable {
        var west: Double
        var south: Double
        var cell: Double
        var columns: Int
        var rows: Int
        var floor: Double
        var top: Double
        var heights: [Int]
    }

    init(settings: DashboardInspection) {
        self.settings = settings
    }

    /// The site, loading it on first call.
    func site() -> Result<Site, InspectionLoadError> {
        if let loaded { return loaded }
        let started = ContinuousClock.now
        let result: Result<Site, InspectionLoadError>
        do {
            let cloud = try PointCloudReader.read(path: settings.map)
            let map = try OccupancyMap(
                cloud: cloud, resolution: settings.resolution,
                queryRadius: settings.clearance + settings.resolution)
            let d = ContinuousClock.now - started
            result = .success(
                Site(
                    cloud: cloud, map: map, top: Self.topView(cloud, map: map),
                    loadSeconds: Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18))
        } catch {
            result = .failure(InspectionLoadError(message: "\(error)"))
        }
        loaded = result
        return result
    }

    /// The view from above in at most 400 × 400 cells (0.5 m, or coarser for a large site).
    static func topView(_ cloud: PointCloud, map: OccupancyMap) -> TopView {
        let lo = map.lowerCorner, hi = map.upperCorner
        let extent = max(hi.x - lo.x, hi.y - lo.y, 1)
        let cell = max(0.5, (extent / 400 * 10).rounded(.up) / 10)
        let columns = max(1, Int(((hi.x - lo.x) / cell).rounded(.up)))
        let rows = max(1, Int(((hi.y - lo.y) / cell).rounded(.up)))
        var top = [Float](repeating: -.infinity, count: columns * rows)
        var lowest = Float.infinity, highest = -Float.infinity
        for p in cloud.points {
            let c = Int((Double(p.x) - lo.x) / cell), r = Int((Double(p.y) - lo.y) / cell)
            guard c >= 0, c < columns, r >= 0, r < rows else { continue }
            top[r * columns + c] = max(top[r * columns + c], p.z)
            lowest = min(lowest, p.z)
            highest = max(highest, p.z)
        }
        let floor = lowest.isFinite ? Double(lowest) : 0, ceiling = highest.isFinite ? Double(highest) : 0
        return TopView(
            west: lo.x, south: lo.y, cell: cell, columns: columns, rows: rows, floor: floor, top: ceiling,
            heights: top.map { $0 == -.infinity ? -1 : max(0, Int(((Double($0) - floor) * 10).rounded())) })
    }

    /// A route through `points` (local ENU, heading) from `start`, on the loaded site.
    func plan(_ points: [SnapshotPoint], start: SIMD3<Double>?) throws -> (InspectionRoute, Double, Double) {
        let site = try site().get()
        var s = InspectionPlanner.Settings()
        s.clearance = settings.clearance
        s.hover = settings.hover
        s.limits.maxSpeed = settings.speed
        let started = ContinuousClock.now
        let route = try InspectionPlanner(map: site.map, settings: s).plan(points, start: start)
        let d = ContinuousClock.now - started
        let clearance = RouteClearance.minimum(path: route.vertices, cloud: site.cloud).distance
        return (route, clearance, Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18)
    }
}
