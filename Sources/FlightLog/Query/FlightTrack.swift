import Coordinator

/// A flight for review (the dashboard's replay and plots): its figures, its own track, and every other vehicle the
/// log holds over the same time, each thinned to at most a given number of points.
public struct FlightTrack: Codable, Sendable, Hashable {
    public var flight: FlightSummary
    /// The flight's vehicle first, then the others by UAV number.
    public var vehicles: [Vehicle]
    /// Planned vs flown for each goto and trajectory of the flight.
    public var plans: [PlanComparison]

    public struct Vehicle: Codable, Sendable, Hashable {
        public var node: String
        public var uavNumber: Int?
        public var name: String
        /// Whether this is the flight's own vehicle.
        public var own: Bool
        public var points: [Point]
        /// Its predicted trajectories over the flight (at most one a second), for the replay.
        public var predictions: [Prediction]
    }

    /// A predicted trajectory: when it was had, and its points (latitude, longitude, metres above home).
    public struct Prediction: Codable, Sendable, Hashable {
        public var timeMs: Int64
        public var points: [[Double]]
        public var avoiding: Bool
    }

    /// One sample: time (ms since 1970), position (degrees, metres above home), ground speed (m/s), battery (%),
    /// activity; on the own track, the distance to the nearest other airborne vehicle then (metres; absent when none
    /// was within 0.5 s).
    public struct Point: Codable, Sendable, Hashable {
        public var timeMs: Int64
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double
        public var speed: Double
        public var battery: Int
        public var activity: String
        public var nearest: Double?
        /// Own track only, while a goto or trajectory runs: metres from its commanded path.
        public var crossTrack: Double?
    }

    /// Every `k`-th sample (and the last) so that at most `limit` remain.
    static func thin(_ samples: [TelemetryRecord], to limit: Int) -> [TelemetryRecord] {
        guard samples.count > limit, limit > 1 else { return samples }
        let step = (samples.count + limit - 2) / (limit - 1)
        var out = stride(from: 0, to: samples.count, by: step).map { samples[$0] }
        if out.last != samples.last { out.append(samples.last!) }
        return out
    }

    static func point(_ r: TelemetryRecord, nearest: Double?) -> Point {
        let s = r.state
        let vn = Double(s.velocityNorthCmS) / 100
        let ve = Double(s.velocityEastCmS) / 100
        return Point(
            timeMs: r.timeMs, latitude: s.position.latitude, longitude: s.position.longitude,
            altitude: Double(s.position.altitudeMillimetres) / 1000, speed: (vn * vn + ve * ve).squareRoot(),
            battery: Int(s.batteryPercent), activity: s.activity.rawValue, nearest: nearest, crossTrack: nil)
    }
}

extension FlightLogStore {
    /// The flight `id` for review, each vehicle's track thinned to at most `maxPoints` (2–20,000); nil when the log
    /// has no such flight.
    public func track(of id: Int64, maxPoints: Int = 2_000) throws(FlightLogError) -> FlightTrack? {
        guard let row = try flight(id) else { return nil }
        let limit = min(max(maxPoints, 2), 20_000)
        let summary = try summary(of: row)
        let end = row.endMs ?? row.lastMs
        let window = FlightSummary.pairingWindowMs
        let all = try telemetry(TelemetrySelection(fromMs: row.startMs - window, toMs: end + window))
        let own = all.filter { $0.node == row.node && $0.timeMs >= row.startMs && $0.timeMs <= end }
        let othersByNode = Dictionary(grouping: all.filter { $0.node != row.node }, by: \.node)
        let airborneOthers = othersByNode.values.map { $0.filter(\.isAirborne) }
        var ownPoints = FlightTrack.thin(own, to: limit).map { s -> FlightTrack.Point in
            var nearest: Double?
            for track in airborneOthers {
                guard let o = FlightSummary.position(in: track, at: s.timeMs) else { continue }
                let d = FlightSummary.metres(s.state.position, o.position)
                nearest = min(nearest ?? d, d)
            }
            return FlightTrack.point(s, nearest: nearest)
        }
        let plans = try plans(of: row)
        let geometries = plans.map { (plan: $0, path: PlannedPath($0.path)) }
        for i in ownPoints.indices {
            let t = ownPoints[i].timeMs
            guard let active = geometries.last(where: { $0.plan.startMs <= t && t <= ($0.plan.endMs ?? end) }) else {
                continue
            }
            let p = ownPoints[i]
            ownPoints[i].crossTrack = active.path.distance(
                to: Coordinator.GeoPoint(latitude: p.latitude, longitude: p.longitude, altitude: p.altitude))
        }
        let predictions = Dictionary(
            grouping: try self.predictions(fromMs: row.startMs - window, toMs: end + window).map { p in
                (p.node, FlightTrack.Prediction(timeMs: p.timeMs, points: p.points, avoiding: p.avoiding))
            }, by: \.0
        ).mapValues { $0.map(\.1) }
        var vehicles = [
            FlightTrack.Vehicle(
                node: row.node, uavNumber: row.uavNumber, name: row.name, own: true, points: ownPoints,
                predictions: predictions[row.node] ?? [])
        ]
        for (node, samples) in othersByNode {
            let last = samples.last!
            vehicles.append(
                FlightTrack.Vehicle(
                    node: node, uavNumber: samples.last(where: { $0.uavNumber != nil })?.uavNumber, name: last.name,
                    own: false,
                    points: FlightTrack.thin(samples, to: limit).map { FlightTrack.point($0, nearest: nil) },
                    predictions: predictions[node] ?? []))
        }
        vehicles[1...].sort { ($0.uavNumber ?? 999, $0.name) < ($1.uavNumber ?? 999, $1.name) }
        return FlightTrack(flight: summary, vehicles: vehicles, plans: plans)
    }
}
