import Coordinator
import Flight

/// One vehicle's telemetry sample as this node had it: its own vehicle's state at the node's tick, another's as it
/// arrived over the mesh.
public struct TelemetryRecord: Sendable, Hashable {
    /// Wall-clock time this node had the sample, milliseconds since 1970 (UTC).
    public var timeMs: Int64
    /// The vehicle's node, 32 hex digits.
    public var node: String
    /// Its UAV number when it sent the sample (nil: none yet).
    public var uavNumber: Int?
    /// Its node name.
    public var name: String
    /// The sample, in the mesh's own integer units (1e-7 degrees, millimetres above home, cm/s, centidegrees).
    public var state: Coordinator.VehicleState

    public init(timeMs: Int64, node: String, uavNumber: Int?, name: String, state: Coordinator.VehicleState) {
        self.timeMs = timeMs
        self.node = node
        self.uavNumber = uavNumber
        self.name = name
        self.state = state
    }

    /// Whether the vehicle is off the ground (anything but `landed`).
    public var isAirborne: Bool { state.activity != .landed }
}

/// One of the node's events (`fleetmesh events`): commands and their answers, leases, UAV numbers, peers,
/// avoidance, failsafes, geofence, map origin.
public struct EventRecord: Sendable, Hashable {
    public var timeMs: Int64
    /// `command`, `lease`, `number`, `avoidance`, `failsafe`, `geofence`, `origin`, `peer`, `separation`, …
    public var kind: String
    /// The log level it was logged at (`info`, `notice`, `warning`, …).
    public var level: String
    public var text: String
    /// The node it is about, 32 hex digits.
    public var node: String?
    /// That node's UAV number when the event happened.
    public var uavNumber: Int?

    public init(timeMs: Int64, kind: String, level: String, text: String, node: String? = nil, uavNumber: Int? = nil) {
        self.timeMs = timeMs
        self.kind = kind
        self.level = level
        self.text = text
        self.node = node
        self.uavNumber = uavNumber
    }
}

/// A goto or trajectory this station commanded: the path it asked for, to compare with the path flown.
public struct PlanRecord: Sendable, Hashable {
    /// The command's id (as events print it).
    public var command: String
    public var timeMs: Int64
    public var uavNumber: Int
    /// `goto` or `trajectory`.
    public var kind: String
    /// The commanded speed, m/s (a goto's; nil: the drone's own).
    public var speed: Double?
    /// The waypoints in order: latitude, longitude (degrees), altitude (metres above home).
    public var waypoints: [[Double]]

    public init(command: String, timeMs: Int64, uavNumber: Int, kind: String, speed: Double?, waypoints: [[Double]]) {
        self.command = command
        self.timeMs = timeMs
        self.uavNumber = uavNumber
        self.kind = kind
        self.speed = speed
        self.waypoints = waypoints
    }
}

/// A drone's predicted trajectory as this node had it (decimated: at most one a second per drone, every 4th point).
public struct PredictionRecord: Sendable, Hashable {
    public var timeMs: Int64
    public var node: String
    public var uavNumber: Int?
    /// Time between consecutive points, ms.
    public var stepMs: Int
    /// The points: latitude, longitude (degrees), metres above home.
    public var points: [[Double]]
    /// Whether the drone was avoiding another when it predicted this.
    public var avoiding: Bool

    public init(timeMs: Int64, node: String, uavNumber: Int?, stepMs: Int, points: [[Double]], avoiding: Bool) {
        self.timeMs = timeMs
        self.node = node
        self.uavNumber = uavNumber
        self.stepMs = stepMs
        self.points = points
        self.avoiding = avoiding
    }
}

/// What a node hands its flight log.
public enum FlightRecord: Sendable, Hashable {
    case telemetry(TelemetryRecord)
    case event(EventRecord)
    /// A commanded path.
    case plan(PlanRecord)
    /// A drone's predicted trajectory.
    case prediction(PredictionRecord)
    /// A commanded path's answer: `accepted`, `completed`, `failed` or `rejected`, at `timeMs`.
    case planAnswer(command: String, outcome: String, timeMs: Int64)
    /// A target this node sent.
    case target(TargetRecord)
    /// A manual-control session this station held.
    case manualSession(ManualSessionRecord)
}

/// A target location this station sent (`fleetmesh target`, the dashboard) or passed on from a target source.
public struct TargetRecord: Sendable, Hashable {
    public var timeMs: Int64
    /// The UAV it was for; nil: several or every drone (`address` says which).
    public var uavNumber: Int?
    /// `UAV 3`, `UAVs 2, 5`, `all`.
    public var address: String
    public var latitude: Double
    public var longitude: Double
    /// Metres above home.
    public var altitude: Double
    /// `operator`, or the target source's name.
    public var source: String

    public init(
        timeMs: Int64, uavNumber: Int?, address: String, latitude: Double, longitude: Double, altitude: Double,
        source: String
    ) {
        self.timeMs = timeMs
        self.uavNumber = uavNumber
        self.address = address
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.source = source
    }
}

/// A manual-control session: this station's samples to one UAV with no gap over a second; not every sample, the rate
/// held.
public struct ManualSessionRecord: Sendable, Hashable {
    public var uavNumber: Int
    public var startMs: Int64
    public var endMs: Int64
    public var samples: Int
    /// Whether it took the control lease from another station.
    public var takeover: Bool

    public init(uavNumber: Int, startMs: Int64, endMs: Int64, samples: Int, takeover: Bool) {
        self.uavNumber = uavNumber
        self.startMs = startMs
        self.endMs = endMs
        self.samples = samples
        self.takeover = takeover
    }

    /// Samples per second held over the session.
    public var rateHz: Double { endMs > startMs ? Double(samples - 1) * 1000 / Double(endMs - startMs) : 0 }
}

/// One start of the recording node: who it is and what it ran (the mission's metadata).
public struct RunRecord: Sendable, Hashable {
    public var startedMs: Int64
    /// The recording node, 32 hex digits, its name and role.
    public var node: String
    public var name: String
    public var role: String
    /// This start's incarnation (hex).
    public var incarnation: String
    /// The software that recorded.
    public var softwareVersion: String
    /// SHA-256 of the configuration file's text (hex), to tell two runs' settings apart.
    public var configDigest: String
    /// The mission's map origin as the node knew it at start ("lat, lon, alt"), if it had one.
    public var mapOrigin: String?

    /// The map origin's altitude (metres above sea level, the last of its three numbers), if it had one.
    public var mapOriginAltitude: Double? {
        mapOrigin.flatMap { $0.split(separator: ",").last.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
    }

    public init(
        startedMs: Int64, node: String, name: String, role: String, incarnation: String, softwareVersion: String,
        configDigest: String, mapOrigin: String?
    ) {
        self.startedMs = startedMs
        self.node = node
        self.name = name
        self.role = role
        self.incarnation = incarnation
        self.softwareVersion = softwareVersion
        self.configDigest = configDigest
        self.mapOrigin = mapOrigin
    }
}
