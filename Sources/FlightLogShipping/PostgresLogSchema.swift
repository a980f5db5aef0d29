import FlightLog

/// The flight log's tables on a PostgreSQL server (schema `fleetmesh`), made by the first node that ships there:
/// the local tables' columns, each row keyed by the log it came from and its key in that log, so a row shipped twice
/// is stored once. docs/FLIGHTLOG.md, Shipping, lists them and a few queries across every station and drone.
enum PostgresLogSchema {
    /// Bumped when the tables change; the server's `fleetmesh.schema_version` says which it has.
    static let version = 1

    /// The DDL, idempotent (every node runs it when it connects, under an advisory lock).
    static var statements: [String] {
        var statements = [
            "CREATE SCHEMA IF NOT EXISTS fleetmesh",
            "CREATE TABLE IF NOT EXISTS fleetmesh.schema_version (version INTEGER NOT NULL)",
            """
            INSERT INTO fleetmesh.schema_version (version)
                SELECT \(version) WHERE NOT EXISTS (SELECT 1 FROM fleetmesh.schema_version)
            """,
            """
            CREATE TABLE IF NOT EXISTS fleetmesh.log (
                log TEXT PRIMARY KEY, node TEXT NOT NULL, name TEXT NOT NULL, role TEXT NOT NULL,
                first_shipped TIMESTAMPTZ NOT NULL DEFAULT now())
            """,
        ]
        for table in OutboxTable.all {
            let key = "\(table.key) \(type(of: table.key)) NOT NULL"
            let columns = table.columns.map { "\($0) \(type(of: $0))" }
            statements.append(
                """
                CREATE TABLE IF NOT EXISTS fleetmesh.\(table.name) (
                    log TEXT NOT NULL REFERENCES fleetmesh.log(log), \(key), \(columns.joined(separator: ", ")),
                    PRIMARY KEY (log, \(table.key)))
                """)
        }
        statements += [
            "CREATE INDEX IF NOT EXISTS telemetry_uav_time ON fleetmesh.telemetry (uav, time_ms)",
            "CREATE INDEX IF NOT EXISTS telemetry_time ON fleetmesh.telemetry (time_ms)",
            "CREATE INDEX IF NOT EXISTS event_time ON fleetmesh.event (time_ms)",
            "CREATE INDEX IF NOT EXISTS flight_start ON fleetmesh.flight (start_ms)",
        ]
        return statements
    }

    static func type(of column: String) -> String {
        if OutboxTable.textColumns.contains(column) { return "TEXT" }
        return ["speed", "rate_hz"].contains(column) ? "DOUBLE PRECISION" : "BIGINT"
    }

    /// One statement storing `rows` of `table`: rows already there are left alone, or, for revised tables, replaced
    /// by a newer revision only.
    static func insert(_ table: OutboxTable, rows: Int) -> String {
        let names = ["log", table.key] + table.columns
        var values: [String] = []
        values.reserveCapacity(rows)
        var n = 0
        for _ in 0..<rows {
            let row = names.map { _ in
                n += 1
                return "$\(n)"
            }
            values.append("(\(row.joined(separator: ",")))")
        }
        var sql = """
            INSERT INTO fleetmesh.\(table.name) (\(names.joined(separator: ", "))) VALUES \(values.joined(separator: ","))
                ON CONFLICT (log, \(table.key)) DO
            """
        switch table.cursor {
        case .rowNumber:
            sql += " NOTHING"
        case .revision:
            let updates = table.columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            sql += " UPDATE SET \(updates) WHERE fleetmesh.\(table.name).revision < excluded.revision"
        }
        return sql
    }
}
