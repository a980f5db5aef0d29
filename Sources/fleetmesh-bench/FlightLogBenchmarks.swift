import Coordinator
import FlightLog
import Foundation

/// The flight log's writer: a station's batches (10 drones at 10 Hz, one batch every 200 ms) written as the recorder
/// writes them, batch latency p50/p99 and records per second, against CPython's sqlite3 module writing the same rows in
/// the same batches to the same kind of file (WAL, synchronous = NORMAL) in the same run; and reading a flight back.
enum FlightLogBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        out.heading("Flight log (SQLite through GRDB)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-bench-flightlog-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let drones = 10
        let seconds = 120
        let start: Int64 = 1_795_723_200_000
        var records: [FlightRecord] = []
        for tenth in 0..<(seconds * 10) {
            for d in 0..<drones {
                let t = start + Int64(tenth) * 100 + Int64(d)
                let state = Coordinator.VehicleState(
                    position: Coordinator.GeoPoint(
                        latitude: 50.0755 + Double(tenth) * 1e-6, longitude: 14.4378 + Double(d) * 1e-4, altitude: 10),
                    velocityNorthCmS: 500, headingCentidegrees: 0, batteryPercent: 90, activity: .flyingToTarget,
                    armed: true)
                records.append(
                    .telemetry(
                        TelemetryRecord(
                            timeMs: t, node: String(format: "%032x", d + 1), uavNumber: d + 1, name: "drone-\(d + 1)",
                            state: state)))
            }
        }
        let batch = drones * 2  // 200 ms of 10 drones at 10 Hz
        let path = directory.appendingPathComponent("flight-log.sqlite").path
        let store = try FlightLogStore(path: path)
        let run = try store.beginRun(
            RunRecord(
                startedMs: start, node: "bench", name: "bench", role: "station", incarnation: "0",
                softwareVersion: "bench", configDigest: "", mapOrigin: nil))
        var latencies = Samples()
        let clock = ContinuousClock()
        let began = clock.now
        for i in stride(from: 0, to: records.count, by: batch) {
            let t0 = clock.now
            try await store.append(Array(records[i..<min(i + batch, records.count)]), run: run, dropped: 0, nowMs: 0)
            latencies.add(clock.now - t0)
        }
        let total = (clock.now - began).seconds
        out.line(
            "rows", "\(records.count) telemetry samples (\(drones) drones, \(seconds) s at 10 Hz), batches of \(batch)")
        out.latency("FleetMesh: one batch (one transaction)", latencies)
        let ours = Double(records.count) / total
        out.rate(
            "FleetMesh: samples written", perSecond: ours,
            note: String(format: "%.1f MB file", Double(store.fileBytes) / 1e6))

        // The same rows and batches from CPython's sqlite3, in the same run.
        let script = """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute('PRAGMA journal_mode=WAL'); db.execute('PRAGMA synchronous=NORMAL')
            db.execute('CREATE TABLE telemetry (time_ms INTEGER NOT NULL, node TEXT NOT NULL, uav INTEGER, name TEXT NOT NULL, lat_e7 INTEGER NOT NULL, lon_e7 INTEGER NOT NULL, alt_mm INTEGER NOT NULL, vn_cms INTEGER NOT NULL, ve_cms INTEGER NOT NULL, vd_cms INTEGER NOT NULL, heading_cdeg INTEGER NOT NULL, battery INTEGER NOT NULL, activity TEXT NOT NULL, armed INTEGER NOT NULL, link INTEGER NOT NULL)')
            for index in ('node, time_ms', 'uav, time_ms', 'time_ms'):
                db.execute('CREATE INDEX i%d ON telemetry(%s)' % (len(index), index))
            drones, seconds, batch, start = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), 1795723200000
            rows = [(start + t * 100 + d, '%032x' % (d + 1), d + 1, 'drone-%d' % (d + 1), 500755000 + t * 10,
                     144378000 + d * 1000, 10000, 500, 0, 0, 0, 90, 'flyingToTarget', 1, 100)
                    for t in range(seconds * 10) for d in range(drones)]
            lat = []
            began = time.perf_counter()
            for i in range(0, len(rows), batch):
                t0 = time.perf_counter()
                db.execute('BEGIN')
                db.executemany('INSERT INTO telemetry VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)', rows[i:i + batch])
                db.execute('COMMIT')
                lat.append(time.perf_counter() - t0)
            total = time.perf_counter() - began
            lat.sort()
            q = lambda f: lat[min(len(lat) - 1, max(0, int(-(-f * len(lat) // 1)) - 1))]
            print(len(rows) / total, q(0.5), q(0.99), len(lat))
            """
        let python = directory.appendingPathComponent("python.sqlite").path
        let result = try pythonOutput(script, [python, String(drones), String(seconds), String(batch)])
        let fields = result.split(separator: " ").compactMap { Double($0) }
        if fields.count == 4 {
            var baseline = Samples()
            baseline.add(fields[1])
            out.line(
                "baseline: CPython sqlite3, same batches",
                String(format: "p50 %9.3f ms  p99 %9.3f ms  %10.0f /s", fields[1] * 1e3, fields[2] * 1e3, fields[0]))
            out.ratio("FleetMesh vs CPython sqlite3 (samples/s)", ours / fields[0], against: "CPython sqlite3")
        } else {
            out.line("baseline: CPython sqlite3", "did not run: \(result.prefix(200))")
        }

        // Reading back: the flights' figures and one flight for the dashboard.
        let t0 = clock.now
        let flights = try store.flightSummaries()
        out.line(
            "flight figures (log flights)",
            String(
                format: "%.1f ms for %d flights of %d samples", (clock.now - t0).seconds * 1e3, flights.count,
                records.count))
        if let first = flights.first {
            let t1 = clock.now
            let track = try store.track(of: first.flight)
            out.line(
                "one flight for the dashboard (track)",
                String(format: "%.1f ms, %d vehicles", (clock.now - t1).seconds * 1e3, track?.vehicles.count ?? 0))
        }
        try await exports(out, directory: directory)
        try await shipping(out, directory: directory)
    }

    static func pythonOutput(_ script: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
