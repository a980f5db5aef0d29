import Crypto
import Dashboard
import Foundation
import Geodesy
import Membership
import MeshTypes
import TOMLFields

extension NodeConfiguration {
    /// Reads and validates a config file. Every error names the file, the field and the problem.
    public static func load(path: String) throws(ConfigError) -> NodeConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(file: path, field: "", problem: "cannot read the file (\(Self.reason(error)))")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(text, file: path, baseDirectory: base)
    }

    /// Parses config text; relative paths are resolved against `baseDirectory`.
    public static func parse(_ text: String, file: String, baseDirectory: String) throws(ConfigError)
        -> NodeConfiguration
    {
        let root = try ConfigFields.parse(text) { field, problem in
            ConfigError(file: file, field: field, problem: problem)
        }
        try root.rejectUnknownKeys([
            "node", "network", "membership", "drone", "mission", "targets", "coordinator", "avoidance",
            "ground_control", "dashboard", "log", "metrics",
        ])

        let node = try root.requiredSubtable("node")
        try node.rejectUnknownKeys(["name", "role", "key_file", "state_dir", "control_socket"])
        let name = try node.requiredString("name")
        guard !name.isEmpty, name.utf8.count <= 63 else {
            throw node.error("name", "must be 1–63 bytes, found \(name.utf8.count)")
        }
        let roleText = try node.requiredString("role")
        guard let role = NodeRole(rawValue: roleText) else {
            throw node.error("role", "must be \"station\" or \"drone\", found \"\(roleText)\"")
        }
        let keyFile = resolve(try node.requiredString("key_file"), base: baseDirectory)
        let safeName = name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        let stateDir = resolve(
            try node.string("state_dir") ?? "/var/lib/fleetmesh/\(String(safeName))", base: baseDirectory)
        let control = resolve(
            try node.string("control_socket") ?? "\(defaultRunDirectory)/\(String(safeName)).sock",
            base: baseDirectory)

        var config = NodeConfiguration(
            name: name, role: role, keyFile: keyFile, stateDirectory: stateDir, controlSocket: control)

        if let t = try root.subtable("network") { try readNetwork(t, into: &config) }
        if let t = try root.subtable("membership") { try readMembership(t, into: &config) }
        if let t = try root.subtable("drone") { try readDrone(t, role: role, into: &config) }
        if let m = try root.subtable("mission") {
            guard role == .station else {
                throw m.error("", "only stations announce a map origin; this node's role is \(role.rawValue)")
            }
            try m.rejectUnknownKeys(["origin", "zone"])
            config.mapOrigin = try missionOrigin(m)
        }
        config.subscribeToTargetSources = role == .station
        if let t = try root.subtable("targets") { try readTargets(t, into: &config) }
        if let g = try root.subtable("ground_control") {
            config.groundControl = try groundControlEndpoint(g, role: role)
        }
        if let t = try root.subtable("coordinator") { try readCoordinator(t, into: &config) }
        if let t = try root.subtable("avoidance") { try readAvoidance(t, role: role, into: &config) }
        if let t = try root.subtable("log") { try readLog(t, baseDirectory: baseDirectory, into: &config) }
        config.dashboard = role == .station ? DashboardConfiguration() : nil
        if let t = try root.subtable("dashboard") {
            config.dashboard = try readDashboard(t, role: role, baseDirectory: baseDirectory)
        }
        if let t = try root.subtable("metrics") { config.metrics = try readMetrics(t, dashboard: config.dashboard) }
        config.digest = SHA256.hash(data: Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
        return config
    }

    /// `[mission] origin = [lat, lon, alt]` (altitude optional) and `zone = "33N"`, checked by projecting the origin.
    private static func missionOrigin(_ m: ConfigFields) throws(ConfigError) -> MissionOrigin? {
        let zoneText = try m.string("zone")
        guard let numbers = try m.numbers("origin") else {
            if zoneText != nil {
                throw m.error("zone", "a zone needs an origin: add origin = [latitude, longitude, altitude]")
            }
            return nil
        }
        func fail(_ problem: String) -> ConfigError { m.error("origin", problem) }
        guard numbers.count == 2 || numbers.count == 3 else {
            throw fail(
                "expected [latitude, longitude, altitude] (degrees, degrees, metres), found \(numbers.count) numbers")
        }
        let (lat, lon, alt) = (numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
        guard (-90.0...90.0).contains(lat) else { throw fail("latitude must be within -90…90 degrees, found \(lat)") }
        guard (-180.0...180.0).contains(lon) else {
            throw fail("longitude must be within -180…180 degrees, found \(lon)")
        }
        guard (-10_000.0...10_000.0).contains(alt) else {
            throw fail("altitude must be within -10000…10000 metres, found \(alt)")
        }
        var zone: UTMZone?
        if let zoneText {
            do { zone = try UTMZone(parsing: zoneText) } catch { throw m.error("zone", "\(error)") }
        }
        let origin: MapOrigin
        do {
            origin = try MapOrigin(latitude: lat, longitude: lon, altitude: alt, forcedZone: zone?.number)
        } catch {
            throw m.error(zone == nil ? "origin" : "zone", "cannot place the origin on the UTM map: \(error)")
        }
        if let zone, zone.hemisphere != origin.zone.hemisphere {
            throw m.error(
                "zone",
                "zone \(zone) has the wrong hemisphere for latitude \(lat) (expected \(origin.zone.hemisphere.rawValue))"
            )
        }
        return MissionOrigin(latitude: lat, longitude: lon, altitude: alt, zone: zone)
    }

    static func resolve(_ path: String, base: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: base).appendingPathComponent(path).standardizedFileURL.path
    }

    /// A short, plain reason for a file error ("no such file", "permission denied", …).
    public static func reason(_ error: Error) -> String {
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file"
            case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
            case .fileReadInapplicableStringEncoding, .fileReadCorruptFile: return "not UTF-8 text"
            case .fileWriteOutOfSpace: return "no space left on the device"
            default: break
            }
            if let underlying = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError,
                underlying.domain == NSPOSIXErrorDomain,
                let text = String(validatingCString: strerror(Int32(underlying.code)))
            {
                return text.lowercased()
            }
        }
        return (error as NSError).localizedDescription
    }
}

/// A configuration file's table; errors name the field as `[table] key`.
typealias ConfigFields = TOMLFields<ConfigError>

extension ConfigError {
    /// The error for a field of a configuration file: `[table] key`, `[table]`, or a root key as it is.
    init(file: String, field: TOMLFieldPath, problem: String) {
        let name =
            field.table.isEmpty ? field.key : field.key.isEmpty ? "[\(field.table)]" : "[\(field.table)] \(field.key)"
        self.init(file: file, field: name, problem: problem)
    }
}

extension TOMLFields<ConfigError> {
    /// An array of "host:port" endpoints, each checked; nil when absent.
    func endpoints(_ key: String) throws(ConfigError) -> [String]? {
        guard let list = try strings(key) else { return nil }
        for (i, e) in list.enumerated() where PeerEndpoint(parsing: e) == nil {
            throw error(
                "\(key)[\(i)]",
                "expected \"host:port\" or \"[ipv6%interface]:port\" with a numeric address, found \"\(e)\"")
        }
        return list
    }

    /// The error for a field that only nodes of another role may set.
    func roleError(_ key: String, _ what: String, role: NodeRole) -> ConfigError {
        error(key, "\(what); this node's role is \(role.rawValue)")
    }
}
