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
        return migrator
    }

    /// The newest version this build knows.
    static let currentVersion = "v3"
}
