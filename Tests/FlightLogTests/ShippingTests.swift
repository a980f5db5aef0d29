import FlightLog
import FlightLogShipping
import Foundation
import GRDB
import LabKit
import Logging
import Testing

/// Shipping a log to a real PostgreSQL server that the test starts (Debian's postgresql, initdb in a temporary
/// directory, a Unix socket only): every row arrives exactly once, through outages of the server and batches sent
/// twice; rows revised after shipping replace their copy.
@Suite(.serialized) struct ShippingTests {
    /// Every table's rows on the server, as `key|first column|…` lines of psql, for the log's identity.
    static func serverRows(_ pg: TemporaryPostgres, _ table: OutboxTable, log: String) throws -> [String] {
        let columns = ([table.key] + table.columns.filter { $0 != "revision" }).joined(separator: ", ")
        return try pg.query(
            "SELECT \(columns) FROM fleetmesh.\(table.name) WHERE log = '\(log)' ORDER BY \(table.key)")
    }

    /// The same rows read from the local log, formatted as psql prints them.
    static func localRows(_ path: String, _ table: OutboxTable) throws -> [String] {
        let key = table.key == "id" ? "rowid" : table.key
        let columns = ([key] + table.columns.filter { $0 != "revision" }).joined(separator: ", ")
        return try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT \(columns) FROM \(table.name) ORDER BY \(key)").map { row in
                (0..<row.count).map { i -> String in
                    switch (row[i] as DatabaseValue).storage {
                    case .null: ""
                    case .int64(let v): "\(v)"
                    case .double(let v): v == v.rounded() && abs(v) < 1e15 ? "\(Int64(v))" : "\(v)"
                    case .string(let v): v
                    case .blob(let v): String(decoding: v, as: UTF8.self)
                    }
                }.joined(separator: "|")
            }
        }
    }

    static func shipAll(_ shipper: FlightLogShipper, _ session: FlightLogShipper.Session) async throws -> Int {
        var rows = 0
        while true {
            let batch = try await shipper.shipNext(on: session)
            if batch.rowCount == 0 { return rows }
            rows += batch.rowCount
        }
    }

    static func expectSameRows(_ pg: TemporaryPostgres, _ path: String, log: String) throws {
        for table in OutboxTable.all {
            let local = try localRows(path, table)
            let server = try serverRows(pg, table, log: log)
            #expect(
                server.count == local.count, "\(table.name): \(server.count) rows on the server, \(local.count) here")
            #expect(server == local, "\(table.name) differs")
        }
    }

    @Test func everyRowArrivesExactlyOnceThroughOutagesAndResends() async throws {
        let pg = try TemporaryPostgres()
        defer { pg.remove() }
        let (dir, store, runID) = try freshLog()
        defer { dir.remove() }
        let target = try PostgresTarget(url: pg.url)
        let shipper = FlightLogShipper(
            target: target, store: store, logger: Logger(label: "test"), batchRows: 100,
            batchTimeout: .seconds(3))
        let log = try store.logIdentity()

        // Half a flight, a command and its acceptance, predictions and events: shipped while the drone flies.
        let first = flight(node: "a", uav: 3, start: missionStartMs, seconds: 40)
        let plan = PlanRecord(
            command: "c-1", timeMs: missionStartMs + 3000, uavNumber: 3, kind: "goto", speed: 5.5,
            waypoints: [[50.08, 14.44, 10]])
        var records: [FlightRecord] = first.prefix(200).map { .telemetry($0) }
        records += [
            .plan(plan), .planAnswer(command: "c-1", outcome: "accepted", timeMs: missionStartMs + 3100),
            .event(
                EventRecord(
                    timeMs: missionStartMs + 3100, kind: "command", level: "info", text: "goto c-1", uavNumber: 3)),
            .target(
                TargetRecord(
                    timeMs: missionStartMs + 6000, uavNumber: nil, address: "all", latitude: 50.0756,
                    longitude: 14.4379, altitude: 12.5, source: "phone-1")),
            .manualSession(
                ManualSessionRecord(
                    uavNumber: 3, startMs: missionStartMs + 7000, endMs: missionStartMs + 9000, samples: 201,
                    takeover: true)),
            .prediction(
                PredictionRecord(
                    timeMs: missionStartMs + 5000, node: "a", uavNumber: 3, stepMs: 400, points: [[1, 2, 3]],
                    avoiding: false)),
        ]
        try await store.append(records, run: runID, dropped: 0, nowMs: missionStartMs + 20_000)
        var session = try await shipper.connect()
        #expect(try await Self.shipAll(shipper, session) > 200)
        #expect(try pg.query("SELECT end_ms IS NULL FROM fleetmesh.flight WHERE log = '\(log)'") == ["t"])
        #expect(try pg.query("SELECT outcome IS NULL FROM fleetmesh.plan WHERE log = '\(log)'") == ["t"])

        // The rest of the flight, the command's completion: the flight and plan rows are revised.
        try await store.append(
            first.dropFirst(200).map { .telemetry($0) }
                + [.planAnswer(command: "c-1", outcome: "completed", timeMs: missionStartMs + 30_000)],
            run: runID, dropped: 0, nowMs: missionStartMs + 50_000)

        // The server crashes: shipping fails with the target named, the local log keeps recording.
        try pg.stop()
        do {
            _ = try await shipper.shipNext(on: session)
            Issue.record("shipping to a stopped server succeeded")
        } catch {
            #expect("\(error)".contains(target.display), "\(error)")
        }
        await session.close()
        do {
            _ = try await shipper.connect(timeout: .seconds(2))
            Issue.record("connected to a stopped server")
        } catch {
            #expect("\(error)".contains("cannot connect"), "\(error)")
        }
        let second = flight(node: "b", uav: 4, start: missionStartMs + 60_000, seconds: 20)
        try await store.append(second.map { .telemetry($0) }, run: runID, dropped: 0, nowMs: missionStartMs + 90_000)
        #expect(try store.outboxBacklog(target: target.display) > 400)

        // Back: it catches up, and the server holds exactly what the log holds.
        try pg.start()
        session = try await shipper.connect()
        #expect(try await Self.shipAll(shipper, session) > 400)
        #expect(try store.outboxBacklog(target: target.display) == 0)
        try Self.expectSameRows(pg, dir.path, log: log)
        #expect(try pg.query("SELECT outcome FROM fleetmesh.plan WHERE log = '\(log)'") == ["completed"])
        #expect(
            try pg.query("SELECT count(*) FROM fleetmesh.flight WHERE log = '\(log)' AND end_ms IS NOT NULL") == ["2"])

        // Batches stored but never marked shipped (the node killed between the server's commit and its own): all
        // of them are sent again, and the server keeps one copy of each row.
        try await DatabaseQueue(path: dir.path).write { db in try db.execute(sql: "DELETE FROM shipping") }
        #expect(try await Self.shipAll(shipper, session) > 600)
        try Self.expectSameRows(pg, dir.path, log: log)
        await session.close()
    }

    /// Two logs (two nodes) ship to one server: their rows stay apart, and the server's tables are made once.
    @Test func twoLogsShareOneServer() async throws {
        let pg = try TemporaryPostgres()
        defer { pg.remove() }
        let target = try PostgresTarget(url: pg.url)
        var logs: [String] = []
        for node in ["a", "b"] {
            let (dir, store, runID) = try freshLog()
            defer { dir.remove() }
            try await store.append(
                flight(node: node, uav: node == "a" ? 1 : 2, start: missionStartMs, seconds: 5).map { .telemetry($0) },
                run: runID, dropped: 0, nowMs: missionStartMs)
            let shipper = FlightLogShipper(target: target, store: store, logger: Logger(label: "test"))
            let session = try await shipper.connect()
            _ = try await Self.shipAll(shipper, session)
            await session.close()
            logs.append(try store.logIdentity())
        }
        #expect(logs[0] != logs[1])
        #expect(
            try pg.query("SELECT log, count(*) FROM fleetmesh.telemetry GROUP BY log ORDER BY log")
                == logs.sorted().map { "\($0)|90" })
        #expect(try pg.query("SELECT count(*) FROM fleetmesh.log") == ["2"])
    }

    /// `[log] postgres` URLs: what is wrong is named; the password never shows.
    @Test func targetsParseAndBadOnesAreNamed() throws {
        let tcp = try PostgresTarget(url: "postgres://ops:s3cret@db.field:5433/missions?sslmode=require")
        #expect(tcp.display == "ops@db.field:5433/missions")
        #expect(tcp.tls == .require && tcp.password == "s3cret")
        let socket = try PostgresTarget(url: "postgresql://ops@/missions?host=/run/postgresql")
        #expect(socket.display == "ops@/run/postgresql/.s.PGSQL.5432/missions" && socket.tls == .disable)
        let bad: [(String, String)] = [
            ("mysql://ops@db/missions", "not a postgres:// URL"),
            ("postgres://db.field/missions", "no user name"),
            ("postgres://ops@db.field", "no database name"),
            ("postgres://ops@/missions", "no host"),
            ("postgres://ops@db/missions?sslmode=maybe", "sslmode must be"),
            ("postgres://ops@db/missions?timeout=3", "unknown parameter \"timeout\""),
            ("postgres://ops@/missions?host=relative", "absolute path"),
        ]
        for (url, problem) in bad {
            #expect(throws: PostgresTargetError.self, "\(url)") { try PostgresTarget(url: url) }
            do { _ = try PostgresTarget(url: url) } catch { #expect("\(error)".contains(problem), "\(url): \(error)") }
        }
    }
}
