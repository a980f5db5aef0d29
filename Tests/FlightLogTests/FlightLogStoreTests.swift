import Coordinator
import Foundation
import GRDB
import Testing

@testable import FlightLog

@Suite struct FlightLogStoreTests {
    /// Two drones' flights written in batches as the recorder does: one flight each, opened at the first airborne
    /// sample and closed at the landing, with the figures a reviewer reads.
    @Test func flightsAreFoundAndMeasured() async throws {
        let (dir, store, runID) = try freshLog()
        defer { dir.remove() }
        // Drone b flies the same line 8 m further north, so their closest approach is 8 m.
        let a = flight(node: "a", uav: 3, start: missionStartMs, seconds: 30)
        let b = flight(node: "b", uav: 4, start: missionStartMs, seconds: 30, north: 8)
        let merged = zip(a, b).flatMap { [FlightRecord.telemetry($0), .telemetry($1)] }
        let events = [
            FlightRecord.event(
                EventRecord(
                    timeMs: missionStartMs + 2_500, kind: "command", level: "info", text: "UAV 3: goto", uavNumber: 3)),
            .event(
                EventRecord(
                    timeMs: missionStartMs + 90_000, kind: "command", level: "info", text: "later", uavNumber: 3)),
        ]
        for (i, batch) in (merged + events).chunked(into: 37).enumerated() {
            try await store.append(batch, run: runID, dropped: i, nowMs: missionStartMs)
        }
        let flights = try store.flightSummaries()
        #expect(flights.count == 2)
        let f = try #require(flights.first { $0.uavNumber == 3 })
        #expect(f.startMs == missionStartMs + 2_000)
        #expect(f.endMs == missionStartMs + 32_000)
        #expect(abs(f.durationSeconds - 30) < 0.01)
        // 299 steps of 0.5 m at 10 m, plus the descent from 10 m to the ground at landing (10 m straight down).
        #expect(abs(f.distanceMetres - (149.5 + 10)) < 0.2, "\(f.distanceMetres)")
        #expect(abs(f.maxAltitudeMetres - 10) < 0.01)
        #expect(abs((f.closestApproachMetres ?? 0) - 8) < 0.05, "\(String(describing: f.closestApproachMetres))")
        #expect(f.closestApproachUAV == 4)
        #expect(f.batteryUsedPercent == 95 - 80)
        #expect(f.commands == 1)
        let runs = try store.runs()
        #expect(runs.count == 1 && runs[0].records == merged.count + events.count)
        #expect(runs[0].run.mapOrigin == run.mapOrigin)
    }

    /// Two drones crossing, their samples 50 ms out of step: the other's position is interpolated at each sample's
    /// time, so the closest approach is the crossing (0 m), not the 0.25 m a nearest-sample pairing would give.
    @Test func closestApproachInterpolatesTheOtherTrack() async throws {
        let (dir, store, runID) = try freshLog()
        defer { dir.remove() }
        // a: east along y = 0 at 5 m/s; b: north along x = 50 at 5 m/s, both at 10 m, meeting at (50, 0) at t = 10 s.
        let a = (0...200).map { i in
            sample(missionStartMs + Int64(i) * 100, node: "a", uav: 3, east: Double(i) * 0.5, up: 10)
        }
        let b = (0...200).map { i in
            let t = Int64(i) * 100 + 50
            return sample(missionStartMs + t, node: "b", uav: 4, east: 50, north: (Double(t) - 10_000) / 200, up: 10)
        }
        try await store.append((a + b).map(FlightRecord.telemetry), run: runID, dropped: 0, nowMs: 0)
        let f = try #require(try store.flightSummaries().first { $0.uavNumber == 3 })
        #expect((f.closestApproachMetres ?? 99) < 0.02, "\(String(describing: f.closestApproachMetres))")
        #expect(f.closestApproachUAV == 4)
    }

    /// Planned vs flown: a goto flown along its path (no cross-track error), a trajectory whose second leg runs 3 m
    /// beside the track (3 m), their lengths and times; an answer recorded after the plan updates it.
    @Test func plannedVsFlown() async throws {
        let (dir, store, runID) = try freshLog()
        defer { dir.remove() }
        let a = flight(node: "a", uav: 3, start: missionStartMs, seconds: 30)
        let b = flight(node: "b", uav: 4, start: missionStartMs, seconds: 30, north: 8)
        func point(east: Double, north: Double, up: Double) -> [Double] {
            let p = sample(0, east: east, north: north, up: up).state.position
            return [p.latitude, p.longitude, up]
        }
        let plans: [FlightRecord] = [
            .plan(
                PlanRecord(
                    command: "c1", timeMs: missionStartMs + 1_990, uavNumber: 3, kind: "goto", speed: 5,
                    waypoints: [point(east: 149.5, north: 0, up: 10)])),
            .plan(
                PlanRecord(
                    command: "c2", timeMs: missionStartMs + 1_990, uavNumber: 4, kind: "trajectory", speed: nil,
                    waypoints: [point(east: 75, north: 11, up: 10), point(east: 149.5, north: 11, up: 10)])),
            .planAnswer(command: "c1", outcome: "accepted", timeMs: missionStartMs + 2_000),
            .prediction(
                PredictionRecord(
                    timeMs: missionStartMs + 5_000, node: "b", uavNumber: 4, stepMs: 800,
                    points: [point(east: 15, north: 8, up: 10), point(east: 19, north: 8, up: 10)], avoiding: false)),
            .planAnswer(command: "c2", outcome: "accepted", timeMs: missionStartMs + 2_000),
        ]
        try await store.append(
            plans + (a + b).map(FlightRecord.telemetry), run: runID, dropped: 0, nowMs: 0)
        try await store.append(
            [
                .planAnswer(command: "c1", outcome: "completed", timeMs: missionStartMs + 31_900),
                .planAnswer(command: "c2", outcome: "completed", timeMs: missionStartMs + 31_900),
            ], run: runID, dropped: 0, nowMs: 0)
        let flights = try store.flights()
        let flight3 = try #require(flights.first { $0.uavNumber == 3 })
        let flight4 = try #require(flights.first { $0.uavNumber == 4 })
        let goto = try #require(try store.plans(of: flight3).first)
        #expect(goto.kind == "goto" && goto.outcome == "completed")
        #expect(goto.maxCrossTrackMetres < 0.01 && abs(goto.plannedMetres - 149.5) < 0.01, "\(goto)")
        #expect(abs((goto.plannedSeconds ?? 0) - 29.9) < 0.01 && abs((goto.actualSeconds ?? 0) - 29.9) < 0.001)
        let trajectory = try #require(try store.plans(of: flight4).first)
        #expect(abs(trajectory.maxCrossTrackMetres - 3) < 0.05, "\(trajectory)")
        #expect(trajectory.rmsCrossTrackMetres > 1 && trajectory.rmsCrossTrackMetres < 3, "\(trajectory)")
        #expect(trajectory.plannedSeconds == nil && trajectory.path.count == 3)
        // As a QGroundControl mission: takeoff, the goto's speed and waypoint, landing.
        let mission = MissionPlanExport.plan(
            flight: flight3,
            samples: try store.telemetry(TelemetrySelection(node: "a", fromMs: flight3.startMs, toMs: flight3.endMs)),
            plans: try store.plans(of: flight3))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(mission.utf8)) as? [String: Any])
        #expect(json["fileType"] as? String == "Plan")
        let items = try #require((json["mission"] as? [String: Any])?["items"] as? [[String: Any]])
        #expect(items.compactMap { $0["command"] as? Int } == [22, 178, 16, 21])
        #expect(abs(((items[1]["params"] as? [Any])?[1] as? Double ?? 0) - 5) < 0.01)
        #expect(abs(((items[2]["params"] as? [Any])?[6] as? Double ?? 0) - 10) < 0.01)
        #expect(items.map { $0["doJumpId"] as? Int } == [1, 2, 3, 4])
        // The dashboard's track carries the plans and each point's distance from the running one.
        let track = try #require(try store.track(of: flight4.id))
        #expect(track.plans.count == 1)
        #expect(track.vehicles[0].predictions.map(\.timeMs) == [missionStartMs + 5_000])
        #expect(track.vehicles[0].predictions.first?.points.count == 2)
        #expect(track.vehicles[0].points.compactMap(\.crossTrack).max().map { abs($0 - 3) < 0.05 } == true)
    }

    /// A vehicle unheard for over a minute (a restart, a link lost) ends its flight at its last sample; a flight still
    /// going when the log ends has no end.
    @Test func aLongSilenceEndsAFlightAndAnOpenOneStaysOpen() async throws {
        let (dir, store, runID) = try freshLog()
        defer { dir.remove() }
        let first = (0..<10).map { sample(missionStartMs + Int64($0) * 100, up: 5) }
        let later = (0..<10).map { sample(missionStartMs + 120_000 + Int64($0) * 100, up: 5) }
        try await store.append(first.map(FlightRecord.telemetry), run: runID, dropped: 0, nowMs: 0)
        try await store.append(later.map(FlightRecord.telemetry), run: runID, dropped: 0, nowMs: 0)
        let flights = try store.flights()
        #expect(flights.count == 2)
        #expect(flights[0].endMs == missionStartMs + 900)
        #expect(flights[1].startMs == missionStartMs + 120_000 && flights[1].endMs == nil)
        #expect(flights[1].lastMs == missionStartMs + 120_900)
    }

    /// Reopening a log keeps what it holds; the schema's version is recorded; freed space goes back to the disk.
    @Test func reopenKeepsRecordsAndSchemaIsVersioned() async throws {
        let dir = try TemporaryLog()
        defer { dir.remove() }
        do {
            let store = try FlightLogStore(path: dir.path)
            let runID = try store.beginRun(run)
            try await store.append([.telemetry(sample(missionStartMs))], run: runID, dropped: 0, nowMs: 0)
        }
        let again = try FlightLogStore(path: dir.path, mustExist: true)
        #expect(try again.telemetry(TelemetrySelection()).count == 1)
        #expect(try again.schemaVersions() == ["v1", "v2", "v3", "v4", "v5"])
    }

    /// A log written by a FleetMesh that knew only schema v1 is migrated when opened: its records stay, v2's table
    /// is added.
    @Test func aVersion1LogIsMigrated() async throws {
        let dir = try TemporaryLog()
        defer { dir.remove() }
        do {
            let old = try DatabasePool(path: dir.path)
            try FlightLogSchema.migrator.migrate(old, upTo: "v1")
            try await old.write { db in
                try db.execute(
                    sql: "INSERT INTO event (time_ms, kind, level, text) VALUES (?, 'command', 'info', 'from v1')",
                    arguments: [missionStartMs])
            }
        }
        let store = try FlightLogStore(path: dir.path, mustExist: true)
        #expect(try store.schemaVersions() == ["v1", "v2", "v3", "v4", "v5"])
        #expect(try store.events().map(\.text) == ["from v1"])
        #expect(try store.plans(uav: 3, fromMs: 0, toMs: .max).isEmpty)
    }

    /// A log from before the outbox (v3) is migrated to v4: its rows get revisions of their own, so batches of one
    /// row still ship every one of them.
    @Test func aVersion3LogShipsEveryOldRow() async throws {
        let dir = try TemporaryLog()
        defer { dir.remove() }
        do {
            let old = try DatabasePool(path: dir.path)
            try FlightLogSchema.migrator.migrate(old, upTo: "v3")
            try await old.write { db in
                for i in 0..<3 {
                    try db.execute(
                        sql: "INSERT INTO flight (node, uav, name, start_ms, last_ms) VALUES ('a', ?, 'd', 0, 0)",
                        arguments: [i])
                }
            }
        }
        let store = try FlightLogStore(path: dir.path, mustExist: true)
        var shipped: [OutboxValue] = []
        while true {
            let batch = try store.outboxBatch(target: "t", limit: 1)
            guard let part = batch.parts.first(where: { $0.table.name == "flight" }) else { break }
            shipped += part.rows.map { $0[0] }
            try await store.markShipped(batch, target: "t")
        }
        #expect(shipped == [.integer(1), .integer(2), .integer(3)])
    }

    /// A file that is not a log, or no file where one is expected: the error names the file and what is wrong.
    @Test func aBrokenOrMissingFileIsNamed() throws {
        let dir = try TemporaryLog()
        defer { dir.remove() }
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: dir.path))
        do {
            _ = try FlightLogStore(path: dir.path)
            Issue.record("a file of garbage opened as a flight log")
        } catch {
            #expect(error.description.contains(dir.path))
            #expect(error.problem.contains("not a database"), "\(error)")
        }
        let missing = dir.directory + "/none.sqlite"
        #expect(throws: FlightLogError.self) { try FlightLogStore(path: missing, mustExist: true) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// Retention: records older than the age limit go; above the size limit the oldest hours go; the newest hour
    /// stays whatever the limit.
    @Test func retentionByAgeAndSize() async throws {
        let (dir, store, runID) = try freshLog()
        defer { dir.remove() }
        // Six hours of samples, one every 2 s, in hourly batches.
        for hour in 0..<6 {
            let records = (0..<1800).map { i in
                FlightRecord.telemetry(sample(missionStartMs + Int64(hour) * 3_600_000 + Int64(i) * 2_000, up: 5))
            }
            try await store.append(records, run: runID, dropped: 0, nowMs: 0)
        }
        let aged = try await store.prune(keepAfterMs: missionStartMs + 3_600_000, maxBytes: 1 << 40)
        #expect(aged.telemetry == 1800)
        #expect(try store.telemetry(TelemetrySelection()).first?.timeMs == missionStartMs + 3_600_000)
        let sized = try await store.prune(keepAfterMs: 0, maxBytes: 1)
        let left = try store.telemetry(TelemetrySelection())
        #expect(sized.telemetry >= 1800 * 3, "\(sized)")
        #expect(left.count >= 1800 && left.last?.timeMs == missionStartMs + 6 * 3_600_000 - 2_000)
    }
}

extension Array {
    func chunked(into size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
