import Avoidance
import Coordinator
import Flight
import Geodesy
import MeshTypes

/// The other drones' published paths placed on a local map, kept while they stay the same. A drone publishes a new
/// path five times a second and its pilot decides twenty times a second: projecting every peer's 40 points onto the
/// map each cycle was most of a drone's CPU (2026-11-27: 17 % of a debug node beside 9 peers). A path is projected
/// again only when its points, its step or the map change; between, its track is only aged.
public struct LocalTrackCache: Sendable {
    private struct Entry: Sendable {
        var points: [GeoPoint]
        var step: UInt16
        var frame: MapOrigin
        var start: Vector3
        var local: [PredictedTrajectory.Point]
    }
    private var entries: [NodeID: Entry] = [:]

    /// An empty cache.
    public init() {}

    /// How many paths are held now (one per drone in the last call).
    public var count: Int { entries.count }
    /// How many paths were projected onto a map in all (the rest were reused).
    public private(set) var projected = 0

    /// The fresh predictions of the drones but `own` (every drone's with nil) as avoidance tracks in `frame`, on the
    /// clock of `now` (seconds). A drone without a UAV number ranks last (251); a path that cannot be placed on the
    /// map is left out. Drones absent from `airspace` are dropped from the cache.
    public mutating func tracks(
        _ airspace: [AirspaceEntry], excluding own: NodeID?, in frame: MapOrigin, now: MeshInstant
    ) -> [AirspaceTrack] {
        var kept: [NodeID: Entry] = [:]
        kept.reserveCapacity(airspace.count)
        let seconds = Double(now.nanoseconds) / 1e9
        let tracks = airspace.compactMap { e -> AirspaceTrack? in
            let p = e.prediction
            guard e.node != own, let first = p.points.first, first.altitude.isFinite else { return nil }
            let entry: Entry
            if let held = entries[e.node], held.step == p.stepMilliseconds, held.frame == frame, held.points == p.points
            {
                entry = held
            } else {
                guard
                    let path = try? AirspaceTrack.localPath(
                        step: Double(p.stepMilliseconds) / 1000, points: p.points.map(\.geodetic), origin: frame)
                else { return nil }
                projected += 1
                entry = Entry(
                    points: p.points, step: p.stepMilliseconds, frame: frame, start: path.start, local: path.points)
            }
            kept[e.node] = entry
            return AirspaceTrack(
                uavNumber: e.uavNumber.map(Int.init) ?? 251, tiebreak: e.node.low, avoiding: p.avoiding,
                prediction: PredictedTrajectory(
                    time: seconds - e.age.secondsDouble, origin: entry.start, points: entry.local),
                uncertainty: p.uncertainty)
        }
        entries = kept
        return tracks
    }
}
