import Coordinator
import Dashboard
import FlightLogShipping
import Foundation
import Geodesy
import Membership
import MeshTypes
import TOMLFields

/// One reader per table of the configuration file; each checks its keys and values and names the field it refuses.
extension NodeConfiguration {
    /// `[network]`.
    static func readNetwork(_ net: ConfigFields, into config: inout NodeConfiguration) throws(ConfigError) {
        try net.rejectUnknownKeys(["port", "advertise", "discover", "static_peers", "group", "group_interfaces"])
        if let port = try net.integer("port", in: 0...65535) { config.port = port }
        config.advertise = try net.bool("advertise", default: true)
        config.discover = try net.bool("discover", default: true)
        config.staticPeers = try net.endpoints("static_peers") ?? []
        config.group = try net.bool("group", default: true)
        config.groupInterfaces = try net.strings("group_interfaces") ?? []
    }

    /// `[membership]`.
    static func readMembership(_ m: ConfigFields, into config: inout NodeConfiguration) throws(ConfigError) {
        try m.rejectUnknownKeys([
            "heartbeat_interval_ms", "suspect_after_ms", "lost_after_ms", "reconnect_interval_ms", "forget_after_ms",
            "forgotten_limit",
        ])
        var mc = MembershipConfiguration()
        func ms(_ key: String, max: Int = 600_000) throws(ConfigError) -> Duration? {
            try m.integer(key, in: 1...max, "milliseconds").map { .milliseconds($0) }
        }
        if let v = try ms("heartbeat_interval_ms") { mc.heartbeatInterval = v }
        if let v = try ms("suspect_after_ms") { mc.suspectAfter = v }
        if let v = try ms("lost_after_ms") { mc.lostAfter = v }
        if let v = try ms("reconnect_interval_ms") { mc.reconnectInterval = v }
        if let v = try ms("forget_after_ms", max: 86_400_000) { mc.forgetAfter = v }
        if let v = try m.integer("forgotten_limit", in: 0...4096, "peers") { mc.forgottenLimit = v }
        if let problem = mc.validate() { throw m.error("", problem) }
        config.membership = mc
    }

    /// `[drone]`.
    static func readDrone(_ d: ConfigFields, role: NodeRole, into config: inout NodeConfiguration) throws(ConfigError) {
        try d.rejectUnknownKeys(["uav_number", "home", "vehicle", "autopilot_sysid"])
        try droneVehicle(d, role: role, into: &config)
        if let n = try d.integer("uav_number") {
            guard role == .drone else { throw d.roleError("uav_number", "only drones carry a UAV number", role: role) }
            guard (1...250).contains(n) else { throw d.error("uav_number", "must be 1–250, found \(n)") }
            config.uavNumber = n
        }
        if let home = try d.numbers("home") {
            guard role == .drone else { throw d.roleError("home", "only drones have a home position", role: role) }
            guard home.count == 2 else {
                throw d.error("home", "expected [latitude, longitude] in degrees, found \(home.count) numbers")
            }
            guard (-80.0...84.0).contains(home[0]) else {
                throw d.error("home", "latitude must be within -80…84 degrees (the UTM map frame), found \(home[0])")
            }
            guard (-180.0...180.0).contains(home[1]) else {
                throw d.error("home", "longitude must be within -180…180 degrees, found \(home[1])")
            }
            config.home = HomeLocation(latitude: home[0], longitude: home[1])
        }
    }

    /// `[targets]`.
    static func readTargets(_ tg: ConfigFields, into config: inout NodeConfiguration) throws(ConfigError) {
        try tg.rejectUnknownKeys(["subscribe", "sources"])
        config.subscribeToTargetSources = try tg.bool("subscribe", default: config.subscribeToTargetSources)
        config.targetSources = try tg.endpoints("sources") ?? []
    }

    /// `[coordinator]`.
    static func readCoordinator(_ c: ConfigFields, into config: inout NodeConfiguration) throws(ConfigError) {
        try c.rejectUnknownKeys([
            "telemetry_hz", "prediction_hz", "failsafe_hover_after_ms", "failsafe_action_after_ms", "failsafe_action",
            "hop_limit",
        ])
        func number(_ key: String, _ range: ClosedRange<Double>) throws(ConfigError) -> Double? {
            guard let v = try c.number(key) else { return nil }
            guard range.contains(v) else {
                throw c.error(key, "must be \(Int(range.lowerBound))–\(Int(range.upperBound)), found \(v)")
            }
            return v
        }
        func ms(_ key: String) throws(ConfigError) -> Int? { try c.integer(key, in: 100...600_000, "milliseconds") }
        if let v = try number("telemetry_hz", 1...50) { config.coordinator.telemetryHz = v }
        if let v = try number("prediction_hz", 1...20) { config.coordinator.predictionHz = v }
        if let v = try ms("failsafe_hover_after_ms") { config.coordinator.failsafeHoverAfterMs = v }
        if let v = try ms("failsafe_action_after_ms") { config.coordinator.failsafeActionAfterMs = v }
        if let v = try c.integer("hop_limit", in: 1...64, "hops") { config.coordinator.hopLimit = v }
        if let a = try c.string("failsafe_action") {
            switch a {
            case "return_home": config.coordinator.failsafeAction = .returnHome
            case "land": config.coordinator.failsafeAction = .land
            default: throw c.error("failsafe_action", "must be \"return_home\" or \"land\", found \"\(a)\"")
            }
        }
    }

    /// `[avoidance]`.
    static func readAvoidance(_ a: ConfigFields, role: NodeRole, into config: inout NodeConfiguration)
        throws(ConfigError)
    {
        guard role == .drone else { throw a.roleError("", "only drones avoid", role: role) }
        try a.rejectUnknownKeys([
            "enabled", "horizontal_separation", "vertical_separation", "geofence", "geofence_altitude",
        ])
        config.avoidance.enabled = try a.bool("enabled", default: true)
        if let h = try a.number("horizontal_separation") {
            guard (1...100).contains(h) else {
                throw a.error("horizontal_separation", "must be 1–100 metres, found \(h)")
            }
            config.avoidance.horizontalSeparation = h
        }
        if let v = try a.number("vertical_separation") {
            guard (0.5...50).contains(v) else {
                throw a.error("vertical_separation", "must be 0.5–50 metres, found \(v)")
            }
            config.avoidance.verticalSeparation = v
        }
        if let corners = try a.array("geofence", expected: "an array of [latitude, longitude] pairs") {
            var out: [[Double]] = []
            for i in 0..<corners.count {
                let key = "geofence[\(i)]"
                guard let inner = corners[i].array, inner.count == 2, let pair = try? a.numbers(inner, key: key),
                    (-90...90).contains(pair[0]), (-180...180).contains(pair[1])
                else { throw a.error(key, "expected [latitude, longitude] in degrees") }
                out.append(pair)
            }
            guard out.count >= 3 else { throw a.error("geofence", "needs at least 3 corners, found \(out.count)") }
            config.avoidance.geofence = out
        }
        if let alt = try a.numbers("geofence_altitude") {
            guard alt.count == 2, alt[0] < alt[1] else {
                throw a.error(
                    "geofence_altitude", "expected [minimum, maximum] metres above home with minimum < maximum")
            }
            config.avoidance.geofenceAltitude = alt
        }
    }

    /// `[log]`.
    static func readLog(_ l: ConfigFields, baseDirectory: String, into config: inout NodeConfiguration)
        throws(ConfigError)
    {
        try l.rejectUnknownKeys([
            "level", "flight_log", "flight_log_path", "retention_days", "max_megabytes", "postgres",
        ])
        if let on = try l.bool("flight_log") { config.flightLog.enabled = on }
        if let path = try l.string("flight_log_path") {
            guard !path.isEmpty else {
                throw l.error("flight_log_path", "must not be empty (leave it out for the state directory)")
            }
            config.flightLog.path = resolve(path, base: baseDirectory)
        }
        if let days = try l.number("retention_days") {
            guard days > 0, days <= 3650 else {
                throw l.error("retention_days", "must be more than 0 and at most 3650 days, found \(days)")
            }
            config.flightLog.retentionDays = days
        }
        if let mb = try l.number("max_megabytes") {
            guard mb >= 1, mb <= 1_048_576 else {
                throw l.error("max_megabytes", "must be 1 to 1048576 (1 TB), found \(mb)")
            }
            config.flightLog.maxMegabytes = mb
        }
        if let url = try l.string("postgres") {
            do {
                config.flightLog.postgres = try PostgresTarget(url: url)
            } catch {
                throw l.error("postgres", "\(error)")
            }
        }
        if let level = try l.string("level") {
            let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
            guard levels.contains(level) else {
                throw l.error("level", "must be one of \(levels.joined(separator: ", ")), found \"\(level)\"")
            }
            config.logLevel = level
        }
    }

    /// `[dashboard]`: where the dashboard listens, and its accounts; an address other machines reach needs accounts.
    static func readDashboard(_ t: ConfigFields, role: NodeRole, baseDirectory: String) throws(ConfigError)
        -> DashboardConfiguration?
    {
        try t.rejectUnknownKeys([
            "accounts", "enabled", "inspection", "listen", "live_rate_hz", "overlays", "tiles", "tiles_attribution",
            "tiles_format", "tiles_max_zoom", "tls_certificate", "tls_key",
        ])
        guard try t.bool("enabled", default: role == .station) else { return nil }
        var c = DashboardConfiguration()
        for a in try t.tables("accounts") {
            try a.rejectUnknownKeys(["name", "password_hash", "role"])
            guard let name = try a.string("name") else { throw a.error("name", "missing (a string is required)") }
            guard !name.isEmpty, name.count <= 64, !name.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw a.error("name", "must be 1–64 characters without spaces, found \"\(name)\"")
            }
            if let other = c.accounts.firstIndex(where: { $0.name == name }) {
                throw a.error("name", "\"\(name)\" is taken by accounts[\(other)]")
            }
            let roleName = try a.string("role") ?? "viewer"
            guard let accountRole = DashboardRole(rawValue: roleName) else {
                throw a.error("role", "must be viewer or operator, found \"\(roleName)\"")
            }
            guard let hash = try a.string("password_hash") else {
                throw a.error("password_hash", "missing (a bcrypt hash: run `fleetmesh hash-password`)")
            }
            guard DashboardAccount.isBcryptHash(hash) else {
                // Never echo the value: it may be a password typed where its hash belongs.
                throw a.error(
                    "password_hash",
                    "is not a bcrypt hash ($2b$…, 60 characters; run `fleetmesh hash-password` and paste what it prints)"
                )
            }
            c.accounts.append(DashboardAccount(name: name, role: accountRole, passwordHash: hash))
        }
        if let listen = try t.string("listen") {
            guard let endpoint = PeerEndpoint(parsing: listen), endpoint.scope == nil else {
                throw t.error("listen", "expected \"address:port\" such as \"127.0.0.1:8080\", found \"\(listen)\"")
            }
            c.host = endpoint.host
            c.port = endpoint.port
            guard c.isLoopback || !c.accounts.isEmpty else {
                throw t.error(
                    "listen",
                    "\(listen) is reachable from other machines, and the dashboard commands aircraft: add [[dashboard.accounts]] (name, role, password_hash from `fleetmesh hash-password`) or listen on loopback (127.0.0.1 or [::1])"
                )
            }
        }
        if let rate = try t.number("live_rate_hz") {
            guard (1...20).contains(rate) else { throw t.error("live_rate_hz", "must be 1–20, found \(rate)") }
            c.liveRateHz = rate
        }
        c.tiles = try dashboardTiles(t, baseDirectory: baseDirectory)
        c.tls = try dashboardTLS(t, baseDirectory: baseDirectory)
        for o in try t.tables("overlays") {
            try o.rejectUnknownKeys(["file", "name"])
            guard let name = try o.string("name") else { throw o.error("name", "missing (a string is required)") }
            guard !name.isEmpty, name.count <= 64, !name.contains(where: \.isNewline) else {
                throw o.error("name", "must be 1–64 characters on one line, found \"\(name)\"")
            }
            if let other = c.overlays.firstIndex(where: { $0.name == name }) {
                throw o.error("name", "\"\(name)\" is taken by overlays[\(other)]")
            }
            guard c.overlays.count < DashboardOverlay.maximumCount else {
                throw o.error("", "at most \(DashboardOverlay.maximumCount) overlays")
            }
            guard let file = try o.string("file") else {
                throw o.error("file", "missing (the path of a GeoJSON file is required)")
            }
            do {
                c.overlays.append(try DashboardOverlay.read(name: name, file: resolve(file, base: baseDirectory)))
            } catch {
                throw o.error("file", error.description)
            }
        }
        if let i = try t.subtable("inspection") {
            try i.rejectUnknownKeys(["map", "resolution", "clearance", "speed", "hover"])
            guard let file = try i.string("map") else {
                throw i.error("map", "missing (the site's point cloud: a .pcd or .ply file)")
            }
            let path = resolve(file, base: baseDirectory)
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw i.error("map", "cannot read \(path)")
            }
            var settings = DashboardInspection(map: path)
            settings.resolution = try i.number("resolution") ?? settings.resolution
            guard (0.01...10).contains(settings.resolution) else {
                throw i.error("resolution", "must be 0.01–10 m, found \(settings.resolution)")
            }
            settings.clearance = try i.number("clearance") ?? settings.clearance
            guard settings.clearance > 0, settings.clearance <= 50 else {
                throw i.error("clearance", "must be more than 0 and at most 50 m, found \(settings.clearance)")
            }
            settings.speed = try i.number("speed") ?? settings.speed
            guard settings.speed > 0, settings.speed <= 20 else {
                throw i.error("speed", "must be more than 0 and at most 20 m/s, found \(settings.speed)")
            }
            settings.hover = try i.number("hover") ?? settings.hover
            guard settings.hover >= 0, settings.hover <= 600 else {
                throw i.error("hover", "must be 0–600 s, found \(settings.hover)")
            }
            c.inspection = settings
        }
        return c
    }

    /// `tiles`, `tiles_format`, `tiles_max_zoom`, `tiles_attribution`: the folder must hold tiles of its format.
    /// `tls_certificate` and `tls_key` (both or neither), read and checked now.
    private static func dashboardTLS(_ t: ConfigFields, baseDirectory: String) throws(ConfigError) -> DashboardTLS? {
        let certificate = try t.string("tls_certificate")
        let key = try t.string("tls_key")
        switch (certificate, key) {
        case (nil, nil): return nil
        case (nil, _): throw t.error("tls_certificate", "missing (tls_key needs the certificate's PEM file beside it)")
        case (_, nil): throw t.error("tls_key", "missing (tls_certificate needs its private key's PEM file beside it)")
        case (let certificate?, let key?):
            do {
                return try DashboardTLS.read(
                    certificate: resolve(certificate, base: baseDirectory), key: resolve(key, base: baseDirectory))
            } catch {
                throw t.error(error.field, error.problem)
            }
        }
    }

    private static func dashboardTiles(_ t: ConfigFields, baseDirectory: String) throws(ConfigError) -> DashboardTiles?
    {
        guard let folder = try t.string("tiles") else {
            if let key = ["tiles_format", "tiles_max_zoom", "tiles_attribution"].first(where: { t.has($0) }) {
                throw t.error(key, "needs a tile folder: add tiles = \"/path/to/folder\"")
            }
            return nil
        }
        var tiles = DashboardTiles(folder: resolve(folder, base: baseDirectory))
        if let format = try t.string("tiles_format") {
            guard DashboardTiles.formats[format] != nil else {
                throw t.error("tiles_format", "must be png, jpg or webp, found \"\(format)\"")
            }
            tiles.format = format
        }
        if let zoom = try t.integer("tiles_max_zoom", in: DashboardTiles.zoomLevels) { tiles.maxZoom = zoom }
        if let text = try t.string("tiles_attribution") {
            guard text.count <= 200, !text.contains(where: \.isNewline) else {
                throw t.error("tiles_attribution", "must be one line of at most 200 characters")
            }
            tiles.attribution = text.isEmpty ? nil : text
        }
        if let problem = tiles.problem() { throw t.error("tiles", problem) }
        return tiles
    }
}
