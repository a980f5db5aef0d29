import Coordinator
import Flight
import Foundation
import GRDB

/// A flight as the log holds it: one vehicle from leaving the ground to landing.
public struct FlightRow: Sendable, Hashable {
    public var id: Int64
    public var node: String
    public var uavNumber: Int?
    public var name: String
    public var startMs: Int64
    /// Nil while the vehicle is still airborne (or the log ends before it landed).
    public var endMs: Int64?
    /// Its last sample so far.
    public var lastMs: Int64
}

/// A commanded path and what became of it.
public struct PlanRow: Sendable, Hashable {
    public var plan: PlanRecord
    public var acceptedMs: Int64?
    public var finishedMs: Int64?
    /// `completed`, `failed`, `rejected`; nil while it runs (or its answer was never recorded).
    public var outcome: String?
}

/// Which telemetry to read.
public struct TelemetrySelection: Sendable, Hashable {
    /// One node's, or every node's with this UAV number, or all.
    public var node: String?
    public var uavNumber: Int?
    /// Milliseconds since 1970, inclusive; nil: open-ended.
    public var fromMs: Int64?
    public var toMs: Int64?

    public init(node: String? = nil, uavNumber: Int? = nil, fromMs: Int64? = nil, toMs: Int64? = nil) {
        self.node = node
        self.uavNumber = uavNumber
        self.fromMs = fromMs
        self.toMs = toMs
    }
}

extension FlightLogStore {
    /// Every flight, oldest first.
    public func flights() throws(FlightLogError) -> [FlightRow] {
        try read { db in
            // An open flight's row is not rewritten at every batch: its last sample is read from the telemetry.
            try Row.fetchAll(
                db,
                sql: """
                    SELECT f.id, f.node, f.uav, f.name, f.start_ms, f.end_ms,
                        CASE WHEN f.end_ms IS NULL THEN coalesce(
                            (SELECT max(t.time_ms) FROM telemetry t WHERE t.node = f.node AND t.time_ms >= f.start_ms),
                            f.last_ms) ELSE f.last_ms END AS last
                    FROM flight f ORDER BY f.start_ms, f.id
                    """
            ).map {
                FlightRow(
                    id: $0["id"], node: $0["node"], uavNumber: $0["uav"], name: $0["name"], startMs: $0["start_ms"],
                    endMs: $0["end_ms"], lastMs: $0["last"])
            }
        }
    }

    /// One flight by its number.
    public func flight(_ id: Int64) throws(FlightLogError) -> FlightRow? {
        try flights().first { $0.id == id }
    }

    /// Telemetry in time order.
    public func telemetry(_ selection: TelemetrySelection) throws(FlightLogError) -> [TelemetryRecord] {
        var clauses: [String] = []
        var arguments: StatementArguments = []
        if let node = selection.node {
            clauses.append("node = ?")
            arguments += [node]
        }
        if let uav = selection.uavNumber {
            clauses.append("uav = ?")
            arguments += [uav]
        }
        if let from = selection.fromMs {
            clauses.append("time_ms >= ?")
            arguments += [from]
        }
        if let to = selection.toMs {
            clauses.append("time_ms <= ?")
            arguments += [to]
        }
        let filter = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        let sql = "SELECT \(Self.telemetryColumns) FROM telemetry \(filter) ORDER BY time_ms, rowid"
        return try read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.telemetryRecord)
        }
    }

    /// The columns `telemetryRecord` reads, in its order (by index: faster than by name for every row).
    static let telemetryColumns =
        "time_ms, node, uav, name, lat_e7, lon_e7, alt_mm, vn_cms, ve_cms, vd_cms, heading_cdeg, battery, activity, armed, link"

    static func telemetryRecord(_ row: Row) -> TelemetryRecord {
        let activity: String = row[12]
        let state = Coordinator.VehicleState(
            position: Coordinator.GeoPoint(latitudeE7: row[4], longitudeE7: row[5], altitudeMillimetres: row[6]),
            velocityNorthCmS: row[7], velocityEastCmS: row[8], velocityDownCmS: row[9], headingCentidegrees: row[10],
            batteryPercent: row[11], activity: Activity(rawValue: activity) ?? .hovering, armed: row[13],
            linkQuality: row[14])
        return TelemetryRecord(timeMs: row[0], node: row[1], uavNumber: row[2], name: row[3], state: state)
    }

    /// Events between two times (inclusive), oldest first.
    public func events(fromMs: Int64 = .min, toMs: Int64 = .max) throws(FlightLogError) -> [EventRecord] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM event WHERE time_ms BETWEEN ? AND ? ORDER BY time_ms, rowid",
                arguments: [fromMs, toMs]
            ).map {
                EventRecord(
                    timeMs: $0["time_ms"], kind: $0["kind"], level: $0["level"], text: $0["text"], node: $0["node"],
                    uavNumber: $0["uav"])
            }
        }
    }

    /// The paths commanded to `uav` between two times (sent within them), oldest first.
    public func plans(uav: Int, fromMs: Int64, toMs: Int64) throws(FlightLogError) -> [PlanRow] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM plan WHERE uav = ? AND time_ms BETWEEN ? AND ? ORDER BY time_ms",
                arguments: [uav, fromMs, toMs]
            ).map { row in
                let text: String = row["waypoints"]
                let waypoints = (try? JSONDecoder().decode([[Double]].self, from: Data(text.utf8))) ?? []
                return PlanRow(
                    plan: PlanRecord(
                        command: row["command"], timeMs: row["time_ms"], uavNumber: row["uav"], kind: row["kind"],
                        speed: row["speed"], waypoints: waypoints),
                    acceptedMs: row["accepted_ms"], finishedMs: row["finished_ms"], outcome: row["outcome"])
            }
        }
    }

    /// Predicted trajectories between two times, oldest first (all drones, or one node's).
    public func predictions(node: String? = nil, fromMs: Int64, toMs: Int64) throws(FlightLogError)
        -> [PredictionRecord]
    {
        try read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT time_ms, node, uav, step_ms, points, avoiding FROM prediction WHERE time_ms BETWEEN ? AND ?"
                    + (node == nil ? "" : " AND node = ?") + " ORDER BY time_ms",
                arguments: node == nil ? [fromMs, toMs] : [fromMs, toMs, node]
            ).map { row in
                let text: String = row[4]
                return PredictionRecord(
                    timeMs: row[0], node: row[1], uavNumber: row[2], stepMs: row[3],
                    points: (try? JSONDecoder().decode([[Double]].self, from: Data(text.utf8))) ?? [], avoiding: row[5])
            }
        }
    }

    /// The recording node's starts, oldest first, with how many records each wrote and dropped.
    public func runs() throws(FlightLogError) -> [(run: RunRecord, records: Int, dropped: Int, lastWriteMs: Int64?)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM run ORDER BY id").map {
                (
                    RunRecord(
                        startedMs: $0["started_ms"], node: $0["node"], name: $0["name"], role: $0["role"],
                        incarnation: $0["incarnation"], softwareVersion: $0["software_version"],
                        configDigest: $0["config_digest"], mapOrigin: $0["map_origin"]),
                    $0["records"], $0["dropped"], $0["last_write_ms"]
                )
            }
        }
    }

    /// SQLite's own check of the file (`PRAGMA integrity_check`): "ok", or what is wrong.
    public func integrityCheck() throws(FlightLogError) -> String {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }

    /// The schema versions applied to this log.
    public func schemaVersions() throws(FlightLogError) -> [String] {
        try read { db in try FlightLogSchema.migrator.appliedMigrations(db) }
    }

    func read<T>(_ body: (Database) throws -> T) throws(FlightLogError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw FlightLogError(path: path, problem: Self.describe(error))
        }
    }
}
