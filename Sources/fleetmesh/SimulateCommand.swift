import ArgumentParser
import Flight
import Foundation
import Geodesy
import Scenarios

/// `fleetmesh simulate SCENARIO.toml [--json]`: runs a scripted multi-drone mission offline, faster than real time.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scripted mission with simulated drones, faster than real time.",
        discussion: """
            The scenario (TOML) names a map origin, drones, moving targets and timed actions \
            (takeoff, land, hold, goto, follow, trajectory, return-home); see Config/scenarios/. \
            Reports per drone: distance flown, flight time, final position error, battery left, refused commands.
            """)

    @Argument(help: "Scenario file (TOML).")
    var scenario: String

    @Flag(name: .long, help: "Print the report as JSON on standard output (progress goes to standard error).")
    var json = false

    @Flag(name: .long, help: "Do not print progress.")
    var quiet = false

    func run() throws {
        let loaded: Scenario
        let runner: ScenarioRunner
        do {
            loaded = try ScenarioLoader.load(path: scenario)
            runner = try ScenarioRunner(scenario: loaded)
        } catch {
            throw SimulateError(description: "\(error)")
        }
        let started = ContinuousClock.now
        let report = runner.run { progress in
            guard !quiet else { return }
            var text = ""
            for line in progress.log { text += "  \(line)\n" }
            text += "t=\(formatFixed(progress.time, 1)) s"
            for (id, t) in progress.drones {
                let p = t.state.position
                text += "  \(id): \(t.activity.rawValue) (\(formatFixed(p.x, 1)), \(formatFixed(p.y, 1)), \(formatFixed(p.z, 1))) \(formatFixed(t.batteryPercent, 0))%"
            }
            if json { FileHandle.standardError.write(Data((text + "\n").utf8)) } else { print(text) }
        }
        let wall = (ContinuousClock.now - started)
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) * 1e-18
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print("\n\(report.name): \(formatFixed(report.simulatedTime, 1)) s simulated in \(formatFixed(wallSeconds, 2)) s "
              + "(\(formatFixed(report.simulatedTime / max(wallSeconds, 1e-9), 0))× real time)")
        print(pad("drone", 10) + pad("distance m", 12) + pad("flight s", 10) + pad("final error m", 15) + pad("battery %", 11) + "state")
        for d in report.drones {
            print(pad(d.id, 10) + pad(formatFixed(d.distanceFlown, 1), 12) + pad(formatFixed(d.flightTime, 1), 10)
                  + pad(d.finalPositionError.map { formatFixed($0, 2) } ?? "-", 15) + pad(formatFixed(d.batteryPercent, 1), 11)
                  + d.activity.rawValue)
            for r in d.rejections { print("  refused: \(r)") }
        }
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }
}

/// A scenario that could not be loaded; printed as `Error: <file>: <key>: <problem>`.
struct SimulateError: Error, CustomStringConvertible {
    var description: String
}
