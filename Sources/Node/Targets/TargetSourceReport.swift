/// One target source as `fleetmesh sources --json` prints it. Field names are a stable API.
public struct TargetSourceReport: Codable, Sendable, Equatable {
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
}

/// Everything the node's target-source subscriber knows (`sources`).
public struct TargetSourcesReport: Codable, Sendable, Equatable {
    /// Whether this node subscribes to target sources at all (`[targets] subscribe`).
    public var subscribing: Bool
    /// The UDP port subscriptions are sent from and targets arrive on.
    public var port: Int?
    public var sources: [TargetSourceReport]
    /// Refused datagrams by reason: size, magic, version, kind, replay, authentication, body.
    public var rejected: [String: Int]
}
