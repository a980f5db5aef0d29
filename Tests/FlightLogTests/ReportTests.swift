import Foundation
import Testing

@testable import FlightLog

/// What a reviewer is handed: a flight's plot script for gnuplot, and a mission's bundle of files.
@Suite struct ReportTests {
    /// Two runs of a station: a flight of UAV 3 in the first, of UAV 4 in the second, with an event and a goto.
    func twoMissions() async throws -> (TemporaryLog, FlightLogStore) {
        let (dir, store, first) = try freshLog()
        try await store.append(
            flight(node: "a", uav: 3, start: missionStartMs + 1_000, seconds: 10).map { .telemetry($0) }
                + [
                    .event(
                        EventRecord(
                            timeMs: missionStartMs + 4_000, kind: "command", level: "notice",
                            text: "command c-9 goto rejected: \"busy\", try later", uavNumber: 3)),
                    .plan(
                        PlanRecord(
                            command: "c-1", timeMs: missionStartMs + 3_500, uavNumber: 3, kind: "goto", speed: 5,
                            waypoints: [[50.0756, 14.4378, 10]])),
                ], run: first, dropped: 0, nowMs: missionStartMs + 20_000)
        var later = run
        later.startedMs = missionStartMs + 600_000
        let second = try store.beginRun(later)
        try await store.append(
            flight(node: "b", uav: 4, start: missionStartMs + 601_000, seconds: 5).map { .telemetry($0) },
            run: second, dropped: 2, nowMs: missionStartMs + 620_000)
        return (dir, store)
    }

    @Test func missionsAreRunsAndABundleHoldsOnlyItsOwn() async throws {
        let (dir, store) = try await twoMissions()
        defer { dir.remove() }
        let missions = try MissionBundle.missions(store)
        #expect(missions.map(\.number) == [1, 2])
        #expect(missions[0].toMs == missions[1].fromMs)
        #expect(missions[1].toMs == missionStartMs + 620_000 && missions[1].dropped == 2)
        let first = try MissionBundle.make(store, mission: missions[0])
        #expect(first.flights.map(\.uavNumber) == [3])
        let paths = first.files.map(\.path)
        #expect(paths.contains("tlogs/uav-3.tlog") && !paths.contains("tlogs/uav-4.tlog"), "\(paths)")
        #expect(paths.contains("plans/flight-1.plan") && paths.contains("fleet/tracks.geojson"), "\(paths)")
        // Events as CSV: a text with quotes and commas stays one field.
        let events = String(decoding: try #require(first.files.first { $0.path == "events.csv" }).bytes, as: UTF8.self)
        let lines = events.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[1].hasSuffix(",\"command c-9 goto rejected: \"\"busy\"\", try later\""), "\(lines[1])")
        let readme = first.readme(plots: ["plots/flight-1.svg"], plotProblem: nil)
        #expect(readme.contains("FleetMesh mission 1, recorded by station-a") && readme.contains("flight 1  UAV 3"))
        let second = try MissionBundle.make(store, mission: missions[1])
        #expect(second.flights.map(\.uavNumber) == [4])
        #expect(!second.files.map(\.path).contains { $0.hasPrefix("plans/") })
    }

    @Test func plotScriptHasEverySampleFourPanelsAndAQuotedOutput() async throws {
        let (dir, store) = try await twoMissions()
        defer { dir.remove() }
        let track = try #require(try store.track(of: 1))
        let own = try #require(track.vehicles.first { $0.own })
        let script = FlightPlot.script(track, format: .svg, output: "/tmp/o'brien.svg", separationMetres: 5)
        #expect(script.contains("set output '/tmp/o''brien.svg'"))
        let block = script.components(separatedBy: "$samples << EOD\n")[1].components(separatedBy: "EOD")[0]
        #expect(block.split(separator: "\n").count == own.points.count)
        #expect(script.components(separatedBy: "\nplot ").count - 1 == 4)
        #expect(script.contains("separation limit (5.0 m)") && script.contains("(none in the air)"))
        #expect(FlightPlot.Format(file: "report/flight.PNG") == .png && FlightPlot.Format(file: "flight.bmp") == nil)
    }
}
