import Foundation
import Geodesy
import Membership
import MeshTypes
import TOMLKit

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
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigError(
                file: file, field: "",
                problem: "line \(e.source.begin.line), column \(e.source.begin.column): \(e.description)")
        } catch {
            throw ConfigError(file: file, field: "", problem: "not valid TOML (\(error))")
        }
        let reader = TableReader(file: file)
        try reader.allowOnly(
            root, in: "",
            keys: [
                "node", "network", "membership", "drone", "mission", "targets", "coordinator", "avoidance",
                "ground_control", "log",
            ])

        let node = try reader.table(root, "node", required: true)!
        try reader.allowOnly(node, in: "node", keys: ["name", "role", "key_file", "state_dir", "control_socket"])
        let name = try reader.string(node, "node", "name")!
        guard !name.isEmpty, name.utf8.count <= 63 else {
            throw ConfigError(file: file, field: "[node] name", problem: "must be 1–63 bytes, found \(name.utf8.count)")
        }
        let roleText = try reader.string(node, "node", "role")!
        guard let role = NodeRole(rawValue: roleText) else {
            throw ConfigError(
                file: file, field: "[node] role", problem: "must be \"station\" or \"drone\", found \"\(roleText)\"")
        }
        let keyFile = resolve(try reader.string(node, "node", "key_file")!, base: baseDirectory)
        let safeName = name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        let stateDir = resolve(
            try reader.string(node, "node", "state_dir", required: false)
                ?? "/var/lib/fleetmesh/\(String(safeName))", base: baseDirectory)
        let control = resolve(
            try reader.string(node, "node", "control_socket", required: false)
                ?? "\(defaultRunDirectory)/\(String(safeName)).sock", base: baseDirectory)

        var config = NodeConfiguration(
            name: name, role: role, keyFile: keyFile, stateDirectory: stateDir, controlSocket: control)

        if let t = try reader.table(root, "network") {
            try readNetwork(t, reader: reader, file: file, role: role, into: &config)
        }
        if let t = try reader.table(root, "membership") {
            try readMembership(t, reader: reader, file: file, role: role, into: &config)
        }
        if let t = try reader.table(root, "drone") {
            try readDrone(t, reader: reader, file: file, role: role, into: &config)
        }
        if let m = try reader.table(root, "mission") {
            guard role == .station else {
                throw ConfigError(
                    file: file, field: "[mission]",
                    problem: "only stations announce a map origin; this node's role is \(role.rawValue)")
            }
            try reader.allowOnly(m, in: "mission", keys: ["origin", "zone"])
            config.mapOrigin = try missionOrigin(m, reader: reader, file: file)
        }
        config.subscribeToTargetSources = role == .station
        if let t = try reader.table(root, "targets") {
            try readTargets(t, reader: reader, file: file, role: role, into: &config)
        }
        if let g = try reader.table(root, "ground_control") {
            config.groundControl = try groundControlEndpoint(g, reader: reader, file: file, role: role)
        }
        if let t = try reader.table(root, "coordinator") {
            try readCoordinator(t, reader: reader, file: file, role: role, into: &config)
        }
        if let t = try reader.table(root, "avoidance") {
            try readAvoidance(t, reader: reader, file: file, role: role, into: &config)
        }
        if let t = try reader.table(root, "log") {
            try readLog(t, reader: reader, file: file, role: role, into: &config)
        }
        return config
    }

    /// `[mission] origin = [lat, lon, alt]` (altitude optional) and `zone = "33N"`, checked by projecting the origin.
    private static func missionOrigin(_ m: TOMLTable, reader: TableReader, file: String) throws(ConfigError)
        -> MissionOrigin?
    {
        let zoneText = try reader.string(m, "mission", "zone", required: false)
        guard let numbers = try reader.numbers(m, "mission", "origin") else {
            if zoneText != nil {
                throw ConfigError(
                    file: file, field: "[mission] zone",
                    problem: "a zone needs an origin: add origin = [latitude, longitude, altitude]")
            }
            return nil
        }
        func fail(_ problem: String) -> ConfigError {
            ConfigError(file: file, field: "[mission] origin", problem: problem)
        }
        guard numbers.count == 2 || numbers.count == 3 else {
            throw fail(
                "expected [latitude, longitude, altitude] (degrees, degrees, metres), found \(numbers.count) numbers")
        }
        let (lat, lon, alt) = (numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
        guard lat.isFinite, (-90.0...90.0).contains(lat) else {
            throw fail("latitude must be within -90…90 degrees, found \(lat)")
        }
        guard lon.isFinite, (-180.0...180.0).contains(lon) else {
            throw fail("longitude must be within -180…180 degrees, found \(lon)")
        }
        guard alt.isFinite, (-10_000.0...10_000.0).contains(alt) else {
            throw fail("altitude must be within -10000…10000 metres, found \(alt)")
        }
        var zone: UTMZone?
        if let zoneText {
            do {
                zone = try UTMZone(parsing: zoneText)
            } catch {
                throw ConfigError(file: file, field: "[mission] zone", problem: "\(error)")
            }
        }
        let origin: MapOrigin
        do {
            origin = try MapOrigin(latitude: lat, longitude: lon, altitude: alt, forcedZone: zone?.number)
        } catch {
            throw ConfigError(
                file: file, field: zone == nil ? "[mission] origin" : "[mission] zone",
                problem: "cannot place the origin on the UTM map: \(error)")
        }
        if let zone, zone.hemisphere != origin.zone.hemisphere {
            throw ConfigError(
                file: file, field: "[mission] zone",
                problem:
                    "zone \(zone) has the wrong hemisphere for latitude \(lat) (expected \(origin.zone.hemisphere.rawValue))"
            )
        }
        return MissionOrigin(latitude: lat, longitude: lon, altitude: alt, zone: zone)
    }

    private static func resolve(_ path: String, base: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: base).appendingPathComponent(path).standardizedFileURL.path
    }

    /// A short, plain reason for a file error ("no such file", "permission denied", …).
    static func reason(_ error: Error) -> String {
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

/// Typed access to TOML fields with errors that name the field.
struct TableReader {
    let file: String

    func fail(_ table: String, _ key: String, _ problem: String) -> ConfigError {
        ConfigError(file: file, field: table.isEmpty ? key : "[\(table)] \(key)", problem: problem)
    }

    func allowOnly(_ t: TOMLTable, in table: String, keys: [String]) throws(ConfigError) {
        for key in t.keys.sorted() where !keys.contains(key) {
            throw fail(table, key, "unknown field (known: \(keys.joined(separator: ", ")))")
        }
    }

    func table(_ t: TOMLTable, _ key: String, required: Bool = false) throws(ConfigError) -> TOMLTable? {
        guard let v = t[key] else {
            if required { throw ConfigError(file: file, field: "[\(key)]", problem: "missing table") }
            return nil
        }
        guard let table = v.table else { throw fail("", key, "expected a table, found \(v.type)") }
        return table
    }

    func string(_ t: TOMLTable, _ table: String, _ key: String, required: Bool = true) throws(ConfigError) -> String? {
        guard let v = t[key] else {
            if required { throw fail(table, key, "missing (required)") }
            return nil
        }
        guard let s = v.string else { throw fail(table, key, "expected a string, found \(v.type)") }
        return s
    }

    func int(_ t: TOMLTable, _ table: String, _ key: String) throws(ConfigError) -> Int? {
        guard let v = t[key] else { return nil }
        guard v.type == .int, let i = v.int else { throw fail(table, key, "expected an integer, found \(v.type)") }
        return i
    }

    func bool(_ t: TOMLTable, _ table: String, _ key: String) throws(ConfigError) -> Bool? {
        guard let v = t[key] else { return nil }
        guard let b = v.bool else { throw fail(table, key, "expected true or false, found \(v.type)") }
        return b
    }

    func numbers(_ t: TOMLTable, _ table: String, _ key: String) throws(ConfigError) -> [Double]? {
        guard let v = t[key] else { return nil }
        guard let a = v.array else { throw fail(table, key, "expected an array of numbers, found \(v.type)") }
        var out: [Double] = []
        for (i, e) in a.enumerated() {
            if e.type == .int, let n = e.int {
                out.append(Double(n))
                continue
            }
            guard e.type == .double, let d = e.double else {
                throw fail(table, "\(key)[\(i)]", "expected a number, found \(e.type)")
            }
            out.append(d)
        }
        return out
    }

    /// One number (integer or floating point).
    func number(_ t: TOMLTable, _ table: String, _ key: String) throws(ConfigError) -> Double? {
        guard let v = t[key] else { return nil }
        if v.type == .int, let n = v.int { return Double(n) }
        guard v.type == .double, let d = v.double else { throw fail(table, key, "expected a number, found \(v.type)") }
        return d
    }

    /// An integer within `range`, in `unit` ("milliseconds").
    func int(_ t: TOMLTable, _ table: String, _ key: String, in range: ClosedRange<Int>, _ unit: String)
        throws(ConfigError)
        -> Int?
    {
        guard let v = try int(t, table, key) else { return nil }
        guard range.contains(v) else {
            throw fail(table, key, "must be \(range.lowerBound)–\(range.upperBound) \(unit), found \(v)")
        }
        return v
    }

    /// An array of "host:port" endpoints, each checked.
    func endpoints(_ t: TOMLTable, _ table: String, _ key: String) throws(ConfigError) -> [String]? {
        guard let list = try strings(t, table, key) else { return nil }
        for (i, e) in list.enumerated() where PeerEndpoint(parsing: e) == nil {
            throw fail(table, "\(key)[\(i)]", "expected \"host:port\" or \"[ipv6%interface]:port\", found \"\(e)\"")
        }
        return list
    }

    func strings(_ t: TOMLTable, _ table: String, _ key: String) throws(ConfigError) -> [String]? {
        guard let v = t[key] else { return nil }
        guard let a = v.array else { throw fail(table, key, "expected an array of strings, found \(v.type)") }
        var out: [String] = []
        for (i, e) in a.enumerated() {
            guard let s = e.string else { throw fail(table, "\(key)[\(i)]", "expected a string, found \(e.type)") }
            out.append(s)
        }
        return out
    }
}
