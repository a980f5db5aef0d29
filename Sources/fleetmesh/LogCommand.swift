import ArgumentParser
import ControlProtocol
import FlightLog
import Foundation
import Node

/// `fleetmesh log …`: read what a node recorded (docs/FLIGHTLOG.md).
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract:
            "Read a node's flight log: its flights, and exports for QGIS, Google Earth, GPX tools and QGroundControl.",
        subcommands: [
            LogFlightsCommand.self, LogPlansCommand.self, LogExportCommand.self, LogPlotCommand.self,
            LogReplayCommand.self, LogBundleCommand.self,
        ])
}

/// Which log to read: a file, a node's configuration, or the node running here.
struct LogSource: ParsableArguments {
    @Option(help: "The flight log file (flight-log.sqlite in a node's state directory).")
    var db: String?
    @Option(help: "A node's configuration file: its [log] flight_log_path or state directory says where the log is.")
    var config: String?
    @Option(help: "Without --db or --config: the running node to ask where its log is (name or control socket).")
    var node: String?

    func open() throws -> FlightLogStore {
        let path: String
        if let db {
            path = db
        } else if let config {
            do {
                let c = try NodeConfiguration.load(path: config)
                path = c.flightLog.file(stateDirectory: c.stateDirectory)
            } catch {
                throw failure("error: \(error)", code: 78)
            }
        } else {
            let status: NodeStatus
            do {
                let socket = try ControlClient.socketPath(node: node)
                let response = try ControlClient.request(ControlRequest.status, socket: socket)
                guard let s = response.status else {
                    throw failure("error: \(response.error ?? "empty answer")", code: 1)
                }
                status = s
            } catch let error as ControlClientError {
                throw failure("error: \(error); say which log with --db FILE or --config FILE", code: 69)
            }
            guard let log = status.flightLog else {
                throw failure(
                    "error: node \(status.node.name) does not record a flight log ([log] flight_log = false)", code: 1)
            }
            path = log.path
        }
        do {
            return try FlightLogStore(path: path, mustExist: true)
        } catch {
            throw failure("error: \(error)", code: 66)
        }
    }
}

struct LogFlightsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flights",
        abstract:
            "One row per flight (a UAV's takeoff to landing): duration, distance, altitude, closest approach, battery, commands."
    )

    @OptionGroup var source: LogSource
    @Flag(help: "Print JSON (a stable format for scripts).")
    var json = false

    func run() throws {
        let store = try source.open()
        let flights: [FlightSummary]
        do { flights = try store.flightSummaries() } catch { throw failure("error: \(error)", code: 1) }
        if json { return try printJSON(flights) }
        if flights.isEmpty { return print("no flights in \(store.path) yet") }
        let rows = flights.map { f in
            [
                String(f.flight), f.uavNumber.map(String.init) ?? "-", f.name, LogTime.text(f.startMs),
                String(format: "%.0f s%@", f.durationSeconds, f.endMs == nil ? " (flying)" : ""),
                String(format: "%.0f m", f.distanceMetres), String(format: "%.1f m", f.maxAltitudeMetres),
                f.closestApproachMetres.map {
                    String(format: "%.1f m", $0) + (f.closestApproachUAV.map { " (UAV \($0))" } ?? "")
                }
                    ?? "-",
                "\(f.batteryUsedPercent) %", String(f.commands),
            ]
        }
        print(
            renderTable(
                [
                    "FLIGHT", "UAV", "NODE", "START (UTC)", "DURATION", "DISTANCE", "MAX ALT", "CLOSEST", "BATTERY",
                    "COMMANDS",
                ],
                rows))
    }
}

struct LogPlansCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plans",
        abstract: "Planned vs flown for a flight: each goto and trajectory, its commanded path against the track flown."
    )

    @OptionGroup var source: LogSource
    @Argument(help: "The flight's number (FLIGHT in `fleetmesh log flights`).")
    var flight: Int64
    @Flag(help: "Print JSON (a stable format for scripts), with each commanded path.")
    var json = false

    func run() throws {
        let store = try source.open()
        let plans: [PlanComparison]
        do {
            guard let row = try store.flight(flight) else {
                throw failure("error: no flight \(flight) in \(store.path) (see `fleetmesh log flights`)", code: 1)
            }
            plans = try store.plans(of: row)
        } catch let error as FlightLogError {
            throw failure("error: \(error)", code: 1)
        }
        if json { return try printJSON(plans) }
        if plans.isEmpty { return print("flight \(flight) had no goto or trajectory from this node") }
        let rows = plans.map { p in
            [
                p.command, p.kind, LogTime.text(p.startMs), p.outcome ?? "-", String(format: "%.1f m", p.plannedMetres),
                String(format: "%.1f m", p.flownMetres), String(format: "%.2f m", p.maxCrossTrackMetres),
                String(format: "%.2f m", p.rmsCrossTrackMetres),
                p.plannedSeconds.map { String(format: "%.1f s", $0) } ?? "-",
                p.actualSeconds.map { String(format: "%.1f s", $0) } ?? "-",
            ]
        }
        print(
            renderTable(
                [
                    "COMMAND", "KIND", "START (UTC)", "OUTCOME", "PLANNED", "FLOWN", "MAX XTRACK", "RMS XTRACK",
                    "PLANNED TIME", "TOOK",
                ],
                rows))
    }
}

struct LogExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export recorded telemetry: one flight, or a UAV or the whole fleet between two times.",
        discussion: """
            Examples:
              fleetmesh log export 3 --format geojson --out flight3.geojson
              fleetmesh log export --uav 2 --since 2026-11-26T20:00:00Z --format gpx
              fleetmesh log export 3 --format tlog --out logs/     (one uav-N.tlog per UAV)
              fleetmesh log export 3 --format plan --out flight3.plan   (QGroundControl: File > Open)
            Times are ISO 8601 (UTC unless an offset is given) or milliseconds since 1970. CSV, GeoJSON, KML and GPX \
            go to standard output without --out; tlog needs --out (a file for one UAV, else a directory).
            """)

    @OptionGroup var source: LogSource
    @OptionGroup var selection: LogSelection
    @Option(help: "csv, geojson, kml, gpx, tlog, or plan (a FLIGHT's commanded paths as a QGroundControl mission).")
    var format: String
    @Option(help: "Where to write (a file; for tlog of several UAVs, a directory).")
    var out: String?

    func run() throws {
        guard let format = ExportFormat(rawValue: format.lowercased()) else {
            throw failure(
                "error: --format must be one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(format)\"",
                code: 64)
        }
        let store = try source.open()
        let (chosen, what) = try selection.resolve(in: store, wholeFleet: false)
        let flight = selection.flight
        let samples = try catching { try store.telemetry(chosen) }
        guard !samples.isEmpty else {
            throw failure("error: no telemetry recorded for \(what) in the times given (\(store.path))", code: 1)
        }
        let tracks = ExportTrack.tracks(samples)
        let home = LogSelection.homeAltitude(store)
        let title = "FleetMesh \(what)"
        switch format {
        case .csv: try write(TrackExport.csv(samples))
        case .geojson: try write(TrackExport.geoJSON(tracks))
        case .kml: try write(TrackExport.kml(tracks, title: title))
        case .gpx: try write(TrackExport.gpx(tracks, homeAltitude: home))
        case .tlog: try writeTelemetryLogs(tracks, home: home, flight: flight)
        case .plan:
            guard let flight, let row = try catching({ try store.flight(flight) }) else {
                throw failure("error: --format plan exports one flight's mission: give its FLIGHT number", code: 64)
            }
            let plans = try catching { try store.plans(of: row) }
            try write(MissionPlanExport.plan(flight: row, samples: samples, plans: plans))
        }
    }

    private func catching<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw failure("error: \(error)", code: 1) }
    }

    private func write(_ text: String) throws {
        guard let out else { return print(text, terminator: "") }
        do {
            try text.write(toFile: out, atomically: true, encoding: .utf8)
        } catch {
            throw failure("error: cannot write \(out): \(NodeConfiguration.reason(error))", code: 73)
        }
        FileHandle.standardError.write(Data("wrote \(out)\n".utf8))
    }

    private func writeTelemetryLogs(_ tracks: [ExportTrack], home: Double?, flight: Int64?) throws {
        guard let out else {
            throw failure("error: tlog is binary: give --out FILE (one UAV) or --out DIRECTORY", code: 64)
        }
        let numbered = tracks.filter { $0.uavNumber != nil }
        guard !numbered.isEmpty else {
            throw failure("error: no sample in the selection carries a UAV number (a MAVLink system id)", code: 1)
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory)
        let intoDirectory = (exists && isDirectory.boolValue) || out.hasSuffix("/") || numbered.count > 1
        if intoDirectory, !exists {
            do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
                throw failure("error: cannot create \(out): \(NodeConfiguration.reason(error))", code: 73)
            }
        }
        for (track, bytes) in zip(numbered, TelemetryLogExport.tlogs(numbered, homeAltitude: home)) {
            let name = (flight.map { "flight-\($0)-" } ?? "") + "uav-\(track.uavNumber!).tlog"
            let path = intoDirectory ? URL(fileURLWithPath: out).appendingPathComponent(name).path : out
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                throw failure("error: cannot write \(path)", code: 73)
            }
            FileHandle.standardError.write(Data("wrote \(path) (\(track.title), \(bytes.count) bytes)\n".utf8))
        }
    }
}

/// Times on the command line and in tables.
enum LogTime {
    static func parse(_ text: String, option: String) throws -> Int64 {
        if let ms = Int64(text) { return ms }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            formatter.formatOptions = options
            if let d = formatter.date(from: text) { return Int64((d.timeIntervalSince1970 * 1000).rounded()) }
        }
        throw failure(
            "error: \(option) expects an ISO 8601 time (2026-11-26T20:00:00Z) or milliseconds since 1970, found \"\(text)\"",
            code: 64)
    }

    static func text(_ ms: Int64) -> String {
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}
