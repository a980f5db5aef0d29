import Coordinator
import FlightLog
import Foundation

/// Exports of a one-hour mission of 10 drones at 10 Hz (360,000 samples) in each format, and the log's size per
/// drone-hour.
extension FlightLogBenchmarks {
    static func exports(_ out: BenchOutput, directory: URL) async throws {
        let drones = 10
        let seconds = 3_600
        let start: Int64 = 1_795_723_200_000
        let path = directory.appendingPathComponent("hour.sqlite").path
        let store = try FlightLogStore(path: path)
        let run = try store.beginRun(
            RunRecord(
                startedMs: start, node: "bench", name: "bench", role: "station", incarnation: "0",
                softwareVersion: "bench", configDigest: "", mapOrigin: "50.0755, 14.4378, 230"))
        let clock = ContinuousClock()
        let began = clock.now
        for minute in 0..<(seconds / 60) {
            var batch: [FlightRecord] = []
            for tenth in (minute * 600)..<((minute + 1) * 600) {
                for d in 0..<drones {
                    let state = Coordinator.VehicleState(
                        position: Coordinator.GeoPoint(
                            latitude: 50.0755 + Double(tenth % 6000) * 1e-6, longitude: 14.4378 + Double(d) * 1e-4,
                            altitude: 10),
                        velocityNorthCmS: 500, batteryPercent: UInt8(100 - tenth / 600), activity: .flyingToTarget,
                        armed: true)
                    batch.append(
                        .telemetry(
                            TelemetryRecord(
                                timeMs: start + Int64(tenth) * 100 + Int64(d), node: String(format: "%032x", d + 1),
                                uavNumber: d + 1, name: "drone-\(d + 1)", state: state)))
                }
            }
            try await store.append(batch, run: run, dropped: 0, nowMs: 0)
        }
        let samples = drones * seconds * 10
        out.line(
            "one hour of 10 drones written", String(format: "%.1f s (%d samples)", (clock.now - began).seconds, samples)
        )
        _ = try await store.prune(keepAfterMs: 0, maxBytes: .max)
        let megabytes = Double(store.fileBytes) / 1_048_576
        out.line(
            "log size per drone-hour",
            String(
                format: "%.1f MB (%.1f MB for the hour of 10 drones, %.0f bytes per sample)",
                megabytes / Double(drones),
                megabytes, Double(store.fileBytes) / Double(samples)))
        let t0 = clock.now
        let all = try store.telemetry(TelemetrySelection())
        out.line("read the hour back", String(format: "%.2f s", (clock.now - t0).seconds))
        let tracks = ExportTrack.tracks(all)
        func time(_ name: String, _ body: () -> Int) {
            let t = clock.now
            let bytes = body()
            out.line(
                "export \(name), one hour of 10 drones",
                String(
                    format: "%.2f s, %.1f MB (goal ≤ 2 s; the read above not included)", (clock.now - t).seconds,
                    Double(bytes) / 1e6))
        }
        time("csv") { TrackExport.csv(all).utf8.count }
        time("geojson") { TrackExport.geoJSON(tracks).utf8.count }
        time("kml") { TrackExport.kml(tracks, title: "bench").utf8.count }
        time("gpx") { TrackExport.gpx(tracks, homeAltitude: 230).utf8.count }
        time("tlog (10 files, one core)") {
            tracks.reduce(0) { $0 + TelemetryLogExport.tlog($1, homeAltitude: 230).count }
        }
        time("tlog (10 files, every core)") {
            TelemetryLogExport.tlogs(tracks, homeAltitude: 230).reduce(0) { $0 + $1.count }
        }
    }
}
