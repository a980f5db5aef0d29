import ControlProtocol
import FlightLog
import Foundation
import LabKit
import Testing

/// `[log] postgres` on real processes and a real PostgreSQL server the test starts (initdb in a temporary directory,
/// a Unix socket only): a station and a drone ship their logs while the drone flies; the server crashes mid-flight
/// and comes back; afterwards every row of both logs is on the server exactly once, and the documented queries run.
@Suite(.serialized) struct ShippingLabTests {
    func shipping(_ node: NodeProcess) throws -> FlightLogShippingReport? { try node.status().flightLog?.shipping }

    func fleetmesh(_ args: [String]) throws -> (status: Int32, output: String) {
        try shell([try fleetmeshBinary()] + args)
    }

    @Test func everyRecordReachesPostgresOnceThroughAServerCrash() async throws {
        let pg = try TemporaryPostgres()
        defer { pg.remove() }
        try await Lab.with(hosts: 2) { lab in
            let ship = "postgres = \"\(pg.url)\""
            let station = try lab.startNode(host: 1, name: "station-a", role: "station", extra: ship)
            let drone = try lab.startNode(host: 2, name: "drone-2", extra: ship, logLevel: "info", flightLog: true)
            var uav = 0
            try await waitUntil("both nodes ship, and the station numbers drone-2", timeout: .seconds(25)) {
                guard
                    try [station, drone].allSatisfy({ try shipping($0).map { $0.connected && $0.shipped > 0 } ?? false }
                    ),
                    let n = try station.vehicles().first(where: { $0.name == "drone-2" && !$0.stale })?.uavNumber
                else { return false }
                uav = n
                return true
            }
            let up = try fleetmesh([
                "send", "--node", station.socketPath, "--timeout", "20", String(uav), "takeoff", "6",
            ])
            #expect(up.status == 0, "\(up.output)")
            try await waitUntil("drone-2 airborne", timeout: .seconds(20)) {
                try station.vehicles().contains { $0.name == "drone-2" && $0.altitude > 3 }
            }

            // The server crashes mid-flight: both nodes say so and keep recording locally.
            try pg.stop()
            try await waitUntil("both nodes report the server down, records waiting", timeout: .seconds(15)) {
                try [station, drone].allSatisfy { node in
                    guard let s = try shipping(node) else { return false }
                    return !s.connected && s.problem != nil && s.backlog > 20
                }
            }
            let status = try fleetmesh(["status", "--node", station.socketPath])
            #expect(status.output.contains("NOT SHIPPING"), "\(status.output)")
            let events =
                try ControlClient.request(
                    ControlRequest.events(.init(after: 0, limit: 1000)), socket: station.socketPath,
                    timeout: .seconds(5)
                ).events?.events.filter { $0.kind == "flightlog" } ?? []
            #expect(events.contains { $0.text.contains("records wait in the local log") }, "\(events)")
            // A target and a second of manual control (zero axes: hold) while the server is down.
            let here = try #require(try station.vehicles().first { $0.name == "drone-2" })
            let target = try fleetmesh([
                "target", "--node", station.socketPath, "--uav", String(uav), String(here.latitude),
                String(here.longitude), "6",
            ])
            #expect(target.status == 0, "\(target.output)")
            let manual = try fleetmesh([
                "manual", "--node", station.socketPath, "--rate", "50", "--seconds", "1", String(uav),
            ])
            #expect(manual.status == 0, "\(manual.output)")
            let down = try fleetmesh(["send", "--node", station.socketPath, "--timeout", "30", String(uav), "land"])
            #expect(down.status == 0, "\(down.output)")

            // Back: both catch up.
            try pg.start()
            try await waitUntil("both nodes shipped everything again", timeout: .seconds(30)) {
                try [station, drone].allSatisfy { node in
                    guard let s = try shipping(node) else { return false }
                    return s.connected && s.problem == nil && s.backlog == 0
                }
            }
            #expect(try station.vehicles().contains { $0.name == "drone-2" && $0.activity == "landed" })
            let paths = try [station, drone].map { try #require(try $0.status().flightLog?.path) }
            // A graceful stop ships the last records too.
            for node in [station, drone] { #expect(try await node.stop() == 0) }

            // Every row of both logs is on the server, once: the same keys, table by table.
            for path in paths {
                let store = try FlightLogStore(path: path, mustExist: true)
                let log = try store.logIdentity()
                let all = try store.outboxBatch(target: "lab-comparison", limit: 10_000_000)
                for part in all.parts {
                    let local = part.rows.map { row -> String in
                        switch row[0] {
                        case .integer(let v): "\(v)"
                        case .text(let v): v
                        case .real(let v): "\(v)"
                        case .null: ""
                        }
                    }
                    let server = try pg.query(
                        "SELECT \(part.table.key) FROM fleetmesh.\(part.table.name) WHERE log = '\(log)' ORDER BY 1")
                    #expect(
                        server.sorted() == local.sorted(),
                        "\(path) \(part.table.name): \(server.count) rows on the server, \(local.count) in the log")
                }
                #expect(all.parts.first { $0.table.name == "telemetry" }.map { $0.rows.count > 100 } == true)
            }
            // Both logs recorded drone-2's flight, closed at the landing.
            let flights = try pg.query(
                "SELECT l.name FROM fleetmesh.flight f JOIN fleetmesh.log l USING (log) WHERE f.name = 'drone-2' AND f.end_ms IS NOT NULL ORDER BY 1"
            )
            #expect(flights == ["drone-2", "station-a"], "\(flights)")
            // The station's target and its manual-control session: one row each, the rate held.
            let targets = try pg.query("SELECT uav, source, alt_mm FROM fleetmesh.target")
            #expect(targets == ["\(uav)|operator|6000"], "\(targets)")
            let sessions = try pg.query("SELECT uav, samples, rate_hz FROM fleetmesh.manual_session")
            let session = sessions.first?.split(separator: "|").map(String.init) ?? []
            #expect(sessions.count == 1 && session.first == String(uav), "\(sessions)")
            #expect((40...60).contains(Int(session.dropFirst().first ?? "") ?? 0), "\(sessions)")
            #expect((40...60).contains(Double(session.last ?? "") ?? 0), "\(sessions)")

            // The queries docs/FLIGHTLOG.md documents run against what was shipped.
            let queries = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Examples/postgres-queries.sql").path
            let answer = try pg.run(file: queries)
            #expect(answer.contains("station-a") && answer.contains("drone-2"), "\(answer)")
            print("postgres-queries.sql:\n\(answer)")
        }
    }
}
