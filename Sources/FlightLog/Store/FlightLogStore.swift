import Coordinator
import Flight
import Foundation
import GRDB
import Synchronization

/// A node's flight log: one SQLite file in WAL mode (readers never wait for the writer; a committed batch survives
/// the process being killed), written in batches by the node's recorder and read by `fleetmesh log`.
public final class FlightLogStore: Sendable {
    public let path: String
    let pool: DatabasePool
    /// The flights still open, by node (this store is the log's one writer): read from the file at the first batch.
    let openFlights = Mutex<[String: OpenFlight]?>(nil)

    /// A vehicle unheard for longer than this ends its flight at its last sample (a restart, a lost link).
    public static let flightGapMs: Int64 = 60_000

    /// Opens the log at `path`, creating it (and its directory's file) if needed and migrating an older one.
    /// `mustExist`: a reader's open, which fails with a clear message instead of creating an empty log.
    public init(path: String, mustExist: Bool = false) throws(FlightLogError) {
        self.path = path
        if mustExist, !FileManager.default.fileExists(atPath: path) {
            throw FlightLogError(
                path: path, problem: "no such file (is [log] flight_log on, and has the node run with it?)")
        }
        var configuration = Configuration()
        configuration.label = "flight-log"
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // In WAL mode NORMAL keeps every committed transaction through a crash of the process; only a power loss
            // can take the last ones.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try pool.writeWithoutTransaction { db in
                // Space freed by retention goes back to the file system (settable only before the first table).
                if try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") == 0 {
                    try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                }
            }
            try FlightLogSchema.migrator.migrate(pool)
            self.pool = pool
        } catch {
            throw FlightLogError(path: path, problem: Self.describe(error))
        }
    }

    /// SQLite's own words for what went wrong ("file is not a database", "disk I/O error", "database or disk is full").
    static func describe(_ error: any Error) -> String {
        if let e = error as? DatabaseError { return "\(e.message ?? "\(e.resultCode)") (SQLite \(e.resultCode))" }
        return "\(error)"
    }

    // MARK: - Writing

    /// Records the start of a run (the node's metadata); returns its number.
    public func beginRun(_ run: RunRecord) throws(FlightLogError) -> Int64 {
        do {
            return try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO run (started_ms, node, name, role, incarnation, software_version, config_digest,
                            map_origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        run.startedMs, run.node, run.name, run.role, run.incarnation, run.softwareVersion,
                        run.configDigest, run.mapOrigin,
                    ])
                return db.lastInsertedRowID
            }
        } catch {
            throw FlightLogError(path: path, problem: Self.describe(error))
        }
    }

    /// Writes a batch in one transaction (telemetry, events, the flights they open and close) and the run's counts:
    /// records written so far and records the node dropped before they reached the log.
    public func append(_ records: [FlightRecord], run: Int64, dropped: Int, nowMs: Int64) async throws(FlightLogError) {
        let cached = openFlights.withLock { $0 }
        do {
            let open = try await pool.write { db in
                let telemetry = try db.cachedStatement(
                    sql: """
                        INSERT INTO telemetry (time_ms, node, uav, name, lat_e7, lon_e7, alt_mm, vn_cms, ve_cms, vd_cms,
                            heading_cdeg, battery, activity, armed, link) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                let event = try db.cachedStatement(
                    sql: "INSERT INTO event (time_ms, kind, level, text, node, uav) VALUES (?, ?, ?, ?, ?, ?)")
                var samples: [TelemetryRecord] = []
                for record in records {
                    switch record {
                    case .telemetry(let t):
                        let s = t.state
                        try telemetry.execute(arguments: [
                            t.timeMs, t.node, t.uavNumber, t.name, s.position.latitudeE7, s.position.longitudeE7,
                            s.position.altitudeMillimetres, s.velocityNorthCmS, s.velocityEastCmS, s.velocityDownCmS,
                            s.headingCentidegrees, s.batteryPercent, s.activity.rawValue, s.armed, s.linkQuality,
                        ])
                        samples.append(t)
                    case .event(let e):
                        try event.execute(arguments: [e.timeMs, e.kind, e.level, e.text, e.node, e.uavNumber])
                    case .plan(let p):
                        let waypoints = (try? JSONEncoder().encode(p.waypoints)).map {
                            String(decoding: $0, as: UTF8.self)
                        }
                        try db.execute(
                            sql: """
                                INSERT OR REPLACE INTO plan (command, time_ms, uav, kind, speed, waypoints)
                                    VALUES (?, ?, ?, ?, ?, ?)
                                """,
                            arguments: [p.command, p.timeMs, p.uavNumber, p.kind, p.speed, waypoints ?? "[]"])
                    case .prediction(let p):
                        let points = (try? JSONEncoder().encode(p.points)).map { String(decoding: $0, as: UTF8.self) }
                        try db.cachedStatement(
                            sql:
                                "INSERT INTO prediction (time_ms, node, uav, step_ms, points, avoiding) VALUES (?, ?, ?, ?, ?, ?)"
                        ).execute(arguments: [p.timeMs, p.node, p.uavNumber, p.stepMs, points ?? "[]", p.avoiding])
                    case .target(let t):
                        try db.cachedStatement(
                            sql: """
                                INSERT INTO target (time_ms, uav, address, lat_e7, lon_e7, alt_mm, source)
                                    VALUES (?, ?, ?, ?, ?, ?, ?)
                                """
                        ).execute(arguments: [
                            t.timeMs, t.uavNumber, t.address, Int64((t.latitude * 1e7).rounded()),
                            Int64((t.longitude * 1e7).rounded()), Int64((t.altitude * 1000).rounded()), t.source,
                        ])
                    case .manualSession(let m):
                        try db.execute(
                            sql: """
                                INSERT INTO manual_session (time_ms, uav, end_ms, samples, rate_hz, takeover)
                                    VALUES (?, ?, ?, ?, ?, ?)
                                """, arguments: [m.startMs, m.uavNumber, m.endMs, m.samples, m.rateHz, m.takeover])
                    case .planAnswer(let command, let outcome, let timeMs):
                        if outcome == "accepted" {
                            try db.execute(
                                sql: "UPDATE plan SET accepted_ms = ? WHERE command = ? AND accepted_ms IS NULL",
                                arguments: [timeMs, command])
                        } else {
                            try db.execute(
                                sql:
                                    "UPDATE plan SET finished_ms = ?, outcome = ? WHERE command = ? AND finished_ms IS NULL",
                                arguments: [timeMs, outcome, command])
                        }
                    }
                }
                let open = try Self.trackFlights(samples, open: cached, in: db)
                try db.cachedStatement(
                    sql: "UPDATE run SET last_write_ms = ?, records = records + ?, dropped = ? WHERE id = ?"
                ).execute(arguments: [nowMs, records.count, dropped, run])
                return open
            }
            openFlights.withLock { $0 = open }
        } catch {
            // What the failed transaction would have changed is read again from the file next time.
            openFlights.withLock { $0 = nil }
            throw FlightLogError(path: path, problem: Self.describe(error))
        }
    }

    // MARK: - Retention

    /// What a retention pass removed, and the log's size after it.
    public struct Pruned: Sendable, Hashable {
        public var telemetry: Int
        public var events: Int
        public var bytes: Int64
    }

    /// Removes records older than `keepAfterMs`, then the oldest hours while the log holds more than `maxBytes`
    /// (the newest hour always stays), and gives the freed pages back to the file system.
    public func prune(keepAfterMs: Int64, maxBytes: Int64) async throws(FlightLogError) -> Pruned {
        do {
            return try await pool.writeWithoutTransaction { db in
                var pruned = Pruned(telemetry: 0, events: 0, bytes: 0)
                func delete(before t: Int64) throws {
                    try db.inTransaction {
                        // The newest row of a table always stays: its row number is the shipping outbox's
                        // cursor, and SQLite would hand an emptied table's numbers out again.
                        for table in ["telemetry", "event", "prediction", "target", "manual_session"] {
                            try db.execute(
                                sql: """
                                    DELETE FROM \(table) WHERE time_ms < ?
                                        AND rowid < (SELECT max(rowid) FROM \(table))
                                    """, arguments: [t])
                            if table == "telemetry" { pruned.telemetry += db.changesCount }
                            if table == "event" { pruned.events += db.changesCount }
                        }
                        try db.execute(
                            sql: "DELETE FROM flight WHERE end_ms IS NOT NULL AND end_ms < ?", arguments: [t])
                        return .commit
                    }
                }
                try delete(before: keepAfterMs)
                while try Self.usedBytes(db) > maxBytes {
                    guard let oldest = try Int64.fetchOne(db, sql: "SELECT min(time_ms) FROM telemetry"),
                        let newest = try Int64.fetchOne(db, sql: "SELECT max(time_ms) FROM telemetry"),
                        newest - oldest > 3_600_000
                    else { break }
                    try delete(before: oldest + 3_600_000)
                }
                try db.execute(sql: "PRAGMA incremental_vacuum")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                pruned.bytes = try Self.usedBytes(db)
                return pruned
            }
        } catch {
            throw FlightLogError(path: path, problem: Self.describe(error))
        }
    }

    /// Bytes the log's pages hold (free pages not counted).
    static func usedBytes(_ db: Database) throws -> Int64 {
        let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
        let size = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        return (pages - free) * size
    }

    /// The log's size on disk, with its write-ahead file.
    public var fileBytes: Int64 {
        [path, path + "-wal"].reduce(Int64(0)) { sum, p in
            let size = (try? FileManager.default.attributesOfItem(atPath: p)[.size] as? NSNumber)?.int64Value ?? 0
            return sum + size
        }
    }
}
