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
    }

    public var node: LocalNode
    public var peers: [Peer]
}

/// A request to a node's control socket: one JSON object per line.
public struct ControlRequest: Codable, Sendable {
    public var command: String
    public init(command: String) { self.command = command }
}

/// The answer: exactly one of `status` or `error`.
public struct ControlResponse: Codable, Sendable {
    public var status: NodeStatus?
    public var error: String?
    public init(status: NodeStatus? = nil, error: String? = nil) {
        self.status = status
        self.error = error
    }
}
