import Coordinator
import Foundation

/// Planned vs flown for one goto or trajectory: the path commanded (from where the drone was when it took the command,
/// through the waypoints), the track flown meanwhile, how far the track strayed from the path, and how long it took
/// against the commanded speed.
public struct PlanComparison: Codable, Sendable, Hashable {
    public var command: String
    /// `goto` or `trajectory`.
    public var kind: String
    /// When the drone took it (accepted; the sending time if no answer was recorded), ms since 1970.
    public var startMs: Int64
    /// Its final answer's time; nil while it ran when the log ended.
    public var endMs: Int64?
    /// `completed`, `failed`, `rejected`, or nil.
    public var outcome: String?
    /// The commanded path: [latitude, longitude, metres above home], starting where the drone was.
    public var path: [[Double]]
    public var plannedMetres: Double
    public var flownMetres: Double
    /// The flown samples' distance from the commanded path (3-D): largest and root mean square.
    public var maxCrossTrackMetres: Double
    public var rmsCrossTrackMetres: Double
    /// Path length / commanded speed (nil without a speed: a trajectory flies at the drone's own).
    public var plannedSeconds: Double?
    /// From start to the final answer.
    public var actualSeconds: Double?
}

/// A commanded path in a local east-north-up frame (metres from its first point), for distances to it.
struct PlannedPath {
    let origin: (latitude: Double, longitude: Double)
    let points: [SIMD3<Double>]

    static let radius = 6_371_008.8

    init(_ path: [[Double]]) {
        let origin = (latitude: path.first?[0] ?? 0, longitude: path.first?[1] ?? 0)
        self.origin = origin
        points = path.filter { $0.count == 3 }.map { Self.local($0[0], $0[1], $0[2], origin: origin) }
    }

    static func local(
        _ latitude: Double, _ longitude: Double, _ altitude: Double, origin: (latitude: Double, longitude: Double)
    ) -> SIMD3<Double> {
        SIMD3(
            (longitude - origin.longitude) * .pi / 180 * radius * cos(origin.latitude * .pi / 180),
            (latitude - origin.latitude) * .pi / 180 * radius, altitude)
    }

    func local(_ latitude: Double, _ longitude: Double, _ altitude: Double) -> SIMD3<Double> {
        Self.local(latitude, longitude, altitude, origin: origin)
    }

    var length: Double { zip(points, points.dropFirst()).reduce(0) { $0 + distance($1.0, $1.1) } }

    /// The distance from a position to the nearest point of the path.
    func distance(to p: Coordinator.GeoPoint) -> Double {
        let q = local(p.latitude, p.longitude, Double(p.altitudeMillimetres) / 1000)
        guard points.count > 1 else { return points.first.map { distance(q, $0) } ?? 0 }
        var best = Double.infinity
        for (a, b) in zip(points, points.dropFirst()) {
            let ab = b - a
            let length2 = (ab * ab).sum()
            let f = length2 > 0 ? min(1, max(0, ((q - a) * ab).sum() / length2)) : 0
            best = min(best, distance(q, a + ab * f))
        }
        return best
    }

    private func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
}

extension PlanComparison {
    /// The comparison of `plan` with the flight's own samples (time order); `until` ends a plan without a final answer.
    static func make(_ plan: PlanRow, samples: [TelemetryRecord], until: Int64) -> PlanComparison? {
        let start = plan.acceptedMs ?? plan.plan.timeMs
        let end = plan.finishedMs ?? until
        let flown = samples.filter { $0.timeMs >= start && $0.timeMs <= end }
        guard let first = flown.first ?? samples.last(where: { $0.timeMs <= start }) else { return nil }
        let from = first.state.position
        let path = [[from.latitude, from.longitude, Double(from.altitudeMillimetres) / 1000]] + plan.plan.waypoints
        let geometry = PlannedPath(path)
        let errors = flown.map { geometry.distance(to: $0.state.position) }
        let flownMetres = zip(flown, flown.dropFirst()).reduce(0) {
            $0 + FlightSummary.metres($1.0.state.position, $1.1.state.position)
        }
        let planned = geometry.length
        return PlanComparison(
            command: plan.plan.command, kind: plan.plan.kind, startMs: start, endMs: plan.finishedMs,
            outcome: plan.outcome, path: path, plannedMetres: planned, flownMetres: flownMetres,
            maxCrossTrackMetres: errors.max() ?? 0,
            rmsCrossTrackMetres: errors.isEmpty
                ? 0 : (errors.reduce(0) { $0 + $1 * $1 } / Double(errors.count)).squareRoot(),
            plannedSeconds: plan.plan.speed.flatMap { $0 > 0 ? planned / $0 : nil },
            actualSeconds: plan.finishedMs.map { Double($0 - start) / 1000 })
    }
}

extension FlightLogStore {
    /// Planned vs flown for every goto and trajectory the log holds for `flight`'s UAV during it.
    public func plans(of flight: FlightRow) throws(FlightLogError) -> [PlanComparison] {
        guard let uav = flight.uavNumber else { return [] }
        let end = flight.endMs ?? flight.lastMs
        let rows = try plans(uav: uav, fromMs: flight.startMs - 1_000, toMs: end)
        let samples = try telemetry(TelemetrySelection(node: flight.node, fromMs: flight.startMs - 1_000, toMs: end))
        return rows.enumerated().compactMap { i, row in
            let next = i + 1 < rows.count ? (rows[i + 1].acceptedMs ?? rows[i + 1].plan.timeMs) : end
            return PlanComparison.make(row, samples: samples, until: min(next, end))
        }
    }
}
