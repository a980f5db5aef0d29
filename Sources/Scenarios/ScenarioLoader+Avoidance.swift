import Avoidance
import Flight
import Foundation
import Geodesy
import TOMLKit

/// Scenarios with collision avoidance: an `[avoidance]` table (with optional `[avoidance.geofence]` and
/// `[avoidance.communication]`) and per-drone `uav`, `avoids`, `lost_link_at`, `start_altitude`.
extension ScenarioLoader {
    /// Per-drone keys that only avoidance scenarios use (accepted, and ignored, by ``parse(_:file:)``).
    static let avoidanceDroneKeys: Set<String> = ["uav", "avoids", "lost_link_at", "start_altitude"]

    /// Reads a scenario file; returns the avoidance mission when it has an `[avoidance]` table, else nil.
    /// - Throws: ``Flight/ScenarioError`` naming the file, the key and the problem.
    public static func loadAvoidance(path: String) throws(ScenarioError) -> AvoidanceMission? {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ScenarioError(file: path, key: "(file)", problem: "cannot read: \(error.localizedDescription)")
        }
        return try parseAvoidance(text, file: path)
    }

    /// Parses scenario TOML text; returns the avoidance mission when it has an `[avoidance]` table, else nil.
    public static func parseAvoidance(_ text: String, file: String? = nil) throws(ScenarioError) -> AvoidanceMission? {
        let scenario = try parse(text, file: file)
        let root = try ScenarioFields.scenario(text, file: file)
        guard let a = try root.subtable("avoidance") else { return nil }
        try a.rejectUnknownKeys([
            "horizontal_separation", "vertical_separation", "horizontal_buffer", "vertical_buffer", "reaction_time",
            "layer_spacing", "parking_spacing", "decision_interval", "measure_from", "compare_solo", "predictions",
            "geofence", "communication",
        ])
        var c = AvoidanceConfiguration()
        c.horizontalSeparation = try positive(a, "horizontal_separation", c.horizontalSeparation)
        c.verticalSeparation = try positive(a, "vertical_separation", c.verticalSeparation)
        c.horizontalBuffer = try a.number("horizontal_buffer", default: c.horizontalBuffer)
        c.verticalBuffer = try a.number("vertical_buffer", default: c.verticalBuffer)
        guard c.horizontalBuffer >= 0, c.verticalBuffer >= 0 else {
            throw a.error("horizontal_buffer", "buffers must be ≥ 0")
        }
        c.reactionTime = try positive(a, "reaction_time", c.reactionTime)
        c.layerSpacing = try positive(a, "layer_spacing", c.layerSpacing)
        guard c.layerSpacing > c.verticalSeparation + c.verticalBuffer else {
            throw a.error(
                "layer_spacing",
                "must exceed vertical_separation plus vertical_buffer (\(c.verticalSeparation + c.verticalBuffer) m)")
        }
        c.parkingSpacing = try positive(a, "parking_spacing", c.parkingSpacing)
        guard c.parkingSpacing > c.horizontalSeparation + c.horizontalBuffer else {
            throw a.error(
                "parking_spacing",
                "must exceed horizontal_separation plus horizontal_buffer (\(c.horizontalSeparation + c.horizontalBuffer) m)"
            )
        }
        if let g = try a.subtable("geofence") { c.geofence = try geofence(g, origin: scenario.origin) }

        var mission = AvoidanceMission(scenario: scenario, configuration: c)
        if let t = try a.subtable("communication") { mission.communication = try communication(t) }
        mission.decisionInterval = try positive(a, "decision_interval", mission.decisionInterval)
        mission.measureFrom = try a.number("measure_from")
        mission.compareSolo = try a.bool("compare_solo", default: true)
        switch try a.string("predictions") ?? "navigator" {
        case "navigator": mission.predictionSource = .navigator
        case "model": mission.predictionSource = .model
        case let other: throw a.error("predictions", "expected \"navigator\" or \"model\", found \"\(other)\"")
        }
        let drones = try root.tables("drones")
        var numbers = Set<Int>()
        for (i, t) in drones.enumerated() {
            var d = AvoidanceMission.Drone(uavNumber: i + 1)
            if let n = try t.integer("uav") {
                guard (1...250).contains(n) else { throw t.error("uav", "must be 1…250, found \(n)") }
                d.uavNumber = n
            }
            guard numbers.insert(d.uavNumber).inserted else {
                throw t.error("uav", "UAV number \(d.uavNumber) is used twice")
            }
            d.avoids = try t.bool("avoids", default: true)
            d.lostLinkAt = try t.number("lost_link_at")
            if let s = try t.number("start_altitude") {
                guard s > 0 && s <= 500 else { throw t.error("start_altitude", "must be in (0, 500] m, found \(s)") }
                d.startAltitude = s
            }
            mission.drones[i] = d
        }
        do { _ = try AvoidanceSimulation(mission: mission) } catch {
            var e = error
            e.file = file
            throw e
        }
        return mission
    }

    static func positive(_ t: ScenarioFields, _ key: String, _ value: Double) throws(ScenarioError) -> Double {
        let v = try t.number(key, default: value)
        guard v > 0 else { throw t.error(key, "must be positive, found \(v)") }
        return v
    }

    static func geofence(_ t: ScenarioFields, origin: MapOrigin) throws(ScenarioError) -> Geofence {
        try t.rejectUnknownKeys(["polygon", "corners", "min_altitude", "max_altitude"])
        let low = try t.requiredNumber("min_altitude"), high = try t.requiredNumber("max_altitude")
        do {
            if let raw = t.table["corners"] {
                guard t.table["polygon"] == nil else {
                    throw t.error(
                        "corners", "give either polygon ([east, north]) or corners ([latitude, longitude]), not both")
                }
                guard let array = raw.array else {
                    throw t.error("corners", "expected an array of [latitude, longitude] pairs")
                }
                var corners: [GeodeticCoordinate] = []
                for i in 0..<array.count {
                    guard let pair = array[i].array else {
                        throw t.error("corners[\(i)]", "expected [latitude, longitude]")
                    }
                    let v = try t.vector(pair, key: "corners[\(i)]", allowTwo: true)
                    guard (-90...90).contains(v.x) else {
                        throw t.error("corners[\(i)]", "latitude \(v.x) is outside -90…90")
                    }
                    corners.append(GeodeticCoordinate(latitude: v.x, longitude: v.y))
                }
                return try Geofence(corners: corners, origin: origin, minAltitude: low, maxAltitude: high)
            }
            guard let raw = t.table["polygon"], let array = raw.array else {
                throw t.error("polygon", "missing (an array of [east, north] corners)")
            }
            var polygon: [Vector3] = []
            for i in 0..<array.count {
                guard let pair = array[i].array else { throw t.error("polygon[\(i)]", "expected [east, north]") }
                polygon.append(try t.vector(pair, key: "polygon[\(i)]", allowTwo: true))
            }
            return try Geofence(polygon: polygon, minAltitude: low, maxAltitude: high)
        } catch let e as GeofenceError {
            throw t.error(t.table["corners"] != nil ? "corners" : "polygon", e.description)
        } catch let e as ScenarioError {
            throw e
        } catch {
            throw t.error("polygon", "\(error)")
        }
    }

    static func communication(_ t: ScenarioFields) throws(ScenarioError) -> CommunicationModel {
        try t.rejectUnknownKeys(["publish_interval", "latency", "loss", "late_probability", "late_delay", "seed"])
        var m = CommunicationModel()
        m.publishInterval = try positive(t, "publish_interval", m.publishInterval)
        if let l = try t.vector("latency") {
            guard l.x >= 0, l.y >= l.x, l.z == 0 else {
                throw t.error("latency", "expected [shortest, longest] seconds, 0 ≤ shortest ≤ longest")
            }
            m.minimumLatency = l.x
            m.maximumLatency = l.y
        }
        m.loss = try t.number("loss", default: 0)
        m.lateProbability = try t.number("late_probability", default: 0)
        for (k, v) in [("loss", m.loss), ("late_probability", m.lateProbability)] where !(0...1).contains(v) {
            throw t.error(k, "must be 0…1, found \(v)")
        }
        if let d = try t.vector("late_delay") {
            guard d.x >= 0, d.y >= d.x, d.z == 0 else {
                throw t.error("late_delay", "expected [shortest, longest] seconds")
            }
            m.lateDelay = d.x...d.y
        }
        if let seed = try t.integer("seed") {
            guard seed >= 0 else { throw t.error("seed", "must be ≥ 0") }
            m.seed = UInt64(seed)
        }
        return m
    }
}
