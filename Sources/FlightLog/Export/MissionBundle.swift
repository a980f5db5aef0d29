import Foundation

/// A mission for review: one run of the recording node (its start to its stop), with everything recorded meanwhile
/// as the files `fleetmesh log bundle` packs — a README, the flights, events, the fleet's tracks (CSV, GeoJSON, KML,
/// GPX), a MAVLink telemetry log per UAV, and each flight's commanded paths (a QGroundControl `.plan`, planned vs
/// flown as JSON). The plots are drawn by the command (gnuplot).
public struct MissionBundle: Sendable {
    /// A run of the log: the mission's number is its place among the runs, from 1.
    public struct Mission: Sendable, Hashable {
        public var number: Int
        public var run: RunRecord
        public var fromMs: Int64
        /// The next run's start, or this run's last write.
        public var toMs: Int64
        public var records: Int
        public var dropped: Int
    }

    public var mission: Mission
    public var flights: [FlightSummary]
    /// Path in the archive and contents, in order.
    public var files: [(path: String, bytes: [UInt8])]

    /// The log's missions, oldest first.
    public static func missions(_ store: FlightLogStore) throws(FlightLogError) -> [Mission] {
        let runs = try store.runs()
        return runs.enumerated().map { i, r in
            let next = i + 1 < runs.count ? runs[i + 1].run.startedMs : nil
            return Mission(
                number: i + 1, run: r.run, fromMs: r.run.startedMs,
                toMs: next ?? max(r.lastWriteMs ?? r.run.startedMs, r.run.startedMs), records: r.records,
                dropped: r.dropped)
        }
    }

    /// Everything `mission` recorded, as files.
    public static func make(_ store: FlightLogStore, mission: Mission) throws(FlightLogError) -> MissionBundle {
        let flights = try store.flightSummaries().filter { $0.startMs >= mission.fromMs && $0.startMs < mission.toMs }
        let samples = try store.telemetry(TelemetrySelection(fromMs: mission.fromMs, toMs: mission.toMs))
        let events = try store.events(fromMs: mission.fromMs, toMs: mission.toMs)
        let home = mission.run.mapOriginAltitude
        let tracks = ExportTrack.tracks(samples)
        var files: [(path: String, bytes: [UInt8])] = []
        func add(_ path: String, _ text: String) { files.append((path, Array(text.utf8))) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        add("flights.json", String(decoding: (try? encoder.encode(flights)) ?? Data("[]".utf8), as: UTF8.self))
        add("events.csv", eventsCSV(events))
        if !samples.isEmpty {
            add("fleet/telemetry.csv", TrackExport.csv(samples))
            add("fleet/tracks.geojson", TrackExport.geoJSON(tracks))
            add("fleet/tracks.kml", TrackExport.kml(tracks, title: "FleetMesh mission \(mission.number)"))
            add("fleet/tracks.gpx", TrackExport.gpx(tracks, homeAltitude: home))
        }
        let numbered = tracks.filter { $0.uavNumber != nil }
        for (track, log) in zip(numbered, TelemetryLogExport.tlogs(numbered, homeAltitude: home)) {
            files.append(("tlogs/uav-\(track.uavNumber!).tlog", log))
        }
        for f in flights {
            guard let row = try store.flight(f.flight) else { continue }
            let plans = try store.plans(of: row)
            guard !plans.isEmpty else { continue }
            let own = samples.filter {
                $0.node == row.node && $0.timeMs >= row.startMs && $0.timeMs <= (row.endMs ?? row.lastMs)
            }
            add("plans/flight-\(f.flight).plan", MissionPlanExport.plan(flight: row, samples: own, plans: plans))
            add(
                "plans/flight-\(f.flight)-planned-vs-flown.json",
                String(decoding: (try? encoder.encode(plans)) ?? Data("[]".utf8), as: UTF8.self))
        }
        return MissionBundle(mission: mission, flights: flights, files: files)
    }

    /// The archive's README: what the mission was, who recorded it, its flights, and what each file is.
    public func readme(plots: [String], plotProblem: String?) -> String {
        let m = mission
        func time(_ ms: Int64) -> String {
            ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
        }
        var text = """
            FleetMesh mission \(m.number), recorded by \(m.run.name) (\(m.run.role), node \(m.run.node))
            from \(time(m.fromMs)) to \(time(m.toMs))
            software \(m.run.softwareVersion), configuration SHA-256 \(m.run.configDigest)
            map origin \(m.run.mapOrigin ?? "none"); \(m.records) records written, \(m.dropped) dropped

            Flights (\(flights.count)):

            """
        for f in flights {
            text += String(
                format:
                    "  flight %lld  UAV %@  %@  start %@  %.0f s  %.0f m  max alt %.1f m  closest %@  battery %d %%\n",
                f.flight, f.uavNumber.map(String.init) ?? "-", f.name, time(f.startMs), f.durationSeconds,
                f.distanceMetres, f.maxAltitudeMetres,
                f.closestApproachMetres.map { String(format: "%.1f m", $0) } ?? "-",
                f.batteryUsedPercent)
        }
        text += """

            Files:
              flights.json                each flight's figures (as `fleetmesh log flights --json`)
              events.csv                  every event: commands and answers, leases, avoidance, warnings
              fleet/telemetry.csv         every sample of every vehicle
              fleet/tracks.geojson|kml|gpx  one track per vehicle (QGIS, Google Earth, GPX tools)
              tlogs/uav-N.tlog            MAVLink telemetry log per UAV (QGroundControl, MAVExplorer, mavlogdump)
              plans/flight-F.plan         a flight's commanded paths as a QGroundControl mission
              plans/flight-F-planned-vs-flown.json  cross-track error and timing per goto and trajectory
              plots/flight-F.svg          altitude, speed, battery, distance to the nearest drone

            """
        if let plotProblem { text += "Plots not drawn: \(plotProblem)\n" }
        text += "In this archive: \(files.map(\.path).joined(separator: ", "))\(plots.isEmpty ? "" : ", ")"
        text += plots.joined(separator: ", ") + "\n"
        return text
    }

    static func eventsCSV(_ events: [EventRecord]) -> String {
        func field(_ s: String) -> String {
            s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
        }
        var out = "time_utc,time_ms,kind,level,uav,node,text\n"
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for e in events {
            out +=
                "\(f.string(from: Date(timeIntervalSince1970: Double(e.timeMs) / 1000))),\(e.timeMs),\(field(e.kind)),"
            out += "\(e.level),\(e.uavNumber.map(String.init) ?? ""),\(e.node ?? ""),\(field(e.text))\n"
        }
        return out
    }
}
