import Foundation
import MeshTypes
import TOMLFields

/// What a drone node flies (`[drone] vehicle`).
public enum VehicleSource: Sendable, Equatable, CustomStringConvertible {
    /// The built-in multirotor simulator (the default).
    case simulator
    /// A real autopilot (PX4 or ArduPilot) over MAVLink.
    case mavlink(AutopilotEndpoint)

    public var description: String {
        switch self {
        case .simulator: return "simulator"
        case .mavlink(let e): return "mavlink:\(e)"
        }
    }
}

/// Where a drone's autopilot is.
public enum AutopilotEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The bridge sends to HOST:PORT from a port of its own (the autopilot, or a router, listens there; it answers to
    /// the address the bridge sends from). `mavlink:udp:HOST:PORT`.
    case udp(host: String, port: Int)
    /// The bridge listens on PORT and answers whoever sends from there (the autopilot or a router sends to it, as
    /// ArduPilot's `--out` or mavlink-router's client endpoints do). `mavlink:udpin:PORT`.
    case udpIn(port: Int)
    /// A serial port (a telemetry UART or USB) at a baud rate, 8N1, raw. `mavlink:serial:/dev/ttyX:57600`.
    case serial(path: String, baud: Int)

    public var description: String {
        switch self {
        case .udp(let host, let port): return "udp:\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .udpIn(let port): return "udpin:\(port)"
        case .serial(let path, let baud): return "serial:\(path):\(baud)"
        }
    }

    /// Baud rates a serial link may use.
    public static let baudRates = [
        9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600, 1000000,
        1500000, 2000000, 3000000,
    ]
}

/// A station's ground-control endpoint (`[ground_control]`): where QGroundControl, MAVProxy and other MAVLink
/// software see the fleet.
public struct GroundControlConfiguration: Sendable, Equatable {
    /// The UDP port it listens on (QGroundControl's and MAVProxy's usual 14550 by default).
    public var port: Int
    /// Publish `_mavlink._udp` over DNS-SD, so QGroundControl connects by itself.
    public var advertise: Bool
    /// Fixed destinations ("host:port") that get the streams without sending anything first, e.g. a QGroundControl
    /// listening on 127.0.0.1:14550 on the same laptop.
    public var targets: [String]

    public init(port: Int = GroundControlConfiguration.defaultPort, advertise: Bool = true, targets: [String] = []) {
        self.port = port
        self.advertise = advertise
        self.targets = targets
    }

    public static let defaultPort = 14550
    /// The DNS-SD service type ground-control software browses for.
    public static let serviceType = "_mavlink._udp"
}

extension NodeConfiguration {
    /// `[drone] vehicle` and `autopilot_sysid`.
    static func droneVehicle(_ d: ConfigFields, role: NodeRole, into config: inout NodeConfiguration)
        throws(ConfigError)
    {
        if let text = try d.string("vehicle") {
            guard role == .drone else { throw d.roleError("vehicle", "only drones fly a vehicle", role: role) }
            config.vehicle = try parseVehicle(text, in: d)
        }
        if let n = try d.integer("autopilot_sysid") {
            guard (1...255).contains(n) else {
                throw d.error("autopilot_sysid", "must be a MAVLink system id 1–255, found \(n)")
            }
            guard case .mavlink = config.vehicle else {
                throw d.error(
                    "autopilot_sysid",
                    "only a MAVLink vehicle has an autopilot system id; set vehicle = \"mavlink:…\" (now \"\(config.vehicle)\")"
                )
            }
            config.autopilotSystemID = n
        }
    }

    /// `"simulator"`, `"mavlink:udp:HOST:PORT"`, `"mavlink:udpin:PORT"` or `"mavlink:serial:DEVICE:BAUD"`.
    static func parseVehicle(_ text: String, in d: ConfigFields) throws(ConfigError) -> VehicleSource {
        func fail(_ problem: String) -> ConfigError { d.error("vehicle", problem) }
        let shapes =
            "\"simulator\", \"mavlink:udp:HOST:PORT\", \"mavlink:udpin:PORT\" or \"mavlink:serial:DEVICE:BAUD\""
        if text == "simulator" { return .simulator }
        guard text.hasPrefix("mavlink:") else { throw fail("expected \(shapes), found \"\(text)\"") }
        let rest = text.dropFirst("mavlink:".count)
        func port(_ s: Substring, _ what: String) throws(ConfigError) -> Int {
            guard let p = Int(s), (1...65535).contains(p) else {
                throw fail("\(what) must be a UDP port 1–65535, found \"\(s)\"")
            }
            return p
        }
        if rest.hasPrefix("udp:") {
            let endpoint = String(rest.dropFirst("udp:".count))
            guard let peer = PeerEndpoint(parsing: endpoint) else {
                throw fail(
                    "expected mavlink:udp:HOST:PORT with a numeric IPv4 address or [IPv6] and a port 1–65535, found \"\(text)\""
                )
            }
            return .mavlink(.udp(host: peer.scope.map { "\(peer.host)%\($0)" } ?? peer.host, port: peer.port))
        }
        if rest.hasPrefix("udpin:") {
            return .mavlink(.udpIn(port: try port(rest.dropFirst("udpin:".count), "mavlink:udpin:PORT: the port")))
        }
        if rest.hasPrefix("serial:") {
            let spec = rest.dropFirst("serial:".count)
            guard let colon = spec.lastIndex(of: ":"), colon != spec.startIndex else {
                throw fail(
                    "expected mavlink:serial:DEVICE:BAUD, e.g. mavlink:serial:/dev/ttyUSB0:57600, found \"\(text)\"")
            }
            let path = String(spec[..<colon])
            let baudText = spec[spec.index(after: colon)...]
            guard path.hasPrefix("/") else {
                throw fail("the serial device must be an absolute path such as /dev/ttyUSB0, found \"\(path)\"")
            }
            guard let baud = Int(baudText), AutopilotEndpoint.baudRates.contains(baud) else {
                throw fail(
                    "the baud rate must be one of \(AutopilotEndpoint.baudRates.map(String.init).joined(separator: ", ")), found \"\(baudText)\""
                )
            }
            return .mavlink(.serial(path: path, baud: baud))
        }
        throw fail(
            "unknown MAVLink link \"\(rest.prefix { $0 != ":" })\" (known: udp, udpin, serial); expected \(shapes)")
    }

    /// `[ground_control]`: stations only.
    static func groundControlEndpoint(_ g: ConfigFields, role: NodeRole) throws(ConfigError)
        -> GroundControlConfiguration?
    {
        guard role == .station else {
            throw g.roleError("", "only stations serve ground-control software", role: role)
        }
        try g.rejectUnknownKeys(["enabled", "port", "advertise", "targets"])
        guard try g.bool("enabled", default: true) else { return nil }
        var c = GroundControlConfiguration()
        if let port = try g.integer("port", in: 1...65535) { c.port = port }
        c.advertise = try g.bool("advertise", default: true)
        c.targets = try g.endpoints("targets") ?? []
        return c
    }
}
