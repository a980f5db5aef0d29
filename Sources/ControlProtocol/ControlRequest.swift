/// The control protocol spoken on a node's control socket (docs/PROTOCOL.md §8).
public enum ControlProtocol {
    /// The version this build speaks; a request may say which it expects in `"v"`.
    public static let version = 1
}

/// A request to a node's control socket, one case per command. On the wire it is one flat JSON object whose
/// `command` names the case, with that command's fields beside it (`{"command":"send","uav":2,"args":["hover"]}`).
/// Decoding checks every field: an unknown field, a wrong type or a value out of range is a `ControlRequestError`
/// naming the field.
public enum ControlRequest: Sendable, Equatable {
    /// This node and every peer it knows.
    case status
    /// The same answer as `status` (the CLI prints only the peers).
    case peers
    /// The fleet picture.
    case vehicles
    /// Every drone's latest predicted trajectory.
    case airspace
    /// The map origin the fleet agrees on.
    case origin
    /// The target sources this node subscribes to.
    case sources
    /// A command to one drone, answered once its final answer is in.
    case send(Send)
    /// One command to several drones that start it at the same moment, answered once every final answer is in.
    case group(Group)
    /// A target location for one drone or all.
    case target(TargetLocation)
    /// A manual-control stream to some drones.
    case manual(Manual)
    /// The node's recent events (peers joining and lost, UAV numbers, leases, failsafes, map origin, commands), oldest
    /// first.
    case events(Events)
    /// The geofence in force and which one every known node uses.
    case geofence
    /// Stations: announce a geofence to the mesh (drones fly it in place of their configured one).
    case setGeofence(SetGeofence)
    /// Stations: announce that there is no geofence (drones fly without one, configured or not).
    case clearGeofence

    /// `setGeofence`: corners as `[latitude, longitude]` in degrees (3–64, in order), floor and ceiling in metres
    /// above home. The node checks the polygon (`SharedGeofence` in the coordinator) and names what is wrong.
    public struct SetGeofence: Sendable, Equatable {
        public var corners: [[Double]]
        public var floor: Double
        public var ceiling: Double

        public init(corners: [[Double]], floor: Double = 2, ceiling: Double = 120) {
            self.corners = corners
            self.floor = floor
            self.ceiling = ceiling
        }
    }

    /// `events`: those numbered above `after` (0: from the oldest kept), at most `limit` (1–1000) of them.
    public struct Events: Sendable, Equatable {
        public var after: Int
        public var limit: Int

        public init(after: Int = 0, limit: Int = 200) {
            self.after = after
            self.limit = limit
        }
    }

    /// `send`: the drone holding UAV number `uav` is told `args` (the command in words, e.g. ["takeoff", "10"]).
    public struct Send: Sendable, Equatable {
        /// 1–250.
        public var uav: Int
        public var args: [String]
        /// How long to wait for the final answer: 1–600,000 ms.
        public var timeoutMs: Int
        /// Take the drone's control lease even if another station holds it.
        public var takeover: Bool

        /// The most waypoints one `trajectory` command may carry (the node's parser and the dashboard's preview).
        public static let maxTrajectoryWaypoints = 200

        public init(uav: Int, args: [String], timeoutMs: Int = 30_000, takeover: Bool = false) {
            self.uav = uav
            self.args = args
            self.timeoutMs = timeoutMs
            self.takeover = takeover
        }
    }

    /// `group`: the drones holding `uavs` are each told `args` and all start it at one moment, `leadMs` after the node
    /// sends it (scheduled on every drone's own clock through the mesh's clock estimates).
    public struct Group: Sendable, Equatable {
        /// 1–250 distinct UAV numbers.
        public var uavs: [Int]
        public var args: [String]
        /// How far ahead of sending the drones start: 100–60,000 ms.
        public var leadMs: Int
        /// How long to wait for the final answers after the start: 1–600,000 ms.
        public var timeoutMs: Int
        /// Take the drones' control leases even if another station holds them.
        public var takeover: Bool

        /// The lead when none is given: enough for a relayed route and a retransmission or two.
        public static let defaultLeadMs = 1500
        /// The shortest and longest lead taken.
        public static let leadRangeMs = 100...60_000

        public init(
            uavs: [Int], args: [String], leadMs: Int = Group.defaultLeadMs, timeoutMs: Int = 30_000,
            takeover: Bool = false
        ) {
            self.uavs = uavs
            self.args = args
            self.leadMs = leadMs
            self.timeoutMs = timeoutMs
            self.takeover = takeover
        }
    }

    /// `target`: a position (degrees, metres above home) for one UAV number or for every drone.
    public struct TargetLocation: Sendable, Equatable {
        public enum Addressee: Sendable, Equatable {
            case uav(Int)
            case all
        }

        public var latitude: Double
        public var longitude: Double
        public var altitude: Double
        public var to: Addressee
        /// Also tell the addressed drones to follow the target.
        public var follow: Bool
        /// How long to wait for each follow command's answer, ms (clamped to 1–600,000).
        public var timeoutMs: Int

        public init(
            latitude: Double, longitude: Double, altitude: Double, to: Addressee, follow: Bool = false,
            timeoutMs: Int = 10_000
        ) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.to = to
            self.follow = follow
            self.timeoutMs = timeoutMs
        }
    }

    /// `manual`: samples of the axes x, y, z, r (−1000…1000) to `uavs` at `rateHz` (1–1000) for `durationMs`
    /// (1–600,000).
    public struct Manual: Sendable, Equatable {
        public var uavs: [Int]
        public var rateHz: Double
        public var durationMs: Int
        public var axes: [Int]
        public var takeover: Bool

        public init(
            uavs: [Int], rateHz: Double = 100, durationMs: Int = 5000, axes: [Int] = [0, 0, 0, 0],
            takeover: Bool = false
        ) {
            self.uavs = uavs
            self.rateHz = rateHz
            self.durationMs = durationMs
            self.axes = axes
            self.takeover = takeover
        }
    }

    /// The command's name on the wire.
    public var command: String {
        switch self {
        case .status: "status"
        case .peers: "peers"
        case .vehicles: "vehicles"
        case .airspace: "airspace"
        case .origin: "origin"
        case .sources: "sources"
        case .send: "send"
        case .group: "group"
        case .target: "target"
        case .manual: "manual"
        case .events: "events"
        case .geofence: "geofence"
        case .setGeofence: "setGeofence"
        case .clearGeofence: "clearGeofence"
        }
    }

    /// Every command, as the node lists them in its error for an unknown one.
    public static let commands = [
        "status", "peers", "vehicles", "airspace", "send", "group", "target", "origin", "sources", "manual", "events",
        "geofence", "setGeofence", "clearGeofence",
    ]
}

/// A control request that cannot be read: the message names the command and field and says what was wrong.
public struct ControlRequestError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
