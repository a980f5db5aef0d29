/// The wire form of a control request: one flat JSON object, `command` naming the case, its fields beside it, and an
/// optional protocol version `v`. Decoding refuses what it cannot use, naming the field.
extension ControlRequest: Codable {
    /// The fields each command takes besides `command` and `v`.
    public static let fields: [String: [String]] = [
        "send": ["uav", "args", "timeoutMs", "takeover"],
        "group": ["uavs", "args", "leadMs", "timeoutMs", "takeover"],
        "target": ["latitude", "longitude", "altitude", "uav", "all", "follow", "timeoutMs"],
        "manual": ["uavs", "uav", "rateHz", "durationMs", "axes", "takeover"],
        "events": ["after", "limit"],
        "setGeofence": ["corners", "floor", "ceiling"],
    ]

    public init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<FieldKey>
        do {
            container = try decoder.container(keyedBy: FieldKey.self)
        } catch {
            throw ControlRequestError(#"malformed control request: expected one JSON object like {"command":"status"}"#)
        }
        let known = Self.commands.joined(separator: ", ")
        let head = Fields(container: container, command: "malformed control request")
        guard let command = try head.value("command", String.self, "a string: one of \(known)") else {
            throw ControlRequestError(#"malformed control request: "command" is required (one of \#(known))"#)
        }
        guard Self.commands.contains(command) else {
            throw ControlRequestError("unknown command '\(command)' (known: \(known))")
        }
        let fields = Fields(container: container, command: command)
        if let v = try fields.value("v", Int.self, "an integer (the control protocol version)"),
            v != ControlProtocol.version
        {
            throw ControlRequestError(
                #"\#(command): "v": this node speaks control protocol version \#(ControlProtocol.version), found \#(v)"#
            )
        }
        let allowed = Self.fields[command] ?? []
        for key in container.allKeys.map(\.stringValue).sorted()
        where key != "command" && key != "v" && !allowed.contains(key) {
            let takes = allowed.isEmpty ? "takes no fields" : "takes " + allowed.joined(separator: ", ")
            throw ControlRequestError(#"\#(command): unknown field "\#(key)" (\#(command) \#(takes))"#)
        }
        switch command {
        case "status": self = .status
        case "peers": self = .peers
        case "vehicles": self = .vehicles
        case "airspace": self = .airspace
        case "origin": self = .origin
        case "sources": self = .sources
        case "send": self = .send(try Send(fields))
        case "group": self = .group(try Group(fields))
        case "target": self = .target(try TargetLocation(fields))
        case "events": self = .events(try Events(fields))
        case "geofence": self = .geofence
        case "setGeofence": self = .setGeofence(try SetGeofence(fields))
        case "clearGeofence": self = .clearGeofence
        default: self = .manual(try Manual(fields))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: FieldKey.self)
        try c.encode(command, forKey: "command")
        try c.encode(ControlProtocol.version, forKey: "v")
        switch self {
        case .status, .peers, .vehicles, .airspace, .origin, .sources, .geofence, .clearGeofence:
            break
        case .setGeofence(let g):
            try c.encode(g.corners, forKey: "corners")
            try c.encode(g.floor, forKey: "floor")
            try c.encode(g.ceiling, forKey: "ceiling")
        case .send(let s):
            try c.encode(s.uav, forKey: "uav")
            try c.encode(s.args, forKey: "args")
            try c.encode(s.timeoutMs, forKey: "timeoutMs")
            if s.takeover { try c.encode(true, forKey: "takeover") }
        case .group(let g):
            try c.encode(g.uavs, forKey: "uavs")
            try c.encode(g.args, forKey: "args")
            try c.encode(g.leadMs, forKey: "leadMs")
            try c.encode(g.timeoutMs, forKey: "timeoutMs")
            if g.takeover { try c.encode(true, forKey: "takeover") }
        case .target(let t):
            try c.encode(t.latitude, forKey: "latitude")
            try c.encode(t.longitude, forKey: "longitude")
            try c.encode(t.altitude, forKey: "altitude")
            switch t.to {
            case .uav(let n): try c.encode(n, forKey: "uav")
            case .all: try c.encode(true, forKey: "all")
            }
            if t.follow { try c.encode(true, forKey: "follow") }
            try c.encode(t.timeoutMs, forKey: "timeoutMs")
        case .manual(let m):
            try c.encode(m.uavs, forKey: "uavs")
            try c.encode(m.rateHz, forKey: "rateHz")
            try c.encode(m.durationMs, forKey: "durationMs")
            try c.encode(m.axes, forKey: "axes")
            if m.takeover { try c.encode(true, forKey: "takeover") }
        case .events(let e):
            try c.encode(e.after, forKey: "after")
            try c.encode(e.limit, forKey: "limit")
        }
    }
}

extension ControlRequest.Events {
    init(_ f: Fields) throws(ControlRequestError) {
        let after = try f.value("after", Int.self, "an event number (0: from the oldest kept)") ?? 0
        guard after >= 0 else { throw f.error(#""after" must be 0 or more, found \#(after)"#) }
        let limit = try f.value("limit", Int.self, "an integer 1–1000") ?? 200
        guard (1...1000).contains(limit) else { throw f.error(#""limit" must be 1–1000, found \#(limit)"#) }
        self.init(after: after, limit: limit)
    }
}

extension ControlRequest.SetGeofence {
    init(_ f: Fields) throws(ControlRequestError) {
        guard
            let corners = try f.value(
                "corners", [[Double]].self, "an array of [latitude, longitude] pairs in degrees")
        else {
            throw f.error(#""corners" is required: an array of 3–64 [latitude, longitude] pairs in degrees"#)
        }
        let floor = try f.value("floor", Double.self, "a number of metres above home") ?? 2
        let ceiling = try f.value("ceiling", Double.self, "a number of metres above home") ?? 120
        self.init(corners: corners, floor: floor, ceiling: ceiling)
    }
}

extension ControlRequest.Send {
    init(_ f: Fields) throws(ControlRequestError) {
        let uav = try f.value("uav", Int.self, "a UAV number 1–250")
        guard let uav, (1...250).contains(uav) else {
            throw f.error(#""uav" must be a UAV number 1–250, found \#(uav.map(String.init) ?? "none")"#)
        }
        let timeoutMs = try f.value("timeoutMs", Int.self, "an integer number of milliseconds") ?? 30_000
        guard (1...600_000).contains(timeoutMs) else {
            throw f.error(#""timeoutMs" must be 1–600000, found \#(timeoutMs)"#)
        }
        self.init(
            uav: uav, args: try f.value("args", [String].self, "an array of strings (the command as words)") ?? [],
            timeoutMs: timeoutMs, takeover: try f.value("takeover", Bool.self, "true or false") ?? false)
    }
}

extension ControlRequest.Group {
    init(_ f: Fields) throws(ControlRequestError) {
        let uavs = try f.value("uavs", [Int].self, "an array of UAV numbers") ?? []
        guard !uavs.isEmpty, uavs.count <= 250, uavs.allSatisfy({ (1...250).contains($0) }) else {
            throw f.error(#""uavs" must list UAV numbers 1–250, found \#(uavs)"#)
        }
        if let twice = uavs.first(where: { n in uavs.filter { $0 == n }.count > 1 }) {
            throw f.error(#""uavs" lists UAV \#(twice) twice"#)
        }
        let lead = try f.value("leadMs", Int.self, "an integer number of milliseconds") ?? Self.defaultLeadMs
        guard Self.leadRangeMs.contains(lead) else {
            throw f.error(
                #""leadMs" must be \#(Self.leadRangeMs.lowerBound)–\#(Self.leadRangeMs.upperBound), found \#(lead)"#)
        }
        let timeoutMs = try f.value("timeoutMs", Int.self, "an integer number of milliseconds") ?? 30_000
        guard (1...600_000).contains(timeoutMs) else {
            throw f.error(#""timeoutMs" must be 1–600000, found \#(timeoutMs)"#)
        }
        self.init(
            uavs: uavs, args: try f.value("args", [String].self, "an array of strings (the command as words)") ?? [],
            leadMs: lead, timeoutMs: timeoutMs, takeover: try f.value("takeover", Bool.self, "true or false") ?? false)
    }
}

extension ControlRequest.TargetLocation {
    init(_ f: Fields) throws(ControlRequestError) {
        let lat = try f.value("latitude", Double.self, "a number (degrees)")
        let lon = try f.value("longitude", Double.self, "a number (degrees)")
        let alt = try f.value("altitude", Double.self, "a number (metres)")
        guard let lat, let lon, let alt else {
            throw f.error(#""latitude", "longitude" and "altitude" are required"#)
        }
        let uav = try f.value("uav", Int.self, "a UAV number 1–250")
        let all = try f.value("all", Bool.self, "true or false") ?? false
        let to: Addressee
        if let uav {
            guard !all else { throw f.error(#"give either "uav" or "all", not both"#) }
            guard (1...250).contains(uav) else { throw f.error(#""uav" must be a UAV number 1–250, found \#(uav)"#) }
            to = .uav(uav)
        } else {
            guard all else { throw f.error(#"say which drones: "uav" (1–250) or "all": true"#) }
            to = .all
        }
        let timeoutMs = try f.value("timeoutMs", Int.self, "an integer number of milliseconds") ?? 10_000
        self.init(
            latitude: lat, longitude: lon, altitude: alt, to: to,
            follow: try f.value("follow", Bool.self, "true or false") ?? false,
            timeoutMs: min(max(timeoutMs, 1), 600_000))
    }
}

extension ControlRequest.Manual {
    init(_ f: Fields) throws(ControlRequestError) {
        let uavs = try f.value("uavs", [Int].self, "an array of UAV numbers")
        let uav = try f.value("uav", Int.self, "a UAV number 1–250")
        let numbers = uavs ?? uav.map { [$0] } ?? []
        guard !numbers.isEmpty, numbers.count <= 250, numbers.allSatisfy({ (1...250).contains($0) }) else {
            throw f.error(#""uavs" must list UAV numbers 1–250, found \#(numbers)"#)
        }
        let rate = try f.value("rateHz", Double.self, "a number of samples per second") ?? 100
        guard rate.isFinite, (1...1000).contains(rate) else {
            throw f.error(#""rateHz" must be 1–1000, found \#(rate)"#)
        }
        let ms = try f.value("durationMs", Int.self, "an integer number of milliseconds") ?? 5000
        guard (1...600_000).contains(ms) else { throw f.error(#""durationMs" must be 1–600000, found \#(ms)"#) }
        let axes = try f.value("axes", [Int].self, "four integers x, y, z, r") ?? [0, 0, 0, 0]
        guard axes.count == 4, axes.allSatisfy({ (-1000...1000).contains($0) }) else {
            throw f.error(#""axes" must be four numbers x, y, z, r within -1000…1000, found \#(axes)"#)
        }
        self.init(
            uavs: numbers, rateHz: rate, durationMs: ms, axes: axes,
            takeover: try f.value("takeover", Bool.self, "true or false") ?? false)
    }
}

/// A JSON object key, any name.
struct FieldKey: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    init(stringLiteral value: String) { self.stringValue = value }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

/// Reads one command's fields; a field of the wrong type is an error naming it and what was found.
struct Fields {
    let container: KeyedDecodingContainer<FieldKey>
    let command: String

    func error(_ problem: String) -> ControlRequestError { ControlRequestError("\(command): \(problem)") }

    /// The field's value; nil if absent or null.
    func value<T: Decodable>(_ name: String, _ type: T.Type, _ expected: String) throws(ControlRequestError) -> T? {
        let key = FieldKey(stringValue: name)
        guard container.contains(key), (try? container.decodeNil(forKey: key)) != true else { return nil }
        do {
            return try container.decode(T.self, forKey: key)
        } catch {
            let found = (try? container.decode(JSONValue.self, forKey: key)).map { "\($0)" } ?? "something else"
            throw self.error(#""\#(name)" must be \#(expected), found \#(found)"#)
        }
    }
}

/// Any JSON value, to say what a field held when it was not what the command needs.
enum JSONValue: Decodable, CustomStringConvertible {
    case string(String), number(Double), bool(Bool), array, object

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if (try? c.decode([JSONValue].self)) != nil {
            self = .array
        } else {
            self = .object
        }
    }

    var description: String {
        switch self {
        case .string(let s): "the string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .number(let n): "\(n)"
        case .bool(let b): "\(b)"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
