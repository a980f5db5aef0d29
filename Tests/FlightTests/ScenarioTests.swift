import Foundation
import Geodesy
import Testing

@testable import Flight
@testable import Scenarios

@Suite("Offline scenarios")
struct ScenarioTests {
    /// Config/scenarios in the repository (two levels above this test folder).
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config/scenarios")

    func runExample(_ name: String) throws -> ScenarioReport {
        let scenario = try ScenarioLoader.load(path: Self.examples.appendingPathComponent(name).path)
        return try ScenarioRunner(scenario: scenario).run()
    }

    @Test("square patrol flies its trajectory and lands back home")
    func squarePatrol() throws {
        var started = false
        let scenario = try ScenarioLoader.load(path: Self.examples.appendingPathComponent("square-patrol.toml").path)
        let report = try ScenarioRunner(scenario: scenario).run { p in
            if p.log.contains(where: { $0.contains("trajectory started") }) { started = true }
        }
        let alpha = try #require(report.drones.first)
        #expect(started)
        #expect(alpha.activity == .landed)
        #expect(try #require(alpha.finalPositionError) < 0.1)
        #expect(alpha.distanceFlown > 300 && alpha.distanceFlown < 420, "square 240 m + legs: \(alpha.distanceFlown)")
        #expect(alpha.batteryPercent > 70 && alpha.batteryPercent < 90)
        #expect(alpha.rejections.isEmpty)
    }

    @Test("three drones follow the walker within a few metres; the early goto is refused")
    func threeDronesFollow() throws {
        let report = try runExample("three-drones-follow.toml")
        #expect(report.drones.map(\.id) == ["lead", "left", "right"])
        for d in report.drones {
            #expect(d.activity == .following)
            #expect(try #require(d.finalPositionError) < 3, "\(d.id) error \(String(describing: d.finalPositionError))")
        }
        #expect(report.drones[0].rejections == ["t=0.0 goto: not airborne"])
    }

    @Test("low battery brings the scout home and later commands are refused")
    func lowBatteryReturn() throws {
        let report = try runExample("low-battery-return.toml")
        let scout = try #require(report.drones.first)
        #expect(scout.activity == .landed)
        #expect(try #require(scout.finalPositionError) < 0.6)
        #expect(scout.batteryPercent < 20)
        #expect(scout.rejections.count == 1)
    }

    @Test("a scenario runs the same twice (seeded)")
    func deterministic() throws {
        #expect(try runExample("three-drones-follow.toml") == runExample("three-drones-follow.toml"))
    }

    static let valid = """
        duration = 10
        [origin]
        latitude = 59.9
        longitude = 10.7
        [[drones]]
        id = "a"
        [[events]]
        at = 0
        drone = "a"
        action = "takeoff"
        altitude = 5

        """

    @Test("a minimal scenario parses")
    func minimal() throws {
        let s = try ScenarioLoader.parse(Self.valid, file: "min.toml")
        #expect(s.drones.count == 1 && s.events.count == 1 && s.step == 0.02 && s.name == "scenario")
        let report = try ScenarioRunner(scenario: s).run()
        #expect(abs(report.drones[0].finalPosition.z - 5) < 0.3)
    }

    @Test(
        "malformed scenarios name the file, the key and the problem",
        arguments: [
            ("duration = 10\n", "origin", "missing [origin] table"),
            (
                valid.replacingOccurrences(of: "altitude = 5", with: "altitdue = 5"), "events[0].altitdue",
                "unknown field"
            ),
            (
                valid.replacingOccurrences(of: "\"takeoff\"", with: "\"fly\""), "events[0].action",
                "unknown action 'fly'"
            ),
            (
                valid.replacingOccurrences(of: "drone = \"a\"", with: "drone = \"b\""), "events[0].drone",
                "no drone with id 'b'"
            ),
            (
                valid.replacingOccurrences(of: "altitude = 5", with: "altitude = \"high\""), "events[0].altitude",
                "expected a number, found string"
            ),
            (
                valid.replacingOccurrences(of: "latitude = 59.9", with: "latitude = 99.9"), "origin.latitude",
                "outside -90…90"
            ),
            (valid.replacingOccurrences(of: "duration = 10", with: "duration = "), "(syntax)", "line 1"),
            (valid.replacingOccurrences(of: "duration = 10", with: "duration = -1"), "duration", "positive"),
            (
                valid + "[[events]]\nat = 1\ndrone = \"a\"\naction = \"follow\"\ntarget = \"ghost\"\n",
                "events[1].target", "no target with id 'ghost'"
            ),
            (
                valid + "[[events]]\nat = 1\ndrone = \"a\"\naction = \"trajectory\"\nwaypoints = [[0, 0, 5], [1, 2]]\n",
                "events[1].waypoints[1]", "expected 3 numbers"
            ),
            (
                valid + "[[events]]\nat = 1\ndrone = \"a\"\naction = \"goto\"\neast = 1\nnorth = 2\n", "events[1].up",
                "missing"
            ),
            (valid + "[[drones]]\nid = \"a\"\n", "drones[1].id", "duplicate drone id 'a'"),
            (
                valid.replacingOccurrences(of: "id = \"a\"", with: "id = \"a\"\nwind = [1, \"x\"]"),
                "drones[0].wind[1]", "expected a number"
            ),
            (
                valid.replacingOccurrences(of: "longitude = 10.7", with: "longitude = 10.7\nzone = \"32X\""),
                "origin.zone", "hemisphere letter"
            ),
        ])
    func malformed(text: String, key: String, problem: String) {
        do {
            _ = try ScenarioLoader.parse(text, file: "bad.toml")
            Issue.record("accepted a malformed scenario")
        } catch {
            #expect(error.file == "bad.toml")
            #expect(error.key == key, "\(error)")
            #expect(error.problem.contains(problem), "\(error)")
            #expect(error.description.hasPrefix("bad.toml: \(key): "))
        }
    }

    @Test("a missing file is reported with its path")
    func missingFile() {
        #expect(throws: ScenarioError.self) { try ScenarioLoader.load(path: "/nonexistent/x.toml") }
    }

    @Test("moving targets: position along a looping path")
    func targetPath() {
        let t = Scenario.Target(
            id: "t", path: [Vector3(0, 0, 0), Vector3(10, 0, 0), Vector3(10, 10, 0)], speed: 2, loop: true, startTime: 5
        )
        #expect(t.observation(at: 0).position == Vector3(0, 0, 0))
        #expect(t.observation(at: 0).velocity == .zero)
        #expect(t.observation(at: 7.5).position == Vector3(5, 0, 0))
        #expect(t.observation(at: 7.5).velocity == Vector3(2, 0, 0))
        #expect(t.observation(at: 12.5).position == Vector3(10, 5, 0))
        // Perimeter 10 + 10 + √200 ≈ 34.14 m; one lap takes ≈ 17.07 s.
        let lap = (20 + 200.0.squareRoot()) / 2
        #expect(t.observation(at: 5 + lap + 2.5).position.distance(to: Vector3(5, 0, 0)) < 1e-9)
    }
}

@Suite("Inspection scenarios")
struct InspectionScenarioTests {
    static let base = """
        name = "inspect"
        duration = 100.0
        [origin]
        latitude = 59.9
        longitude = 10.7
        [[drones]]
        id = "a"
        home = [0.0, 0.0]

        """

    @Test("the shipped scenario parses: bridge site, 3 m/s, 3 m takeoff")
    func shipped() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/scenarios/inspect-bridge.toml").path
        let m = try #require(try ScenarioLoader.loadInspection(path: path))
        #expect(m.site == .example("bridge"))
        #expect(m.drone.id == "inspector")
        #expect(m.settings.limits.maxSpeed == 3 && m.takeoffAltitude == 3 && m.settings.clearance == 1)
    }

    @Test(
        "bad inspection tables are refused with the key named",
        arguments: [
            ("[inspection]\nsite = \"moon\"", "inspection.site: 'moon' is not a site"),
            (
                "[inspection]\nmap = \"a.pcd\"",
                "inspection.site: give either site = NAME, or both map = FILE and points = FILE"
            ),
            ("[inspection]\nsite = \"hall\"\ndrone = \"b\"", "inspection.drone: no drone with id 'b'"),
            ("[inspection]\nsite = \"hall\"\nclearance = -1.0", "inspection.clearance: must be positive"),
            ("[inspection]\nsite = \"hall\"\nspeed = 9.0", "inspection.speed: must be in (0, 4.0] m/s"),
            ("[inspection]\nsite = \"hall\"\nwings = 2", "inspection.wings: unknown field"),
        ])
    func refused(table: String, message: String) {
        #expect {
            _ = try ScenarioLoader.parseInspection(Self.base + table)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test("files are resolved against the scenario's directory")
    func files() throws {
        let m = try #require(
            try ScenarioLoader.parseInspection(
                Self.base + "[inspection]\nmap = \"site.pcd\"\npoints = \"/abs/points.csv\"", directory: "/missions"))
        #expect(m.site == .files(map: "/missions/site.pcd", points: "/abs/points.csv"))
    }
}
