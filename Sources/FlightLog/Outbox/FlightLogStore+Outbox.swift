import GRDB

/// One value of a shipped row, as SQLite held it.
public enum OutboxValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null
}

/// A table of the log as it is shipped to a server: its columns in order, after the row's key (`id`, or `command`
/// for plans), and how the outbox finds what the server has not yet seen.
public struct OutboxTable: Sendable, Hashable {
    public enum Cursor: Sendable, Hashable {
        /// Rows are only ever added: the ones after the last shipped row number.
        case rowNumber
        /// Rows change after they are written: the ones revised since the last shipped revision; a row shipped again
        /// replaces its older copy (the last column is its revision).
        case revision
    }

    public let name: String
    /// The key column on the server, beside the log's identity.
    public let key: String
    public let columns: [String]
    public let cursor: Cursor

    /// Every table, in the order a batch ships them (a flight's row before the plans sent to it, say).
    public static let all: [OutboxTable] = [
        OutboxTable(
            name: "run", key: "id",
            columns: [
                "started_ms", "node", "name", "role", "incarnation", "software_version", "config_digest", "map_origin",
                "last_write_ms", "records", "dropped", "revision",
            ], cursor: .revision),
        OutboxTable(
            name: "telemetry", key: "id",
            columns: [
                "time_ms", "node", "uav", "name", "lat_e7", "lon_e7", "alt_mm", "vn_cms", "ve_cms", "vd_cms",
                "heading_cdeg", "battery", "activity", "armed", "link",
            ], cursor: .rowNumber),
        OutboxTable(
            name: "event", key: "id", columns: ["time_ms", "kind", "level", "text", "node", "uav"], cursor: .rowNumber),
        OutboxTable(
            name: "prediction", key: "id", columns: ["time_ms", "node", "uav", "step_ms", "points", "avoiding"],
            cursor: .rowNumber),
        OutboxTable(
            name: "target", key: "id",
            columns: ["time_ms", "uav", "address", "lat_e7", "lon_e7", "alt_mm", "source"], cursor: .rowNumber),
        OutboxTable(
            name: "manual_session", key: "id",
            columns: ["time_ms", "uav", "end_ms", "samples", "rate_hz", "takeover"], cursor: .rowNumber),
        OutboxTable(
            name: "flight", key: "id", columns: ["node", "uav", "name", "start_ms", "end_ms", "last_ms", "revision"],
            cursor: .revision),
        OutboxTable(
            name: "plan", key: "command",
            columns: [
                "time_ms", "uav", "kind", "speed", "waypoints", "accepted_ms", "finished_ms", "outcome", "revision",
            ], cursor: .revision),
    ]

    /// Columns holding text (the rest hold integers, `speed` a real): the server's column types.
    public static let textColumns: Set<String> = [
        "node", "name", "role", "incarnation", "software_version", "config_digest", "map_origin", "activity", "kind",
        "level", "text", "points", "waypoints", "outcome", "command", "address", "source",
    ]
}

/// Rows the server has not yet seen, table by table, and the cursor each reaches once they are stored.
public struct OutboxBatch: Sendable {
    public struct Part: Sendable {
        public let table: OutboxTable
        /// Each row: its key, then `table.columns`' values.
        public var rows: [[OutboxValue]]
        /// The row number or revision of the last row.
        public var mark: Int64
    }

    /// The log's identity: with a row's key, what makes the row unique on the server.
    public let log: String
    public var parts: [Part]

    public var rowCount: Int { parts.reduce(0) { $0 + $1.rows.count } }

    /// The time of the newest telemetry sample in the batch (milliseconds since 1970): the shipping lag's end.
    public var newestTelemetryMs: Int64? {
        guard let part = parts.first(where: { $0.table.name == "telemetry" }), case .integer(let t) = part.rows.last?[1]
        else { return nil }
        return t
    }
}

extension FlightLogStore {
    /// The log's identity (made once, when the log was created).
    public func logIdentity() throws(FlightLogError) -> String {
        try read { db in try String.fetchOne(db, sql: "SELECT id FROM log_identity") ?? "" }
    }

    /// Up to `limit` rows of each table that `target` has not yet stored.
    public func outboxBatch(target: String, limit: Int) throws(FlightLogError) -> OutboxBatch {
        try read { db in
            let log = try String.fetchOne(db, sql: "SELECT id FROM log_identity") ?? ""
            let marks = try Self.marks(target: target, db)
            var parts: [OutboxBatch.Part] = []
            for table in OutboxTable.all {
                let after = marks[table.name] ?? 0
                let order = table.cursor == .rowNumber ? "rowid" : "revision"
                let key = table.key == "id" ? "rowid" : table.key
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(key), \(table.columns.joined(separator: ", ")), \(order) FROM \(table.name)
                        WHERE \(order) > ? ORDER BY \(order) LIMIT ?
                        """, arguments: [after, limit])
                guard let last = rows.last else { continue }
                let width = table.columns.count + 1
                parts.append(
                    OutboxBatch.Part(
                        table: table,
                        rows: rows.map { row in (0..<width).map { Self.outboxValue(row[$0] as DatabaseValue) } },
                        mark: last[width]))
            }
            return OutboxBatch(log: log, parts: parts)
        }
    }

    /// Records that `target` stored `batch`: the next batch starts after it.
    public func markShipped(_ batch: OutboxBatch, target: String) async throws(FlightLogError) {
        do {
            try await pool.write { db in
                for part in batch.parts {
                    try db.execute(
                        sql: """
                            INSERT INTO shipping (target, tbl, mark) VALUES (?, ?, ?)
                                ON CONFLICT (target, tbl) DO UPDATE SET mark = max(mark, excluded.mark)
                            """, arguments: [target, part.table.name, part.mark])
                }
            }
        } catch {
            throw FlightLogError(path: path, problem: Self.describe(error))
        }
    }

    /// Rows `target` has not yet stored (revised rows of runs, flights and plans not counted). Read from the newest
    /// row number, not counted: rows are added at the end and removed (retention) only from the oldest, so the rows
    /// after the mark have every number up to the newest.
    public func outboxBacklog(target: String) throws(FlightLogError) -> Int {
        try read { db in
            let marks = try Self.marks(target: target, db)
            var backlog: Int64 = 0
            for table in OutboxTable.all where table.cursor == .rowNumber {
                let newest = try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM \(table.name)") ?? 0
                backlog += max(0, newest - (marks[table.name] ?? 0))
            }
            return Int(backlog)
        }
    }

    static func marks(target: String, _ db: Database) throws -> [String: Int64] {
        var marks: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT tbl, mark FROM shipping WHERE target = ?", arguments: [target]) {
            marks[row[0]] = row[1]
        }
        return marks
    }

    static func outboxValue(_ value: DatabaseValue) -> OutboxValue {
        switch value.storage {
        case .int64(let v): .integer(v)
        case .double(let v): .real(v)
        case .string(let v): .text(v)
        case .blob(let v): .text(String(decoding: v, as: UTF8.self))
        case .null: .null
        }
    }
}
