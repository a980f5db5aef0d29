/// The geofence as `fleetmesh geofence --json` prints it: the announcement in force on the node asked, and which
/// announcement every node it knows uses. Field names are a stable API.
public struct GeofenceReport: Codable, Sendable, Hashable {
    /// The station's announcement in force; nil while none is known (each drone flies its configured fence, if any).
    public var inForce: InForce?
    /// This node first, then every node it knows from the mesh's link-state advertisements, by name.
    public var nodes: [NodeFence]

    /// A station's announcement: a fence, or that there is none.
    public struct InForce: Codable, Sendable, Hashable {
        /// Corners `[latitude, longitude]` in degrees (to 10⁻⁷°), in order; nil: the station announced "no fence".
        public var corners: [[Double]]?
        /// Floor and ceiling, metres above home (nil with no fence).
        public var floor: Double?
        public var ceiling: Double?
        /// The station's epoch for it (its wall-clock milliseconds when it set it, or one above the fence it replaced).
        public var epoch: UInt64
        /// The announcing station's name (or short id), and its NodeID (32 hex digits).
        public var announcedBy: String
        public var announcedByNode: String
        /// Milliseconds since it was last heard (a station flooding it: since it last sent it).
        public var ageMs: Int

        public init(
            corners: [[Double]]?, floor: Double?, ceiling: Double?, epoch: UInt64, announcedBy: String,
            announcedByNode: String, ageMs: Int
        ) {
            self.corners = corners
            self.floor = floor
            self.ceiling = ceiling
            self.epoch = epoch
            self.announcedBy = announcedBy
            self.announcedByNode = announcedByNode
            self.ageMs = ageMs
        }
    }

    /// Which announcement one node uses.
    public struct NodeFence: Codable, Sendable, Hashable {
        /// NodeID (32 hex digits), name, `station` or `drone`, and a drone's UAV number.
        public var node: String
        public var name: String
        public var role: String
        public var uavNumber: Int?
        /// The epoch and announcing station (NodeID) of the announcement it uses; nil: none (a drone flying its
        /// configured fence, or a drone whose collision avoidance, which keeps it inside, is off).
        public var epoch: UInt64?
        public var announcedByNode: String?
        /// Whether that is the announcement in force on the node asked.
        public var current: Bool

        public init(
            node: String, name: String, role: String, uavNumber: Int?, epoch: UInt64?, announcedByNode: String?,
            current: Bool
        ) {
            self.node = node
            self.name = name
            self.role = role
            self.uavNumber = uavNumber
            self.epoch = epoch
            self.announcedByNode = announcedByNode
            self.current = current
        }
    }

    public init(inForce: InForce?, nodes: [NodeFence]) {
        self.inForce = inForce
        self.nodes = nodes
    }
}
