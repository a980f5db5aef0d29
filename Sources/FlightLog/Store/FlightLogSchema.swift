import GRDB

/// The flight log's tables, migrated by version: a log written by an older FleetMesh is brought up to date when a
/// newer one opens it (docs/FLIGHTLOG.md lists every table and column).
enum FlightLogSchema {
    /// Every version in order; GRDB records the applied ones in `grdb_migrations`.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE run (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        started_ms INTEGER NOT NULL,
                        node TEXT NOT NULL,
                        name TEXT NOT NULL,
                        role TEXT NOT NULL,
                        incarnation TEXT NOT NULL,
                        software_version TEXT NOT NULL,
                        config_digest TEXT NOT NULL,
                        map_origin TEXT,
                        last_write_ms INTEGER,
                        records INTEGER NOT NULL DEFAULT 0,
                        dropped INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE telemetry (
                        time_ms INTEGER NOT NULL,
                        node TEXT NOT NULL,
                        uav INTEGER,
                        name TEXT NOT NULL,
                        lat_e7 INTEGER NOT NULL,
                        lon_e7 INTEGER NOT NULL,
                        alt_mm INTEGER NOT NULL,
                        vn_cms INTEGER NOT NULL,
                        ve_cms INTEGER NOT NULL,
                        vd_cms INTEGER NOT NULL,
                        heading_cdeg INTEGER NOT NULL,
                        battery INTEGER NOT NULL,
                        activity TEXT NOT NULL,
                        armed INTEGER NOT NULL,
                        link INTEGER NOT NULL);
                    CREATE INDEX telemetry_node_time ON telemetry(node, time_ms);
                    CREATE INDEX telemetry_uav_time ON telemetry(uav, time_ms);
                    CREATE INDEX telemetry_time ON telemetry(time_ms);
                    CREATE TABLE event (
                        time_ms INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        level TEXT NOT NULL,
                        text TEXT NOT NULL,
                        node TEXT,
                        uav INTEGER);
                    CREATE INDEX event_time ON event(time_ms);
                    CREATE TABLE flight (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        node TEXT NOT NULL,
                        uav INTEGER,
                        name TEXT NOT NULL,
                        start_ms INTEGER NOT NULL,
                        end_ms INTEGER,
                        last_ms INTEGER NOT NULL);
                    CREATE INDEX flight_node_end ON flight(node, end_ms);
                    """)
        }
        // v2: the paths goto and trajectory commands asked for, with their answers (planned vs flown).
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE plan (
                        command TEXT PRIMARY KEY,
                        time_ms INTEGER NOT NULL,
                        uav INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        speed REAL,
                        waypoints TEXT NOT NULL,
                        accepted_ms INTEGER,
                        finished_ms INTEGER,
                        outcome TEXT);
                    CREATE INDEX plan_uav_time ON plan(uav, time_ms);
                    """)
        }
        // v3: predicted trajectories (decimated), for the replay.
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE prediction (
                        time_ms INTEGER NOT NULL,
                        node TEXT NOT NULL,
                        uav INTEGER,
                        step_ms INTEGER NOT NULL,
                        points TEXT NOT NULL,
                        avoiding INTEGER NOT NULL);
                    CREATE INDEX prediction_node_time ON prediction(node, time_ms);
                    CREATE INDEX prediction_time ON prediction(time_ms);
                    """)
        }
        // v4: the outbox for shipping to PostgreSQL (docs/FLIGHTLOG.md, Shipping). The log's own identity keys its rows
        // on the server; rows that change after they are written (runs, flights, plans) carry a revision from one
        // counter, so a changed row is shipped again and replaces its older copy; `shipping` holds how far each
        // server has been sent.
        migrator.registerMigration("v4") { db in
            var sql = """
                CREATE TABLE log_identity (id TEXT NOT NULL);
                INSERT INTO log_identity (id) VALUES (lower(hex(randomblob(16))));
                CREATE TABLE log_revision (value INTEGER NOT NULL);
                INSERT INTO log_revision (value) VALUES (0);
                CREATE TABLE shipping (
                    target TEXT NOT NULL,
                    tbl TEXT NOT NULL,
                    mark INTEGER NOT NULL,
                    PRIMARY KEY (target, tbl));
                """
            for (table, key, columns) in [
                ("run", "id", "last_write_ms, records, dropped, map_origin"),
                ("flight", "id", "uav, end_ms, last_ms"),
                ("plan", "rowid", "accepted_ms, finished_ms, outcome"),
            ] {
                let revise = """
                    UPDATE log_revision SET value = value + 1;
                    UPDATE \(table) SET revision = (SELECT value FROM log_revision) WHERE \(key) = NEW.\(key);
                    """
                sql += """
                    ALTER TABLE \(table) ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    UPDATE \(table) SET revision = (SELECT value FROM log_revision) + rowid;
                    UPDATE log_revision SET value = value + (SELECT coalesce(max(rowid), 0) FROM \(table));
                    CREATE INDEX \(table)_revision ON \(table)(revision);
                    CREATE TRIGGER \(table)_revise_insert AFTER INSERT ON \(table) BEGIN \(revise) END;
                    CREATE TRIGGER \(table)_revise_update AFTER UPDATE OF \(columns) ON \(table) BEGIN \(revise) END;

                    """
            }
            try db.execute(sql: sql)
        }
        // v5: targets sent and manual-control sessions held.
        migrator.registerMigration("v5") { db in
            try db.execute(
                sql: """
                    CREATE TABLE target (
                        time_ms INTEGER NOT NULL,
                        uav INTEGER,
                        address TEXT NOT NULL,
                        lat_e7 INTEGER NOT NULL,
                        lon_e7 INTEGER NOT NULL,
                        alt_mm INTEGER NOT NULL,
                        source TEXT NOT NULL);
                    CREATE INDEX target_time ON target(time_ms);
                    CREATE TABLE manual_session (
                        time_ms INTEGER NOT NULL,
                        uav INTEGER NOT NULL,
                        end_ms INTEGER NOT NULL,
                        samples INTEGER NOT NULL,
                        rate_hz REAL NOT NULL,
                        takeover INTEGER NOT NULL);
                    CREATE INDEX manual_session_time ON manual_session(time_ms);
                    """)
        }
        return migrator
    }

    /// The newest version this build knows.
    static let currentVersion = "v5"
}
