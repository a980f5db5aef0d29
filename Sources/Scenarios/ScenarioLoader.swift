import Flight
import Foundation
import Geodesy
import TOMLKit

/// Reads offline mission scenarios from TOML (see `Config/scenarios/*.toml` for the commented format).
public enum ScenarioLoader {
    /// Reads and validates a scenario file.
    /// - Throws: ``ScenarioError`` naming the file, the key (like `events[3].altitude`) and the problem.
    public static func load(path: String) throws(ScenarioError) -> Scenario {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ScenarioError(file: path, key: "(file)", problem: "cannot read: \(error.localizedDescription)")
        }
        return try parse(text, file: path)
    }

    /// Parses scenario TOML text. `file` is only used in error messages.
    public static func parse(_ text: String, file: String? = nil) throws(ScenarioError) -> Scenario {
        let root = try ScenarioFields.scenario(text, file: file)
        try root.rejectUnknownKeys([
            "name", "duration", "step", "progress_interval", "origin", "drones", "targets", "events", "avoidance",
            "inspection",
        ])
        guard let originTable = try root.subtable("origin") else {
            throw root.error("origin", "missing [origin] table")
        }
        let origin = try parseOrigin(originTable)
        let drones = try root.tables("drones").map { (t) throws(ScenarioError) -> Scenario.Drone in try parseDrone(t) }
        let targets = try root.tables("targets").map { (t) throws(ScenarioError) -> Scenario.Target in
            try parseTarget(t)
        }
        let events = try root.tables("events").map { (t) throws(ScenarioError) -> Scenario.Event in
            try parseEvent(t, origin: origin)
        }
        let scenario = Scenario(
            name: try root.string("name") ?? "scenario", origin: origin,
            duration: try root.requiredNumber("duration"), step: try root.number("step", default: 0.02),
            progressInterval: try root.number("progress_interval", default: 10),
            drones: drones, targets: targets, events: events)
        do { _ = try ScenarioRunner(scenario: scenario) } catch {
            var e = error
            e.file = file
            throw e
        }
        return scenario
    }

    static func parseOrigin(_ t: ScenarioFields) throws(ScenarioError) -> MapOrigin {
        try t.rejectUnknownKeys(["latitude", "longitude", "altitude", "zone"])
        let lat = try t.requiredNumber("latitude"), lon = try t.requiredNumber("longitude")
        guard (-90...90).contains(lat) else { throw t.error("latitude", "\(lat) is outside -90…90") }
        var forced: Int?
        if let z = try t.string("zone") {
            do { forced = try UTMZone(parsing: z).number } catch { throw t.error("zone", error.description) }
        }
        let altitude = try t.number("altitude", default: 0)
        do { return try MapOrigin(latitude: lat, longitude: lon, altitude: altitude, forcedZone: forced) } catch {
            throw t.error("latitude", error.description)
        }
    }

    static func parseDrone(_ t: ScenarioFields) throws(ScenarioError) -> Scenario.Drone {
        try t.rejectUnknownKeys(
            Set([
                "id", "home", "heading", "battery", "max_speed", "gps_noise", "wind", "gust", "seed",
                "return_altitude", "low_battery", "takeoff_min_battery",
            ]).union(avoidanceDroneKeys))
        let id = try t.requiredString("id")
        var sim = SimulatorConfiguration()
        var nav = NavigatorConfiguration()
        if let v = try t.number("max_speed") {
            guard v > 0 && v <= 20 else { throw t.error("max_speed", "must be in (0, 20] m/s, found \(v)") }
            sim.limits.maxHorizontalSpeed = v
            nav.limits.maxHorizontalSpeed = v
            nav.defaultSpeed = v
        }
        sim.gpsNoise = try t.number("gps_noise", default: 0)
        guard sim.gpsNoise >= 0 else { throw t.error("gps_noise", "must be ≥ 0") }
        sim.wind = try t.vector("wind") ?? .zero
        sim.gustStrength = try t.number("gust", default: 0)
        guard sim.gustStrength >= 0 else { throw t.error("gust", "must be ≥ 0") }
        if let seed = try t.integer("seed") {
            guard seed >= 0 else { throw t.error("seed", "must be ≥ 0") }
            sim.seed = UInt64(seed)
        }
        let rtl = try t.number("return_altitude", default: 20)
        guard rtl >= 2 && rtl <= 120 else { throw t.error("return_altitude", "must be 2…120 m, found \(rtl)") }
        sim.returnAltitude = rtl
        nav.returnAltitude = rtl
        let low = try t.number("low_battery", default: 20)
        guard low > sim.criticalBatteryPercent && low < 100 else {
            throw t.error("low_battery", "must be between \(sim.criticalBatteryPercent) and 100 %")
        }
        sim.lowBatteryPercent = low
        nav.lowBatteryPercent = low
        nav.takeoffMinimumBattery = try t.number("takeoff_min_battery", default: nav.takeoffMinimumBattery)
        let battery = try t.number("battery", default: 100)
        guard (0...100).contains(battery) else { throw t.error("battery", "must be 0…100 %, found \(battery)") }
        return Scenario.Drone(
            id: id, home: try t.vector("home") ?? .zero, heading: try t.number("heading", default: 0),
            batteryPercent: battery, simulator: sim, navigator: nav)
    }

    static func parseTarget(_ t: ScenarioFields) throws(ScenarioError) -> Scenario.Target {
        try t.rejectUnknownKeys(["id", "path", "speed", "loop", "start"])
        let id = try t.requiredString("id")
        guard let path = try t.points("path"), !path.isEmpty else {
            throw t.error("path", "missing (at least one [east, north, up] point)")
        }
        let speed = try t.number("speed", default: 0)
        guard speed >= 0 && speed <= 30 else { throw t.error("speed", "must be 0…30 m/s, found \(speed)") }
        return Scenario.Target(
            id: id, path: path, speed: speed, loop: try t.bool("loop", default: false),
            startTime: try t.number("start", default: 0))
    }

    static func parseEvent(_ t: ScenarioFields, origin: MapOrigin) throws(ScenarioError) -> Scenario.Event {
        let time = try t.requiredNumber("at")
        guard time >= 0 else { throw t.error("at", "must be ≥ 0 seconds, found \(time)") }
        let drone = try t.requiredString("drone")
        let actionName = try t.requiredString("action")
        let common: Set = ["at", "drone", "action"]
        let action: Scenario.Action
        switch actionName {
        case "takeoff":
            try t.rejectUnknownKeys(common.union(["altitude"]))
            action = .command(.takeoff(altitude: try t.requiredNumber("altitude")))
        case "land":
            try t.rejectUnknownKeys(common)
            action = .command(.land)
        case "hold":
            try t.rejectUnknownKeys(common)
            action = .command(.hold)
        case "return-home":
            try t.rejectUnknownKeys(common)
            action = .command(.returnHome)
        case "goto":
            try t.rejectUnknownKeys(
                common.union(["east", "north", "up", "latitude", "longitude", "altitude", "speed"]))
            let location: Location
            if t.has("latitude") || t.has("longitude") {
                guard !t.has("east") && !t.has("north") else {
                    throw t.error("east", "give either east/north/up or latitude/longitude/altitude, not both")
                }
                let lat = try t.requiredNumber("latitude")
                guard (-90...90).contains(lat) else { throw t.error("latitude", "\(lat) is outside -90…90") }
                location = .geodetic(
                    GeodeticCoordinate(
                        latitude: lat, longitude: try t.requiredNumber("longitude"),
                        altitude: try t.requiredNumber("altitude")))
            } else {
                location = .local(
                    Vector3(try t.requiredNumber("east"), try t.requiredNumber("north"), try t.requiredNumber("up")))
            }
            action = .command(.goto(location, speed: try t.number("speed")))
        case "follow":
            try t.rejectUnknownKeys(common.union(["target", "offset"]))
            action = .follow(
                target: try t.requiredString("target"),
                offset: try t.vector("offset", allowTwo: false) ?? Vector3(0, 0, 10))
        case "trajectory":
            try t.rejectUnknownKeys(common.union(["waypoints", "max_speed", "max_acceleration", "max_yaw_rate"]))
            guard let waypoints = try t.points("waypoints"), waypoints.count >= 2 else {
                throw t.error("waypoints", "missing (at least two [east, north, up] points)")
            }
            var limits = TrajectoryPlanner.Limits()
            limits.maxSpeed = try t.number("max_speed", default: limits.maxSpeed)
            limits.maxAcceleration = try t.number("max_acceleration", default: limits.maxAcceleration)
            limits.maxYawRate = try t.number("max_yaw_rate", default: limits.maxYawRate)
            for (k, v) in [
                ("max_speed", limits.maxSpeed), ("max_acceleration", limits.maxAcceleration),
                ("max_yaw_rate", limits.maxYawRate),
            ] where !(v > 0) {
                throw t.error(k, "must be positive, found \(v)")
            }
            action = .trajectory(waypoints: waypoints, limits: limits)
        default:
            throw t.error(
                "action",
                "unknown action '\(actionName)' (expected takeoff, land, hold, goto, follow, trajectory, return-home)")
        }
        return Scenario.Event(time: time, drone: drone, action: action)
    }
}
