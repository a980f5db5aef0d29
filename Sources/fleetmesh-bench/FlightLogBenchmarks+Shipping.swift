import Coordinator
import FlightLog
import FlightLogShipping
import Foundation
import LabKit
import Logging

/// A station logging 100 drones at 10 Hz in real time (a batch of 200 samples every 200 ms, as its recorder writes
/// them): the process's CPU for recording alone, then for recording and shipping to a PostgreSQL server of the
/// benchmark's own (initdb in a temporary directory, a Unix socket; the server's own CPU not counted), with the
/// shipping lag — a sample's time to its commit on the server — p50/p99.
extension FlightLogBenchmarks {
    static func shipping(_ out: BenchOutput, directory: URL) async throws {
        let drones = 100
        let seconds = Double(ProcessInfo.processInfo.environment["FLEETMESH_BENCH_LOG_SECONDS"] ?? "") ?? 20
        out.line("station load", "\(drones) drones at 10 Hz, a batch every 200 ms, \(Int(seconds)) s per phase")
        let alone = try await phase(drones: drones, seconds: seconds, directory: directory, postgres: nil)
        out.line(
            "recording alone: station CPU",
            String(format: "%.2f %% of one core (%d samples written)", alone.cpu * 100, alone.samples))
        let pg: TemporaryPostgres
        do {
            pg = try TemporaryPostgres()
        } catch {
            out.line("shipping", "did not run: \(error)")
            return
        }
        defer { pg.remove() }
        let shipped = try await phase(drones: drones, seconds: seconds, directory: directory, postgres: pg)
        out.line(
            "recording + shipping: station CPU",
            String(format: "%.2f %% of one core (%d rows shipped)", shipped.cpu * 100, shipped.shipped))
        out.ratio("CPU, recording + shipping vs recording alone", shipped.cpu / alone.cpu, against: "recording alone")
        out.latency("shipping lag (sample time to server commit)", shipped.lag)
    }

    struct Phase {
        var cpu: Double
        var samples: Int
        var shipped: Int
        var lag: Samples
    }

    static func phase(drones: Int, seconds: Double, directory: URL, postgres: TemporaryPostgres?) async throws -> Phase
    {
        let path = directory.appendingPathComponent("station-\(postgres == nil ? "alone" : "shipping").sqlite").path
        let store = try FlightLogStore(path: path)
        let run = try store.beginRun(
            RunRecord(
                startedMs: nowMs(), node: "bench", name: "station-bench", role: "station", incarnation: "0",
                softwareVersion: "bench", configDigest: "", mapOrigin: nil))
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        var result = Phase(cpu: 0, samples: 0, shipped: 0, lag: Samples())
        let cpu0 = try FleetLabBenchmarks.cpuSeconds(pid: getpid())
        let began = clock.now
        // The shipper as the node runs it: batch after batch while behind, then a pause of 500 ms.
        let shipper = try postgres.map {
            FlightLogShipper(target: try PostgresTarget(url: $0.url), store: store, logger: Logger(label: "bench"))
        }
        let shipping = Task { () -> (Int, Samples) in
            guard let shipper else { return (0, Samples()) }
            let session = try await shipper.connect()
            var rows = 0
            var lag = Samples()
            while clock.now < end + .seconds(1) {
                let batch = try await shipper.shipNext(on: session)
                rows += batch.rowCount
                if let newest = batch.newestTelemetryMs { lag.add(Double(nowMs() - newest) / 1000) }
                if batch.rowCount == 0 { try await Task.sleep(for: .milliseconds(500)) }
            }
            await session.close()
            return (rows, lag)
        }
        var tick = clock.now
        var tenth = 0
        while clock.now < end {
            var records: [FlightRecord] = []
            records.reserveCapacity(drones * 2)
            for _ in 0..<2 {
                let t = nowMs()
                for d in 0..<drones {
                    let state = Coordinator.VehicleState(
                        position: Coordinator.GeoPoint(
                            latitude: 50.0755 + Double(tenth) * 1e-6, longitude: 14.4378 + Double(d) * 1e-4,
                            altitude: 10),
                        velocityNorthCmS: 500, headingCentidegrees: 0, batteryPercent: 90,
                        activity: .flyingToTarget, armed: true)
                    records.append(
                        .telemetry(
                            TelemetryRecord(
                                timeMs: t, node: String(format: "%032x", d + 1), uavNumber: d + 1,
                                name: "drone-\(d + 1)", state: state)))
                }
                tenth += 1
            }
            try await store.append(records, run: run, dropped: 0, nowMs: nowMs())
            result.samples += records.count
            tick = tick + .milliseconds(200)
            try await Task.sleep(until: tick, clock: clock)
        }
        let (rows, lag) = try await shipping.value
        result.cpu = (try FleetLabBenchmarks.cpuSeconds(pid: getpid()) - cpu0) / (clock.now - began).seconds
        result.shipped = rows
        result.lag = lag
        return result
    }

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
