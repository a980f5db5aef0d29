import Coordinator
import Foundation
import GRDB

/// One flight in figures (`fleetmesh log flights`).
public struct FlightSummary: Codable, Sendable, Hashable {
    public var flight: Int64
    public var uavNumber: Int?
    public var node: String
    public var name: String
    public var startMs: Int64
    /// Nil while the flight goes on (or the log ends before the landing).
    public var endMs: Int64?
    public var durationSeconds: Double
    /// Along the recorded track, 3-D.
    public var distanceMetres: Double
    /// Above home.
    public var maxAltitudeMetres: Double
    /// The closest any other airborne drone came (samples at most 0.5 s apart), and which.
    public var closestApproachMetres: Double?
    public var closestApproachUAV: Int?
    /// Battery at takeoff minus the lowest during the flight, percentage points.
    public var batteryUsedPercent: Int
    /// Command events about this UAV during the flight.
    public var commands: Int
    public var samples: Int
}

extension FlightSummary {
    /// Samples of two vehicles further apart in time than this are not compared.
    public static let pairingWindowMs: Int64 = 500

    /// The figures of `flight` from its own samples (time order), the other vehicles' samples over the same time
    /// (any order) and the events over it.
    /// `recorder`: the node that wrote the log; its own events name no node (they are about itself).
    public static func make(
        _ flight: FlightRow, samples: [TelemetryRecord], others: [TelemetryRecord], events: [EventRecord],
        recorder: String? = nil
    ) -> FlightSummary {
        var distance = 0.0
        var maxAltitude = 0.0
        for (i, s) in samples.enumerated() {
            maxAltitude = max(maxAltitude, Double(s.state.position.altitudeMillimetres) / 1000)
            if i > 0 { distance += Self.metres(samples[i - 1].state.position, s.state.position) }
        }
        let battery = samples.first.map { first in
            Int(first.state.batteryPercent)
                - Int(samples.map(\.state.batteryPercent).min() ?? first.state.batteryPercent)
        }
        var closest: (metres: Double, uav: Int?)?
        let byNode = Dictionary(grouping: others.filter { $0.node != flight.node && $0.isAirborne }, by: \.node)
            .mapValues { $0.sorted { $0.timeMs < $1.timeMs } }
        for s in samples where s.isAirborne {
            for track in byNode.values {
                guard let o = position(in: track, at: s.timeMs) else { continue }
                let d = metres(s.state.position, o.position)
                if closest == nil || d < closest!.metres { closest = (d, o.uavNumber) }
            }
        }
        let end = flight.endMs ?? flight.lastMs
        let commands = events.filter {
            $0.kind == "command" && $0.timeMs >= flight.startMs && $0.timeMs <= end
                && ($0.node == flight.node || ($0.uavNumber != nil && $0.uavNumber == flight.uavNumber)
                    || ($0.node == nil && $0.uavNumber == nil && recorder == flight.node))
        }.count
        return FlightSummary(
            flight: flight.id, uavNumber: flight.uavNumber, node: flight.node, name: flight.name,
            startMs: flight.startMs, endMs: flight.endMs, durationSeconds: Double(end - flight.startMs) / 1000,
            distanceMetres: distance, maxAltitudeMetres: maxAltitude, closestApproachMetres: closest?.metres,
            closestApproachUAV: closest?.uav, batteryUsedPercent: battery ?? 0, commands: commands,
            samples: samples.count)
    }

    /// Where a vehicle was at `t`: between two samples at most a second apart, interpolated; else its nearest sample if
    /// within `pairingWindowMs`; else nil (a track in time order).
    static func position(in track: [TelemetryRecord], at t: Int64) -> (position: Coordinator.GeoPoint, uavNumber: Int?)?
    {
        guard let n = nearest(in: track, to: t) else { return nil }
        guard let i = lastIndex(in: track, atOrBefore: t), i + 1 < track.count else {
            return abs(n.timeMs - t) <= pairingWindowMs ? (n.state.position, n.uavNumber) : nil
        }
        let (a, b) = (track[i], track[i + 1])
        guard b.timeMs - a.timeMs <= 1_000, b.timeMs > a.timeMs else {
            return abs(n.timeMs - t) <= pairingWindowMs ? (n.state.position, n.uavNumber) : nil
        }
        let f = Double(t - a.timeMs) / Double(b.timeMs - a.timeMs)
        func mix(_ x: Int32, _ y: Int32) -> Int32 { Int32((Double(x) + (Double(y) - Double(x)) * f).rounded()) }
        let p = Coordinator.GeoPoint(
            latitudeE7: mix(a.state.position.latitudeE7, b.state.position.latitudeE7),
            longitudeE7: mix(a.state.position.longitudeE7, b.state.position.longitudeE7),
            altitudeMillimetres: mix(a.state.position.altitudeMillimetres, b.state.position.altitudeMillimetres))
        return (p, a.uavNumber ?? b.uavNumber)
    }

    /// The index of the last sample at or before `t` (binary search of a track in time order).
    static func lastIndex(in track: [TelemetryRecord], atOrBefore t: Int64) -> Int? {
        var low = 0
        var high = track.count
        while low < high {
            let mid = (low + high) / 2
            if track[mid].timeMs <= t { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }

    /// The sample nearest in time (a track in time order).
    static func nearest(in track: [TelemetryRecord], to t: Int64) -> TelemetryRecord? {
        guard !track.isEmpty else { return nil }
        guard let i = lastIndex(in: track, atOrBefore: t) else { return track[0] }
        guard i + 1 < track.count else { return track[i] }
        return t - track[i].timeMs <= track[i + 1].timeMs - t ? track[i] : track[i + 1]
    }

    /// The 3-D distance between two nearby points (local tangent plane on the sphere; under 0.1 % off within a few
    /// kilometres, which is what a flight's steps and separations are).
    public static func metres(_ a: Coordinator.GeoPoint, _ b: Coordinator.GeoPoint) -> Double {
        let radius = 6_371_008.8
        let lat = (a.latitude + b.latitude) / 2 * .pi / 180
        let north = (b.latitude - a.latitude) * .pi / 180 * radius
        let east = (b.longitude - a.longitude) * .pi / 180 * radius * cos(lat)
        let up = Double(b.altitudeMillimetres - a.altitudeMillimetres) / 1000
        return (north * north + east * east + up * up).squareRoot()
    }
}

extension FlightLogStore {
    /// Every flight's figures, oldest first: the telemetry over all of them is read once.
    public func flightSummaries() throws(FlightLogError) -> [FlightSummary] {
        let flights = try flights()
        guard let from = flights.map(\.startMs).min(), let to = flights.map({ $0.endMs ?? $0.lastMs }).max() else {
            return []
        }
        let window = FlightSummary.pairingWindowMs
        let all = try telemetry(TelemetrySelection(fromMs: from - window, toMs: to + window))
        let byNode = Dictionary(grouping: all, by: \.node)
        let events = try events(fromMs: from, toMs: to)
        let recorder = try read { db in try String.fetchOne(db, sql: "SELECT node FROM run ORDER BY id DESC LIMIT 1") }
        /// The samples of a track (time order) within [a, b].
        func slice(_ track: [TelemetryRecord], _ a: Int64, _ b: Int64) -> ArraySlice<TelemetryRecord> {
            let lower = (FlightSummary.lastIndex(in: track, atOrBefore: a - 1) ?? -1) + 1
            let upper = (FlightSummary.lastIndex(in: track, atOrBefore: b) ?? -1) + 1
            return track[lower..<max(lower, upper)]
        }
        return flights.map { f in
            let end = f.endMs ?? f.lastMs
            let own = Array(slice(byNode[f.node] ?? [], f.startMs, end))
            let others = byNode.filter { $0.key != f.node }.flatMap {
                slice($0.value, f.startMs - window, end + window)
            }
            let during = events.filter { $0.timeMs >= f.startMs && $0.timeMs <= end }
            return FlightSummary.make(f, samples: own, others: others, events: during, recorder: recorder)
        }
    }

    /// One flight's figures.
    public func summary(of flight: FlightRow) throws(FlightLogError) -> FlightSummary {
        let end = flight.endMs ?? flight.lastMs
        let samples = try telemetry(TelemetrySelection(node: flight.node, fromMs: flight.startMs, toMs: end))
        let others = try telemetry(
            TelemetrySelection(
                fromMs: flight.startMs - FlightSummary.pairingWindowMs, toMs: end + FlightSummary.pairingWindowMs))
        let events = try events(fromMs: flight.startMs, toMs: end)
        let recorder = try read { db in try String.fetchOne(db, sql: "SELECT node FROM run ORDER BY id DESC LIMIT 1") }
        return FlightSummary.make(flight, samples: samples, others: others, events: events, recorder: recorder)
    }
}
