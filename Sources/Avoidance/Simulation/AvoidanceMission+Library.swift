import Determinism
import Flight
import Foundation
import Geodesy

/// The standard avoidance scenarios, built in code (the same ones as `Config/scenarios/avoid-*.toml`).
extension AvoidanceMission {
    /// The map origin the library uses.
    public static let libraryOrigin = try! MapOrigin(latitude: 50.0755, longitude: 14.4378, altitude: 0)

    /// Seconds the library's drones get to take off and settle before the timed part starts.
    public static let settleTime = 12.0

    /// The radius of ORCA's drone-scaled circle benchmark for `n` drones: max(30 m, n · 5 / π m), so that neighbours
    /// start about 10 m apart (30 m for 8 and 16 drones, 50.9 m for 32, 101.9 m for 64, 203.7 m for 128).
    public static func circleRadius(drones n: Int) -> Double { max(30, Double(n) * 5 / Double.pi) }

    /// The antipodal circle: `n` drones evenly on a circle of `radius` metres (default ``circleRadius(drones:)``, ORCA's
    /// geometry), each sent at once to the opposite point (the ORCA/RVO2 benchmark). Drone `k` flies at
    /// `altitudes[k % altitudes.count]` (one altitude: the benchmark as ORCA flies it); each home is moved by up to
    /// ±`noise` metres east and north (uniform, drawn from `seed`), as ORCA's start noise, without which its symmetric
    /// start deadlocks. Goals are the exact antipodes of the unmoved points. UAV numbers run around the circle.
    public static func antipodalCircle(
        drones n: Int, radius: Double? = nil, altitudes: [Double] = [20], noise: Double = 0.3,
        seed: UInt64 = 1
    ) -> AvoidanceMission {
        let radius = radius ?? circleRadius(drones: n)
        var rng = SeededRandom(seed: seed)
        var drones: [Scenario.Drone] = []
        var events: [Scenario.Event] = []
        for k in 0..<n {
            let a = 2 * Double.pi * Double(k) / Double(n)
            let point = Vector3(radius * cos(a), radius * sin(a), 0)
            let dx = noise > 0 ? Double.random(in: -noise...noise, using: &rng) : 0
            let dy = noise > 0 ? Double.random(in: -noise...noise, using: &rng) : 0
            let home = Vector3(point.x + dx, point.y + dy, 0)
            let altitude = altitudes[k % altitudes.count]
            let id = "c\(k + 1)"
            drones.append(Scenario.Drone(id: id, home: home))
            events.append(Scenario.Event(time: 0, drone: id, action: .command(.takeoff(altitude: altitude))))
            events.append(
                Scenario.Event(
                    time: settleTime, drone: id,
                    action: .command(.goto(.local(Vector3(-point.x, -point.y, altitude)), speed: nil))))
        }
        let straight = 2 * radius / 4
        let name = altitudes.count > 1 ? "circle-\(n)-\(altitudes.count)-altitudes" : "circle-\(n)"
        let scenario = Scenario(
            name: name, origin: libraryOrigin, duration: settleTime + straight * 3 + 40, drones: drones, events: events)
        var mission = AvoidanceMission(scenario: scenario, configuration: fenced(radius + 20, ceiling: 70))
        mission.measureFrom = settleTime
        return mission
    }

    /// Random crossings: `n` drones at one altitude on a circle of ``circleRadius(drones:)``, each sent at once to a
    /// point on the far side, so that paths cross at random angles and places instead of all in the centre. Starts
    /// and goals are `n` slots evenly around the circle, each moved by up to a fifth of the spacing (so at least 6 m
    /// apart); each drone, in random order, takes a random free goal slot whose bearing is its own turned by 120–240°
    /// (the free slot nearest the opposite point when none is).
    public static func randomCrossing(drones n: Int, seed: UInt64 = 1, altitude: Double = 20) -> AvoidanceMission {
        let radius = circleRadius(drones: n)
        var rng = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 0x6A09_E667)
        let slot = 2 * Double.pi / Double(n)
        let starts = (0..<n).map { (Double($0) + Double.random(in: -0.2...0.2, using: &rng)) * slot }
        let slots = (0..<n).map { (Double($0) + 0.5 + Double.random(in: -0.2...0.2, using: &rng)) * slot }
        var free = Array(0..<n)
        var goals = [Double](repeating: 0, count: n)
        for k in (0..<n).shuffled(using: &rng) {
            func turn(_ g: Int) -> Double { abs(remainder(slots[g] - starts[k] - Double.pi, 2 * Double.pi)) }
            let allowed = free.filter { turn($0) <= Double.pi / 3 }
            let g = allowed.randomElement(using: &rng) ?? free.min { turn($0) < turn($1) }!
            goals[k] = slots[g]
            free.removeAll { $0 == g }
        }
        var drones: [Scenario.Drone] = []
        var events: [Scenario.Event] = []
        for k in 0..<n {
            let id = "x\(k + 1)"
            drones.append(Scenario.Drone(id: id, home: Vector3(radius * cos(starts[k]), radius * sin(starts[k]), 0)))
            events.append(Scenario.Event(time: 0, drone: id, action: .command(.takeoff(altitude: altitude))))
            let goal = Vector3(radius * cos(goals[k]), radius * sin(goals[k]), altitude)
            events.append(
                Scenario.Event(time: settleTime, drone: id, action: .command(.goto(.local(goal), speed: nil))))
        }
        let scenario = Scenario(
            name: "crossing-\(n)", origin: libraryOrigin, duration: settleTime + 2 * radius / 4 * 3 + 40,
            drones: drones, events: events)
        var mission = AvoidanceMission(scenario: scenario, configuration: fenced(radius + 20, ceiling: 70))
        mission.measureFrom = settleTime
        return mission
    }

    /// `n` drones sent to one target: they must gather around it at safe spacing, not stack on it.
    public static func sharedTarget(drones n: Int, altitude: Double = 15) -> AvoidanceMission {
        var drones: [Scenario.Drone] = []
        var events: [Scenario.Event] = []
        let target = Vector3(0, 60, altitude)
        for k in 0..<n {
            let home = Vector3((Double(k) - Double(n - 1) / 2) * 10, 0, 0)
            let id = "s\(k + 1)"
            drones.append(Scenario.Drone(id: id, home: home))
            events.append(Scenario.Event(time: 0, drone: id, action: .command(.takeoff(altitude: altitude))))
            events.append(
                Scenario.Event(time: settleTime, drone: id, action: .command(.goto(.local(target), speed: nil))))
        }
        let scenario = Scenario(
            name: "shared-target-\(n)", origin: libraryOrigin, duration: settleTime + 90, drones: drones, events: events
        )
        var mission = AvoidanceMission(scenario: scenario, configuration: fenced(Double(n) * 6 + 80, ceiling: 60))
        mission.measureFrom = settleTime
        return mission
    }

    /// Two drones flying at each other at the same altitude.
    public static func headOn(distance: Double = 80, altitude: Double = 15) -> AvoidanceMission {
        pair(
            name: "head-on", a: (Vector3(-distance / 2, 0, 0), Vector3(distance / 2, 0, altitude)),
            b: (Vector3(distance / 2, 0, 0), Vector3(-distance / 2, 0, altitude)), altitude: altitude)
    }

    /// Two drones whose paths cross at right angles, arriving at the crossing together.
    public static func crossing(distance: Double = 80, altitude: Double = 15) -> AvoidanceMission {
        pair(
            name: "crossing", a: (Vector3(-distance / 2, 0, 0), Vector3(distance / 2, 0, altitude)),
            b: (Vector3(0, -distance / 2, 0), Vector3(0, distance / 2, altitude)), altitude: altitude)
    }

    /// A fast drone (4 m/s) catching up with a slow one (1.5 m/s) ahead of it on the same line; the slow one has
    /// right of way (UAV 1).
    public static func overtaking(altitude: Double = 15) -> AvoidanceMission {
        var m = pair(
            name: "overtaking", a: (Vector3(20, 0, 0), Vector3(120, 0, altitude)),
            b: (Vector3(0, 0, 0), Vector3(140, 0, altitude)), altitude: altitude, speeds: (1.5, 4))
        m.scenario.duration = settleTime + 110
        return m
    }

    /// A drone that has lost its link (it does not avoid) flying straight through a line of hovering drones and
    /// through a drone crossing its path; the others get out of its way.
    public static func lostLink(altitude: Double = 15) -> AvoidanceMission {
        var drones = [Scenario.Drone(id: "lost", home: Vector3(-60, 0, 0))]
        var events: [Scenario.Event] = [
            Scenario.Event(time: 0, drone: "lost", action: .command(.takeoff(altitude: altitude))),
            Scenario.Event(
                time: settleTime, drone: "lost", action: .command(.goto(.local(Vector3(60, 0, altitude)), speed: nil))),
        ]
        for k in 0..<4 {
            let id = "h\(k + 1)"
            drones.append(Scenario.Drone(id: id, home: Vector3(Double(k) * 20 - 30, Double(k % 2) * 2, 0)))
            events.append(Scenario.Event(time: 0, drone: id, action: .command(.takeoff(altitude: altitude))))
        }
        drones.append(Scenario.Drone(id: "x", home: Vector3(10, -40, 0)))
        events.append(Scenario.Event(time: 0, drone: "x", action: .command(.takeoff(altitude: altitude))))
        events.append(
            Scenario.Event(
                time: settleTime + 8, drone: "x", action: .command(.goto(.local(Vector3(10, 40, altitude)), speed: nil))
            ))
        let scenario = Scenario(
            name: "lost-link", origin: libraryOrigin, duration: settleTime + 70, drones: drones, events: events)
        var settings = (0..<drones.count).map { AvoidanceMission.Drone(uavNumber: $0 + 2) }
        settings[0] = AvoidanceMission.Drone(uavNumber: 9, lostLinkAt: settleTime)
        var mission = AvoidanceMission(scenario: scenario, drones: settings, configuration: fenced(100, ceiling: 60))
        mission.measureFrom = settleTime
        return mission
    }

    static func pair(
        name: String, a: (Vector3, Vector3), b: (Vector3, Vector3), altitude: Double,
        speeds: (Double?, Double?) = (nil, nil)
    ) -> AvoidanceMission {
        let drones = [Scenario.Drone(id: "a", home: a.0), Scenario.Drone(id: "b", home: b.0)]
        let events = [
            Scenario.Event(time: 0, drone: "a", action: .command(.takeoff(altitude: altitude))),
            Scenario.Event(time: 0, drone: "b", action: .command(.takeoff(altitude: altitude))),
            Scenario.Event(time: settleTime, drone: "a", action: .command(.goto(.local(a.1), speed: speeds.0))),
            Scenario.Event(time: settleTime, drone: "b", action: .command(.goto(.local(b.1), speed: speeds.1))),
        ]
        let span = max((a.1 - a.0).horizontalLength, (b.1 - b.0).horizontalLength)
        let scenario = Scenario(
            name: name, origin: libraryOrigin, duration: settleTime + span / 2 + 40, drones: drones, events: events)
        var mission = AvoidanceMission(scenario: scenario, configuration: fenced(span + 40, ceiling: 60))
        mission.measureFrom = settleTime
        return mission
    }

    /// Default settings with a square geofence of half-width `half` metres, floor 3 m, ceiling `ceiling`.
    static func fenced(_ half: Double, ceiling: Double) -> AvoidanceConfiguration {
        var c = AvoidanceConfiguration()
        c.geofence = try! Geofence.rectangle(east: -half...half, north: -half...half, altitude: 3...ceiling)
        return c
    }
}
