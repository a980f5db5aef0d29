import Coordinator
import Foundation
import Geodesy
import Membership
import MeshTypes
import TOMLKit

/// One reader per table of the configuration file; each checks its keys and values and names the field it refuses.
extension NodeConfiguration {
    /// `[network]`.
    static func readNetwork(
        _ net: TOMLTable, reader: TableReader, file: String, role: NodeRole,
        into config: inout NodeConfiguration
    ) throws(ConfigError) {
        try reader.allowOnly(net, in: "network", keys: ["port", "advertise", "discover", "static_peers"])
        if let port = try reader.int(net, "network", "port") {
            guard (0...65535).contains(port) else {
                throw ConfigError(file: file, field: "[network] port", problem: "must be 0–65535, found \(port)")
            }
            config.port = port
        }
        config.advertise = try reader.bool(net, "network", "advertise") ?? true
        config.discover = try reader.bool(net, "network", "discover") ?? true
        config.staticPeers = try reader.endpoints(net, "network", "static_peers") ?? []
    }

    /// `[membership]`.
    static func readMembership(
        _ m: TOMLTable, reader: TableReader, file: String, role: NodeRole,
        into config: inout NodeConfiguration
    ) throws(ConfigError) {
        let keys = [
            "heartbeat_interval_ms", "suspect_after_ms", "lost_after_ms", "reconnect_interval_ms", "forget_after_ms",
            "forgotten_limit",
        ]
        try reader.allowOnly(m, in: "membership", keys: keys)
        var mc = MembershipConfiguration()
        func ms(_ key: String, max: Int = 600_000) throws(ConfigError) -> Duration? {
            try reader.int(m, "membership", key, in: 1...max, "milliseconds").map { .milliseconds($0) }
        }
        if let v = try ms("heartbeat_interval_ms") { mc.heartbeatInterval = v }
        if let v = try ms("suspect_after_ms") { mc.suspectAfter = v }
        if let v = try ms("lost_after_ms") { mc.lostAfter = v }
        if let v = try ms("reconnect_interval_ms") { mc.reconnectInterval = v }
        if let v = try ms("forget_after_ms", max: 86_400_000) { mc.forgetAfter = v }
        if let v = try reader.int(m, "membership", "forgotten_limit") {
            guard (0...4096).contains(v) else {
                throw ConfigError(
                    file: file, field: "[membership] forgotten_limit", problem: "must be 0–4096 peers, found \(v)")
            }
            mc.forgottenLimit = v
        }
        if let problem = mc.validate() {
            throw ConfigError(file: file, field: "[membership]", problem: problem)
        }
        config.membership = mc
    }

    /// `[drone]`.
    static func readDrone(
        _ d: TOMLTable, reader: TableReader, file: String, role: NodeRole,
        into config: inout NodeConfiguration
    ) throws(ConfigError) {
        try reader.allowOnly(d, in: "drone", keys: ["uav_number", "home", "vehicle", "autopilot_sysid"])
        try droneVehicle(d, reader: reader, file: file, role: role, into: &config)
        if let n = try reader.int(d, "drone", "uav_number") {
            guard role == .drone else {
                throw ConfigError(
                    file: file, field: "[drone] uav_number",
                    problem: "only drones carry a UAV number; this node's role is \(role.rawValue)")
            }
            guard (1...250).contains(n) else {
                throw ConfigError(file: file, field: "[drone] uav_number", problem: "must be 1–250, found \(n)")
            }
            config.uavNumber = n
        }
        if let home = try reader.numbers(d, "drone", "home") {
            guard role == .drone else {
                throw ConfigError(
                    file: file, field: "[drone] home",
                    problem: "only drones have a home position; this node's role is \(role.rawValue)")
            }
            guard home.count == 2 else {
                throw ConfigError(
                    file: file, field: "[drone] home",
                    problem: "expected [latitude, longitude] in degrees, found \(home.count) numbers")
            }
            guard home[0].isFinite, (-80.0...84.0).contains(home[0]) else {
                throw ConfigError(
                    file: file, field: "[drone] home",
                    problem: "latitude must be within -80…84 degrees (the UTM map frame), found \(home[0])")
            }
            guard home[1].isFinite, (-180.0...180.0).contains(home[1]) else {
                throw ConfigError(
                    file: file, field: "[drone] home",
                    problem: "longitude must be within -180…180 degrees, found \(home[1])")
            }
            config.home = HomeLocation(latitude: home[0], longitude: home[1])
        }
    }

    /// `[targets]`.
    static func readTargets(
        _ tg: TOMLTable, reader: TableReader, file: String, role: NodeRole,
        into config: inout NodeConfiguration
    ) throws(ConfigError) {
        try reader.allowOnly(tg, in: "targets", keys: ["subscribe", "sources"])
        config.subscribeToTargetSources = try reader.bool(tg, "targets", "subscribe") ?? config.subscribeToTargetSources
        config.targetSources = try reader.endpoints(tg, "targets", "sources") ?? []
    }

    /// `[coordinator]`.
    static func readCoordinator(
        _ c: TOMLTable, reader: TableReader, file: String, role: NodeRole,
        into config: inout NodeConfiguration
    ) throws(ConfigError) {
        try reader.allowOnly(
            c, in: "coordinator",
            keys: [
                "telemetry_hz", "prediction_hz", "failsafe_hover_after_ms",
                "failsafe_action_after_ms", "failsafe_action",
            ])
        func number(_ key: String, _ range: ClosedRange<Double>) throws(ConfigError) -> Double? {
            guard let v = try reader.number(c, "coordinator", key) else { return nil }
            guard v.isFinite, range.contains(v) else {
                throw ConfigError(
                    file: file, field: "[coordinator] \(key)",
                    problem: "must be \(Int(range.lowerBound))–\(Int(range.upperBound)), found \(v)")
            }
            return v
        }
        func ms(_ key: String) throws(ConfigError) -> Int? {
            try reader.int(c, "coordinator", key, in: 100...600_000, "milliseconds")
        }
        if let v = try number("telemetry_hz", 1...50) { config.coordinator.telemetryHz = v }
        if let v = try number("prediction_hz", 1...20) { config.coordinator.predictionHz = v }
        if let v = try ms("failsafe_hover_after_ms") { config.coordinator.failsafeHoverAfterMs = v }
        if let v = try ms("failsafe_action_after_ms") { config.coordinator.failsafeActionAfterMs = v }
        if let a = try reader.string(c, "coordinator", "failsafe_action", required: false) {
            switch a {
            case "return_home": config.coordinator.failsafeAction = .returnHome
            case "land": config.coordinator.failsafeAction = .land
            default:
                throw ConfigError(
                    file: file, field: "[coordinator] failsafe_action",
                    problem: "must be \"return_home\" or \"land\", found \"\(a)\"")
            }
        }
    }

    /// `[avoidance]`.
    static func readAvoidance(
        _ a: TOMLTable, reader: TableReader, file: String, role: NodeRole,
        into config: inout NodeConfiguration
    ) throws(ConfigError) {
        guard role == .drone else {
            throw ConfigError(
                file: file, field: "[avoidance]", problem: "only drones avoid; this node's role is \(role.rawValue)")
        }
        try reader.allowOnly(
            a, in: "avoidance",
            keys: [
                "enabled", "horizontal_separation", "vertical_separation",
                "geofence", "geofence_altitude",
            ])
        config.avoidance.enabled = try reader.bool(a, "avoidance", "enabled") ?? true
        if let h = try reader.number(a, "avoidance", "horizontal_separation") {
            guard h.isFinite, (1...100).contains(h) else {
                throw ConfigError(
                    file: file, field: "[avoidance] horizontal_separation", problem: "must be 1–100 metres, found \(h)")
            }
            config.avoidance.horizontalSeparation = h
        }
        if let v = try reader.number(a, "avoidance", "vertical_separation") {
            guard v.isFinite, (0.5...50).contains(v) else {
                throw ConfigError(
                    file: file, field: "[avoidance] vertical_separation", problem: "must be 0.5–50 metres, found \(v)")
            }
            config.avoidance.verticalSeparation = v
        }
        if let v = a["geofence"] {
            guard let corners = v.array else {
                throw ConfigError(
                    file: file, field: "[avoidance] geofence",
                    problem: "expected an array of [latitude, longitude] pairs, found \(v.type)")
            }
            var out: [[Double]] = []
            for i in 0..<corners.count {
                let pair = (corners[i].array.map { Array($0) } ?? []).compactMap { e -> Double? in
                    if e.type == .int, let n = e.int { return Double(n) }
                    return e.type == .double ? e.double : nil
                }
                guard pair.count == 2, corners[i].array?.count == 2,
                    (-90...90).contains(pair[0]), (-180...180).contains(pair[1])
                else {
                    throw ConfigError(
                        file: file, field: "[avoidance] geofence[\(i)]",
                        problem: "expected [latitude, longitude] in degrees")
                }
                out.append(pair)
            }
            guard out.count >= 3 else {
                throw ConfigError(
                    file: file, field: "[avoidance] geofence", problem: "needs at least 3 corners, found \(out.count)")
            }
            config.avoidance.geofence = out
        }
        if let alt = try reader.numbers(a, "avoidance", "geofence_altitude") {
            guard alt.count == 2, alt[0] < alt[1] else {
                throw ConfigError(
                    file: file, field: "[avoidance] geofence_altitude",
                    problem: "expected [minimum, maximum] metres above home with minimum < maximum")
            }
            config.avoidance.geofenceAltitude = alt
        }
    }

    /// `[log]`.
    static func readLog(
        _ l: TOMLTable, reader: TableReader, file: String, role: NodeRole,
        into config: inout NodeConfiguration
    ) throws(ConfigError) {
        try reader.allowOnly(l, in: "log", keys: ["level"])
        if let level = try reader.string(l, "log", "level", required: false) {
            let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
            guard levels.contains(level) else {
                throw ConfigError(
                    file: file, field: "[log] level",
                    problem: "must be one of \(levels.joined(separator: ", ")), found \"\(level)\"")
            }
            config.logLevel = level
        }
    }
}
