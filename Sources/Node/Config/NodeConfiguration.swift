import ControlProtocol
import Dashboard
import Geodesy
import Membership
import MeshTypes

/// A node's configuration, read from a TOML file (see Config/station.toml and Config/drone.toml).
public struct NodeConfiguration: Sendable, Equatable {
    /// Display name, advertised as the DNS-SD instance name (1–63 bytes).
    public var name: String
    public var role: NodeRole
    /// Path of the mesh key file (64 hex digits), resolved against the config file's folder.
    public var keyFile: String
    /// Where the node keeps its identity and UAV number.
    public var stateDirectory: String
    /// The Unix socket the CLI talks to.
    public var controlSocket: String
    /// UDP port for sessions; 0 picks a free one.
    public var port: Int
    /// Publish this node over DNS-SD.
    public var advertise: Bool
    /// Browse for other nodes over DNS-SD.
    public var discover: Bool
    /// Unicast peers for networks where mDNS does not pass, as "host:port" or "[v6%if]:port".
    public var staticPeers: [String]
    /// Use the segment's group channel (`[network] group`, default true): presence and floods once by link-local
    /// multicast (`ff02::464d`, the node's port) on the links where the node discovers peers. Only with `discover`.
    public var group = true
    /// The interfaces the group channel uses (`[network] group_interfaces`); empty: every interface that is up,
    /// multicast-capable, not loopback, with an IPv6 address.
    public var groupInterfaces: [String] = []
    /// Use the group channel even without `discover` (not in the config file): the lab's drone emulator, whose drones
    /// dial their station as a static peer and share its link as drones in the field do.
    public var groupWithoutDiscovery = false
    /// Make the mesh socket in this network namespace, a path such as `/run/netns/NAME` (not in the config file): the
    /// lab's drone emulator, one namespace per drone so that each has the link's port to itself.
    public var networkNamespace: String?
    public var membership: MembershipConfiguration
    /// A pinned UAV number (drones only), 1–250.
    public var uavNumber: Int?
    /// Log level: trace, debug, info, notice, warning, error, critical.
    public var logLevel: String
    /// Drones: where the simulated vehicle's home is (`[drone] home`); nil = `HomeLocation.default`.
    public var home: HomeLocation?
    /// Stations: the map origin announced to the mesh (`[mission] origin` and `zone`); nil = none.
    public var mapOrigin: MissionOrigin?
    /// Whether to find target sources (`_loc-broadcaster._udp`) and pass their targets into the mesh
    /// (`[targets] subscribe`; default true on stations, false on drones).
    public var subscribeToTargetSources = false
    /// Target sources at fixed addresses, as "host:port" (`[targets] sources`); subscribed to even without mDNS.
    public var targetSources: [String] = []
    /// Telemetry and prediction rates, failsafe timing (`[coordinator]`).
    public var coordinator = CoordinatorSettings()
    /// Collision avoidance of a drone flying the simulator (`[avoidance]`).
    public var avoidance = AvoidanceSettings()
    /// Drones: what the node flies (`[drone] vehicle`): the simulator, or an autopilot over MAVLink.
    public var vehicle: VehicleSource = .simulator
    /// Drones with a MAVLink vehicle: the autopilot's system id (`[drone] autopilot_sysid`); nil = learnt from its HEARTBEAT.
    public var autopilotSystemID: Int?
    /// Stations: the endpoint for ground-control software (`[ground_control]`); nil = none.
    public var groundControl: GroundControlConfiguration?
    /// The dashboard (`[dashboard]`): on by default for stations, off for drones; nil = none.
    public var dashboard: DashboardConfiguration?
    /// A listener of its own for the node's Prometheus metrics (`[metrics] listen`); nil = none (a station's
    /// dashboard serves `/metrics` anyway).
    public var metrics: MetricsConfiguration?
    /// `[log]`: the flight log (on by default, in the state directory).
    public var flightLog = FlightLogSettings()
    /// SHA-256 of the configuration file's text (hex; empty for a configuration built in code), recorded with each
    /// run in the flight log.
    public var digest = ""

    public init(
        name: String, role: NodeRole, keyFile: String, stateDirectory: String, controlSocket: String,
        port: Int = NodeConfiguration.defaultPort, advertise: Bool = true, discover: Bool = true,
        staticPeers: [String] = [], membership: MembershipConfiguration = .init(), uavNumber: Int? = nil,
        logLevel: String = "info"
    ) {
        self.name = name
        self.role = role
        self.keyFile = keyFile
        self.stateDirectory = stateDirectory
        self.controlSocket = controlSocket
        self.port = port
        self.advertise = advertise
        self.discover = discover
        self.staticPeers = staticPeers
        self.membership = membership
        self.uavNumber = uavNumber
        self.logLevel = logLevel
    }

    /// The default UDP port of a FleetMesh node.
    public static let defaultPort = 47800

    /// The DNS-SD service type every node publishes and browses.
    public static let serviceType = "_fleetmesh._udp"

    /// Where the CLI looks for control sockets, and where nodes put them by default.
    public static var defaultRunDirectory: String { ControlClient.defaultRunDirectory }
}

/// A drone's home position (latitude and longitude in degrees), from `[drone] home = [lat, lon]`.
public struct HomeLocation: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Used when the configuration names no home.
    public static let `default` = HomeLocation(latitude: 50.0755, longitude: 14.4378)
}

/// A station's map origin from `[mission] origin = [lat, lon, alt]` and the optional `[mission] zone = "33N"`.
public struct MissionOrigin: Sendable, Equatable {
    /// Degrees.
    public var latitude: Double
    /// Degrees.
    public var longitude: Double
    /// Metres.
    public var altitude: Double
    /// A forced UTM zone; nil for the origin's standard zone.
    public var zone: UTMZone?

    public init(latitude: Double, longitude: Double, altitude: Double = 0, zone: UTMZone? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.zone = zone
    }
}

extension NodeConfiguration {
    /// Whether the node uses the group channel: configured on, and the node discovers peers on its links (a node
    /// that only has static peers sends no multicast at all, unless `groupWithoutDiscovery`).
    public var usesGroup: Bool { group && (discover || groupWithoutDiscovery) }
}
