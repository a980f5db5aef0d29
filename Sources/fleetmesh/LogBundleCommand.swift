import ArgumentParser
import FlightLog
import Foundation
import ZIPFoundation

/// `fleetmesh log bundle [MISSION] --out mission.zip`: one archive with everything a reviewer needs of a mission.
struct LogBundleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract:
            "Pack a mission (one run of the node) in a zip: tlogs per UAV, plans, events, tracks, flights and plots.",
        discussion: """
            A mission is one run of the recording node, from its start to its next start: `--list` shows them.
            Examples:
              fleetmesh log bundle --list
              fleetmesh log bundle --out mission.zip          (the latest mission)
              fleetmesh log bundle 2 --out field-day-2.zip
            Plots need gnuplot (Debian: gnuplot-nox); without it the archive says so and holds the rest.
            """)

    @OptionGroup var source: LogSource
    @Argument(help: "The mission's number (see --list); the latest without it.")
    var mission: Int?
    @Flag(help: "List the log's missions instead.")
    var list = false
    @Option(help: "The archive to write (.zip).")
    var out: String?
    @Option(help: "The separation limit drawn in the plots, metres.")
    var separation: Double = 5

    func run() throws {
        let store = try source.open()
        let missions = try catching { try MissionBundle.missions(store) }
        if list {
            if missions.isEmpty { return print("no missions in \(store.path) yet") }
            return print(
                renderTable(
                    ["MISSION", "NODE", "ROLE", "FROM (UTC)", "TO (UTC)", "RECORDS", "SOFTWARE"],
                    missions.map {
                        [
                            String($0.number), $0.run.name, $0.run.role, LogTime.text($0.fromMs), LogTime.text($0.toMs),
                            String($0.records), $0.run.softwareVersion,
                        ]
                    }))
        }
        guard let out else { throw failure("error: give --out FILE.zip (or --list)", code: 64) }
        guard out.lowercased().hasSuffix(".zip") else {
            throw failure("error: --out must end in .zip, found \"\(out)\"", code: 64)
        }
        guard let chosen = mission.map({ n in missions.first { $0.number == n } }) ?? missions.last else {
            let known = missions.isEmpty ? "the log has none yet" : "it has 1 to \(missions.count)"
            throw failure("error: no mission \(mission.map(String.init) ?? "") in \(store.path) (\(known))", code: 1)
        }
        let bundle = try catching { try MissionBundle.make(store, mission: chosen) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("fleetmesh-bundle-\(getpid())")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // The plots, one per flight.
        var plots: [(path: String, bytes: [UInt8])] = []
        var plotProblem: String?
        for f in bundle.flights where plotProblem == nil {
            guard let track = try catching({ try store.track(of: f.flight, maxPoints: 5_000) }) else { continue }
            let file = scratch.appendingPathComponent("flight-\(f.flight).svg").path
            do {
                _ = try LogPlotCommand.draw(track, format: .svg, out: file, separation: separation)
                plots.append(("plots/flight-\(f.flight).svg", Array(try Data(contentsOf: URL(fileURLWithPath: file)))))
            } catch {
                plotProblem = "gnuplot did not run (Debian: apt install gnuplot-nox)"
            }
        }
        let files =
            [("README.txt", Array(bundle.readme(plots: plots.map(\.path), plotProblem: plotProblem).utf8))]
            + bundle.files + plots
        try? FileManager.default.removeItem(atPath: out)
        do {
            let archive = try Archive(url: URL(fileURLWithPath: out), accessMode: .create)
            let folder = "fleetmesh-mission-\(chosen.number)"
            for (path, bytes) in files {
                let data = Data(bytes)
                try archive.addEntry(
                    with: "\(folder)/\(path)", type: .file, uncompressedSize: Int64(data.count),
                    modificationDate: Date(timeIntervalSince1970: Double(chosen.toMs) / 1000),
                    compressionMethod: .deflate
                ) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
        } catch {
            throw failure("error: cannot write \(out): \(error)", code: 73)
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? NSNumber)?.intValue ?? 0
        FileHandle.standardError.write(
            Data(
                "wrote \(out): mission \(chosen.number), \(bundle.flights.count) flights, \(files.count) files, \(bytes / 1024) KiB\n"
                    .utf8))
    }

    private func catching<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as ExitCode { throw e } catch { throw failure("error: \(error)", code: 1) }
    }
}
