/// One target source as `fleetmesh sources --json` prints it. Field names are a stable API.
public struct TargetSourceReport: Codable, Sendable, Hashable {
    /// The source's DNS-SD instance name, or its configured "host:port".
    public var name: String
    /// Where subscriptions go.
    public var addresses: [String]
    /// Target updates accepted from it since this node started.
    public var targets: Int
    /// Milliseconds since its last update; nil if none yet.
    public var lastTargetMsAgo: Int?
    /// The last update: "UAV n", "UAV a,b,c" or "all", and the position.
    public var lastAddress: String?
    public var lastLatitude: Double?
    public var lastLongitude: Double?
    public var lastAltitude: Double?

    public init(
        name: String,
        addresses: [String],
        targets: Int,
        lastTargetMsAgo: Int? = nil,
        lastAddress: String? = nil,
        lastLatitude: Double? = nil,
        lastLongitude: Double? = nil,
        lastAltitude: Double? = nil
    ) {
        self.name = name
        self.addresses = addresses
        self.targets = targets
        self.lastTargetMsAgo = lastTargetMsAgo
        self.lastAddress = lastAddress
        self.lastLatitude = lastLatitude
        self.lastLongitude = lastLongitude
        self.lastAltitude = lastAltitude
    }
}

/// Everything the node's target-source subscriber knows (`sources`).
public struct TargetSourcesReport: Codable, Sendable, Hashable {
    /// Whether this node subscribes to target sources at all (`[targets] subscribe`).
    public var subscribing: Bool
    /// The UDP port subscriptions are sent from and targets arrive on.
    public var port: Int?
    public var sources: [TargetSourceReport]
    /// Refused datagrams by reason: size, magic, version, kind, replay, authentication, body.
    public var rejected: [String: Int]

    public init(
        subscribing: Bool,
        port: Int? = nil,
        sources: [TargetSourceReport],
        rejected: [String: Int]
    ) {
        self.subscribing = subscribing
        self.port = port
        self.sources = sources
        self.rejected = rejected
    }
}
