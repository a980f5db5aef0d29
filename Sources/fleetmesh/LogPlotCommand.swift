import ArgumentParser
import FlightLog
import Foundation

/// `fleetmesh log plot FLIGHT --out flight.svg`: a flight's plots for a report, drawn by gnuplot.
struct LogPlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract:
            "Plot a flight for a report: altitude, speed, battery, and distance to the nearest drone vs the separation limit.",
        discussion: """
            Drawn by gnuplot (Debian: gnuplot-nox). The format follows --out's extension: .svg, .png or .pdf.
            Example: fleetmesh log plot 3 --out flight3.svg
            """)

    @OptionGroup var source: LogSource
    @Argument(help: "The flight's number (FLIGHT in `fleetmesh log flights`).")
    var flight: Int64
    @Option(help: "The image to write: .svg, .png or .pdf.")
    var out: String
    @Option(help: "The separation limit to draw, metres ([avoidance] horizontal_separation).")
    var separation: Double = 5

    func run() throws {
        guard let format = FlightPlot.Format(file: out) else {
            throw failure(
                "error: --out must end in \(FlightPlot.Format.allCases.map { "." + $0.rawValue }.joined(separator: ", ")), found \"\(out)\"",
                code: 64)
        }
        guard separation > 0, separation < 1000 else {
            throw failure("error: --separation must be more than 0 and under 1000 m, found \(separation)", code: 64)
        }
        let store = try source.open()
        let track: FlightTrack
        do {
            guard let t = try store.track(of: flight, maxPoints: 5_000) else {
                throw failure("error: no flight \(flight) in \(store.path) (see `fleetmesh log flights`)", code: 1)
            }
            track = t
        } catch let error as FlightLogError {
            throw failure("error: \(error)", code: 1)
        }
        let size = try Self.draw(track, format: format, out: out, separation: separation)
        FileHandle.standardError.write(Data("wrote \(out) (flight \(flight), \(size / 1024) KiB)\n".utf8))
    }

    /// Runs gnuplot on the flight's script; returns the image's size, or fails with gnuplot's words.
    static func draw(_ track: FlightTrack, format: FlightPlot.Format, out: String, separation: Double) throws -> Int {
        let script = FlightPlot.script(track, format: format, output: out, separationMetres: separation)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gnuplot"]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        do { try process.run() } catch {
            throw failure("error: cannot run gnuplot: \(error)", code: 69)
        }
        input.fileHandleForWriting.write(Data(script.utf8))
        try? input.fileHandleForWriting.close()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 127 {
            throw failure("error: gnuplot is not installed (Debian: apt install gnuplot-nox)", code: 69)
        }
        // gnuplot warns about panels without data (no other drone airborne) and goes on; only its errors count.
        let size = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? NSNumber)?.intValue ?? 0
        guard process.terminationStatus == 0, size > 0 else {
            throw failure(
                "error: gnuplot could not draw \(out): \(said.trimmingCharacters(in: .whitespacesAndNewlines))", code: 1
            )
        }
        return size
    }
}
