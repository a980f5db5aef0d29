import ArgumentParser
import Avoidance
import Flight
import Foundation
import Geodesy
import Scenarios

/// `fleetmesh simulate SCENARIO.toml [--json]`: runs a scripted multi-drone mission offline, faster than real time.
struct SimulateCommand: ParsableCommand {
    /// Wall-clock seconds since `start`.
    static func seconds(since start: ContinuousClock.Instant) -> Double { (ContinuousClock.now - start).inSeconds }

    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scripted mission with simulated drones, faster than real time.",
        discussion: """
            The scenario (TOML) names a map origin, drones, moving targets and timed actions \
            (takeoff, land, hold, goto, follow, trajectory, return-home); see Config/scenarios/. \
            Reports per drone: distance flown, flight time, final position error, battery left, refused commands. \
            A scenario with an [avoidance] table flies with collision avoidance and reports separation, losses of \
            separation, arrival time and distance against flying alone (Config/scenarios/avoid-*.toml). \
            A scenario with an [inspection] table plans a route through snapshot points in a point-cloud map and \
            flies it, reporting the drone's minimum distance to the cloud (Config/scenarios/inspect-*.toml).
            """)

    @Argument(help: "Scenario file (TOML).")
    var scenario: String

    @Flag(name: .long, help: "Print the report as JSON on standard output (progress goes to standard error).")
    var json = false

    @Flag(name: .long, help: "Do not print progress.")
    var quiet = false

    func run() throws {
        let inspection: InspectionMission?
        do { inspection = try ScenarioLoader.loadInspection(path: scenario) } catch {
            throw SimulateError(description: "\(error)")
        }
        if let inspection { return try runInspection(inspection) }
        let avoidance: AvoidanceMission?
        do { avoidance = try ScenarioLoader.loadAvoidance(path: scenario) } catch {
            throw SimulateError(description: "\(error)")
        }
        if let avoidance { return try runAvoidance(avoidance) }
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
                text +=
                    "  \(id): \(t.activity.rawValue) (\(formatFixed(p.x, 1)), \(formatFixed(p.y, 1)), \(formatFixed(p.z, 1))) \(formatFixed(t.batteryPercent, 0))%"
            }
            if json { FileHandle.standardError.write(Data((text + "\n").utf8)) } else { print(text) }
        }
        let wallSeconds = Self.seconds(since: started)
        if json { return try printJSON(report) }
        print(
            "\n\(report.name): \(formatFixed(report.simulatedTime, 1)) s simulated in \(formatFixed(wallSeconds, 2)) s "
                + "(\(formatFixed(report.simulatedTime / max(wallSeconds, 1e-9), 0))× real time)")
        print(
            pad("drone", 10) + pad("distance m", 12) + pad("flight s", 10) + pad("final error m", 15)
                + pad("battery %", 11) + "state")
        for d in report.drones {
            print(
                pad(d.id, 10) + pad(formatFixed(d.distanceFlown, 1), 12) + pad(formatFixed(d.flightTime, 1), 10)
                    + pad(d.finalPositionError.map { formatFixed($0, 2) } ?? "-", 15)
                    + pad(formatFixed(d.batteryPercent, 1), 11)
                    + d.activity.rawValue)
            for r in d.rejections { print("  refused: \(r)") }
        }
    }

    /// Flies a scenario with collision avoidance and prints its report.
    func runAvoidance(_ mission: AvoidanceMission) throws {
        var sim: AvoidanceSimulation
        do { sim = try AvoidanceSimulation(mission: mission) } catch { throw SimulateError(description: "\(error)") }
        let started = ContinuousClock.now
        let every = mission.scenario.progressInterval
        var next = 0.0
        while !sim.finished {
            sim.step()
            if !quiet && sim.time >= next - 1e-9 {
                next += every
                let st = sim.status
                let text =
                    "t=\(formatFixed(st.time, 1)) s  avoiding \(st.avoiding), giving way \(st.yielding), minimum separation "
                    + (st.minimumSeparation.map { formatFixed($0, 2) + " m" } ?? "-")
                    + ", losses of separation \(st.violations)"
                if json { FileHandle.standardError.write(Data((text + "\n").utf8)) } else { print(text) }
            }
        }
        let report = sim.report()
        let wallSeconds = Self.seconds(since: started)
        if json { return try printJSON(report) }
        func f(_ v: Double?, _ d: Int) -> String { v.map { formatFixed($0, d) } ?? "-" }
        print(
            "\n\(report.name): \(formatFixed(report.simulatedTime, 1)) s simulated in \(formatFixed(wallSeconds, 2)) s "
                + "(\(formatFixed(report.simulatedTime / max(wallSeconds, 1e-9), 0))× real time); timed from \(formatFixed(report.measuredFrom, 1)) s"
        )
        print(
            pad("drone", 8) + pad("uav", 5) + pad("arrival s", 11) + pad("alone s", 9) + pad("distance m", 12)
                + pad("alone m", 9) + "end")
        for d in report.drones {
            let end =
                !d.avoidingAtEnd
                ? "not avoiding"
                : d.destination == nil
                    ? "-" : d.arrival == nil ? "not arrived" : d.parked ? "parked beside its goal" : "at its goal"
            print(
                pad(d.id, 8) + pad("\(d.uavNumber)", 5) + pad(f(d.arrival, 1), 11) + pad(f(d.soloArrival, 1), 9)
                    + pad(formatFixed(d.distance, 1), 12) + pad(f(d.soloDistance, 1), 9) + end)
        }
        print(
            "minimum separation     " + f(report.minimumSeparation, 2) + " m (horizontal, while vertically closer than "
                + "\(formatFixed(mission.configuration.verticalSeparation, 1)) m); minimum distance "
                + f(report.minimumDistance, 2) + " m")
        print("losses of separation   \(report.violations) (\(formatFixed(report.violationSeconds, 2)) pair-seconds)")
        if report.nonAvoidingViolations > 0 || mission.drones.contains(where: { !$0.avoids || $0.lostLinkAt != nil }) {
            print(
                "  with non-avoiding    \(report.nonAvoidingViolations) (\(formatFixed(report.nonAvoidingViolationSeconds, 2)) pair-seconds), "
                    + "minimum separation " + f(report.minimumSeparationToNonAvoiding, 2) + " m")
        }
        if mission.configuration.geofence != nil { print("geofence exits         \(report.fenceExits)") }
        print(
            "all arrived after      " + f(report.arrivalTime, 1) + " s; alone " + f(report.soloArrivalTime, 1) + " s: "
                + f(report.timeRatio, 2) + "×"
                + (report.unarrived.isEmpty ? "" : "  (not arrived: \(report.unarrived.joined(separator: ", ")))"))
        print(
            "distance flown         \(formatFixed(report.distance, 0)) m; alone " + f(report.soloDistance, 0) + " m: "
                + (report.extraDistance.map { ($0 >= 0 ? "+" : "") + formatFixed($0 * 100, 1) + " %" } ?? "-"))
        print(
            "predictions            \(report.published) published, \(report.delivered) delivered, \(report.lost) lost; "
                + "decisions \(report.decisions), without a safe plan \(report.unsafeDecisions)")
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }
}

/// A scenario that could not be loaded; printed as `Error: <file>: <key>: <problem>`.
struct SimulateError: Error, CustomStringConvertible {
    var description: String
}
