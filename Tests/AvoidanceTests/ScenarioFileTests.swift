import Flight
import Foundation
import Scenarios
import Testing

@testable import Avoidance

@Suite("Avoidance scenario files")
struct ScenarioFileTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config/scenarios")

    func load(_ name: String) throws -> AvoidanceMission {
        try #require(try ScenarioLoader.loadAvoidance(path: Self.directory.appendingPathComponent(name).path))
    }

    /// The file and the library build the same mission.
    func expectSame(_ a: AvoidanceMission, _ b: AvoidanceMission) {
        #expect(
            a.scenario.name == b.scenario.name && a.scenario.duration == b.scenario.duration
                && a.scenario.step == b.scenario.step)
        #expect(a.scenario.origin == b.scenario.origin)
        #expect(a.drones == b.drones)
        #expect(a.scenario.drones.count == b.scenario.drones.count)
        for (x, y) in zip(a.scenario.drones, b.scenario.drones) {
            #expect(x.id == y.id && x.home.distance(to: y.home) < 1e-9, "\(x.id) at \(x.home), \(y.id) at \(y.home)")
        }
        #expect(a.scenario.events.count == b.scenario.events.count)
        for (x, y) in zip(a.scenario.events, b.scenario.events) {
            #expect(x.time == y.time && x.drone == y.drone && x.action.name == y.action.name)
            if case .command(.goto(.local(let p), let s)) = x.action,
                case .command(.goto(.local(let q), let t)) = y.action
            {
                #expect(p.distance(to: q) < 1e-9 && s == t)
            }
        }
        #expect(a.configuration == b.configuration)
        #expect(a.communication == b.communication)
        #expect(
            a.measureFrom == b.measureFrom && a.predictionSource == b.predictionSource
                && a.decisionInterval == b.decisionInterval)
    }

    @Test("every avoid-*.toml file loads to the library mission of the same name")
    func filesMatchLibrary() throws {
        for n in [8, 16, 32, 64] { expectSame(try load("avoid-circle-\(n).toml"), .antipodalCircle(drones: n)) }
        expectSame(try load("avoid-shared-target.toml"), .sharedTarget(drones: 8))
        expectSame(try load("avoid-head-on.toml"), .headOn())
        expectSame(try load("avoid-crossing.toml"), .crossing())
        expectSame(try load("avoid-overtaking.toml"), .overtaking())
        expectSame(try load("avoid-lost-link.toml"), .lostLink())
        // Scenarios without [avoidance] are not avoidance missions.
        #expect(
            try ScenarioLoader.loadAvoidance(path: Self.directory.appendingPathComponent("square-patrol.toml").path)
                == nil)
    }

    @Test("a file runs to the same report as its library mission")
    func fileRuns() throws {
        var a = try AvoidanceSimulation(mission: try load("avoid-crossing.toml"))
        var b = try AvoidanceSimulation(mission: .crossing())
        let r = a.run()
        #expect(r == b.run())
        #expect(r.violations == 0 && r.arrivalTime != nil)
    }

    @Test("bad avoidance settings are refused naming the key")
    func errors() {
        let base = """
            name = "x"
            duration = 10.0
            [origin]
            latitude = 50.0
            longitude = 14.0
            [[drones]]
            id = "a"
            [[drones]]
            id = "b"
            """
        func problem(_ extra: String, drones: String = "") -> String? {
            do {
                _ = try ScenarioLoader.parseAvoidance(
                    base.replacingOccurrences(of: "[[drones]]\nid = \"b\"", with: "[[drones]]\nid = \"b\"\n" + drones)
                        + "\n" + extra, file: "t.toml")
                return nil
            } catch { return error.description }
        }
        #expect(
            problem("[avoidance]\nlayer_spacing = 3.0")
                == "t.toml: avoidance.layer_spacing: must exceed vertical_separation plus vertical_buffer (3.5 m)")
        #expect(
            problem("[avoidance]\nhorizon = 3")
                == "t.toml: avoidance.horizon: unknown field (known: communication, compare_solo, decision_interval, geofence, horizontal_buffer, horizontal_separation, layer_spacing, measure_from, parking_spacing, predictions, reaction_time, vertical_buffer, vertical_separation)"
        )
        #expect(
            problem(
                "[avoidance]\n[avoidance.geofence]\npolygon = [[0, 0], [1, 0]]\nmin_altitude = 2\nmax_altitude = 30")
                == "t.toml: avoidance.geofence.polygon: a geofence needs at least 3 corners, found 2")
        #expect(
            problem(
                "[avoidance]\n[avoidance.geofence]\npolygon = [[0, 0], [10, 0], [0, 10]]\nmin_altitude = 30\nmax_altitude = 30"
            )?.hasPrefix("t.toml: avoidance.geofence.polygon: minimum altitude") == true)
        #expect(
            problem("[avoidance]\n[avoidance.communication]\nloss = 1.5")
                == "t.toml: avoidance.communication.loss: must be 0…1, found 1.5")
        #expect(
            problem("[avoidance]\npredictions = \"magic\"")
                == "t.toml: avoidance.predictions: expected \"navigator\" or \"model\", found \"magic\"")
        #expect(problem("[avoidance]", drones: "uav = 1") == "t.toml: drones[1].uav: UAV number 1 is used twice")
        #expect(problem("[avoidance]", drones: "uav = 300") == "t.toml: drones[1].uav: must be 1…250, found 300")
        #expect(
            problem("[avoidance]", drones: "start_altitude = -3")
                == "t.toml: drones[1].start_altitude: must be in (0, 500] m, found -3.0")
        // Avoidance keys on drones are accepted by the plain loader too, and the geofence takes latitude/longitude.
        #expect(problem("", drones: "uav = 7\navoids = false\nlost_link_at = 3.0") == nil)
        #expect(
            problem(
                "[avoidance]\n[avoidance.geofence]\ncorners = [[50.001, 14.001], [49.999, 14.001], [49.999, 13.999]]\nmin_altitude = 2\nmax_altitude = 30"
            ) == nil)
    }
}
