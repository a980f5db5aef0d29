import MeshTypes

/// What `fleetmesh status --json` prints: this node and every peer it knows. Field names are a stable API.
public struct NodeStatus: Codable, Sendable {
    public struct LocalNode: Codable, Sendable {
        public var id: String
        public var name: String
        /// The name Avahi published (differs from `name` after a collision).
        public var publishedName: String?
        public var role: String
        public var uavNumber: Int?
        public var incarnation: String
        public var port: Int
        public var fingerprint: String
        public var uptimeMs: Int
        /// "running", "waiting for avahi-daemon", or Avahi's error.
        public var avahi: String
        /// Datagrams refused since start, by reason (wrongMeshKey, replayedCounter, malformed, …).
        public var rejections: [String: Int]
    }

    public struct Peer: Codable, Sendable {
        public var id: String
        public var name: String?
        public var role: String?
        public var uavNumber: Int?
        public var address: String?
        /// A membership state (discovered … left), or `relayed` for a node reached only through others.
        public var state: String
        public var hops: Int
        public var incarnation: String?
        /// Milliseconds since anything was heard from the peer.
        public var lastHeardMsAgo: Int?
        public var rttMs: Double?
        public var linkQuality: Double?
        /// When, after this node started, the peer was first seen and first in session.
        public var discoveredAtMs: Int?
        public var establishedAtMs: Int?
        /// Milliseconds after this node's start when the peer entered its current state (e.g. back in session).
        public var stateSinceMs: Int?
    }

    /// A DNS-SD advert of this mesh whose identity no handshake has proven yet: anyone can publish one (the mesh
    /// fingerprint is public), so it never carries a UAV number, and a name an authenticated peer holds is withheld.
    public struct UnverifiedAdvert: Codable, Sendable {
        /// The node id the advert claims.
        public var claimedID: String
        /// The name the advert claims; nil when an authenticated peer holds it.
        public var claimedName: String?
        public var address: String?
        /// `discovered` or `handshaking`.
        public var state: String
        /// Milliseconds since it was first seen.
        public var seenForMs: Int
    }

    public var node: LocalNode
    /// Peers whose identity a handshake proved (in session now or before), and nodes reached through them.
    public var peers: [Peer]
    /// Adverts not (yet) authenticated: listed apart, never as a peer.
    public var unverified: [UnverifiedAdvert]?
    /// The map origin this node agrees on, if any (as the `origin` command reports it).
    public var mapOrigin: OriginReport?
    /// Drones: the manual-control samples obeyed so far, if any.
    public var manualControl: ManualControlReport?
    /// Drones flying an autopilot (`[drone] vehicle = "mavlink:…"`): the link and what the autopilot reports.
    public var autopilot: AutopilotReport?
}

/// A request to a node's control socket: one JSON object per line. Only `command` is required; the other fields
/// belong to particular commands (`send`: uav, args, timeoutMs; `target`: latitude, longitude, altitude, uav or all,
/// follow).
public struct ControlRequest: Codable, Sendable {
    public var command: String
    /// `send`, `target`: the UAV number addressed.
    public var uav: Int?
    /// `send`: the drone command and its arguments, e.g. ["takeoff", "10"].
    public var args: [String]?
    /// `send`: how long to wait for the final answer, milliseconds (default 30000).
    public var timeoutMs: Int?
    /// `target`: the position, degrees and metres.
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    /// `target`: address every drone.
    public var all: Bool?
    /// `target`: also tell the addressed drones to follow the target.
    public var follow: Bool?
    /// `send`: take control of the drone even if another station holds its lease.
    public var takeover: Bool?
    /// `manual`: the UAV numbers to stream to, samples per second (default 100), how long (ms, default 5000), and
    /// the axes x, y, z, r (−1000…1000; default 0 0 0 0).
    public var uavs: [Int]?
    public var rateHz: Double?
    public var durationMs: Int?
    public var axes: [Int]?

    public init(command: String, uav: Int? = nil, args: [String]? = nil, timeoutMs: Int? = nil,
                latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil,
                all: Bool? = nil, follow: Bool? = nil) {
        self.command = command
        self.uav = uav
        self.args = args
        self.timeoutMs = timeoutMs
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.all = all
        self.follow = follow
        self.takeover = nil
    }
}

/// The answer: exactly one of its fields, by command (`status`, `vehicles`, `airspace`, `command`, `target`,
/// `origin`, `sources`), or `error`.
public struct ControlResponse: Codable, Sendable {
    public var status: NodeStatus?
    public var error: String?
    public var vehicles: [VehicleReport]?
    public var airspace: [AirspaceReport]?
    public var command: CommandReport?
    public var target: TargetReport?
    public var origin: OriginReport?
    public var sources: TargetSourcesReport?
    public var manual: ManualStreamReport?

    public init(status: NodeStatus? = nil, error: String? = nil, vehicles: [VehicleReport]? = nil,
                airspace: [AirspaceReport]? = nil, command: CommandReport? = nil, target: TargetReport? = nil,
                origin: OriginReport? = nil, sources: TargetSourcesReport? = nil, manual: ManualStreamReport? = nil) {
        self.status = status
        self.error = error
        self.vehicles = vehicles
        self.airspace = airspace
        self.command = command
        self.target = target
        self.origin = origin
        self.sources = sources
        self.manual = manual
    }
}
