/// What `fleetmesh status --json` prints: this node and every peer it knows. Field names are a stable API.
public struct NodeStatus: Codable, Sendable, Hashable {
    public struct LocalNode: Codable, Sendable, Hashable {
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
        /// A station's ground-control endpoint (`[ground_control]`): "listening on UDP 14550", or why not; nil without.
        public var groundControl: String?
        /// The mesh socket's traffic: this node's own load on the link.
        public var traffic: Traffic?
        /// The last problem with each address that refused or ignored this node's handshakes (newest first):
        /// what `fleetmesh doctor` shows for a peer seen on DNS-SD but not in session.
        public var handshakeProblems: [HandshakeProblem]?

        public init(
            id: String,
            name: String,
            publishedName: String? = nil,
            role: String,
            uavNumber: Int? = nil,
            incarnation: String,
            port: Int,
            fingerprint: String,
            uptimeMs: Int,
            avahi: String,
            rejections: [String: Int],
            groundControl: String? = nil,
            traffic: Traffic? = nil,
            handshakeProblems: [HandshakeProblem]? = nil
        ) {
            self.id = id
            self.name = name
            self.publishedName = publishedName
            self.role = role
            self.uavNumber = uavNumber
            self.incarnation = incarnation
            self.port = port
            self.fingerprint = fingerprint
            self.uptimeMs = uptimeMs
            self.avahi = avahi
            self.rejections = rejections
            self.groundControl = groundControl
            self.traffic = traffic
            self.handshakeProblems = handshakeProblems
        }
    }

    /// A refused or unanswered handshake with one address.
    public struct HandshakeProblem: Codable, Sendable, Hashable {
        /// The address as a person writes it (`10.77.1.2:47800`, `[fe80::1%eth0]:47800`).
        public var address: String
        public var problem: String
        /// A rejection's category (wrongMeshKey, unsupportedVersion, …) or `unanswered`.
        public var category: String
        public var msAgo: Int
        public var count: Int

        public init(address: String, problem: String, category: String, msAgo: Int, count: Int) {
            self.address = address
            self.problem = problem
            self.category = category
            self.msAgo = msAgo
            self.count = count
        }
    }

    /// UDP payload received and sent on the mesh socket (handshakes, sessions, everything the mesh carries).
    public struct Traffic: Codable, Sendable, Hashable {
        /// Per second, averaged over the last 5 whole seconds.
        public var bytesInPerSecond: Double
        public var bytesOutPerSecond: Double
        public var datagramsInPerSecond: Double
        public var datagramsOutPerSecond: Double
        /// Totals since start.
        public var bytesIn: Int
        public var bytesOut: Int
        public var datagramsIn: Int
        public var datagramsOut: Int
        /// Datagrams that reached the socket but were never read, since start: the kernel dropped them, the socket's
        /// receive buffer full (the node was behind), or the node's queue to its actor was full.
        public var droppedByKernel: Int?
        public var droppedByQueue: Int?
        /// The socket's receive buffer in bytes, as the kernel grants it (twice what is asked, up to twice
        /// `net.core.rmem_max`).
        public var receiveBuffer: Int?
        /// The node's publication pace: `full`, or `reduced` / `minimal` while it is behind (short of CPU) and publishes
        /// less often (a drone its telemetry and predictions; every node the changes of its neighbours).
        public var publicationPace: String?

        public init(
            bytesInPerSecond: Double, bytesOutPerSecond: Double, datagramsInPerSecond: Double,
            datagramsOutPerSecond: Double, bytesIn: Int, bytesOut: Int, datagramsIn: Int, datagramsOut: Int,
            droppedByKernel: Int? = nil, droppedByQueue: Int? = nil, receiveBuffer: Int? = nil,
            publicationPace: String? = nil
        ) {
            self.bytesInPerSecond = bytesInPerSecond
            self.bytesOutPerSecond = bytesOutPerSecond
            self.datagramsInPerSecond = datagramsInPerSecond
            self.datagramsOutPerSecond = datagramsOutPerSecond
            self.bytesIn = bytesIn
            self.bytesOut = bytesOut
            self.datagramsIn = datagramsIn
            self.datagramsOut = datagramsOut
            self.droppedByKernel = droppedByKernel
            self.droppedByQueue = droppedByQueue
            self.receiveBuffer = receiveBuffer
            self.publicationPace = publicationPace
        }
    }

    public struct Peer: Codable, Sendable, Hashable {
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

        public init(
            id: String,
            name: String? = nil,
            role: String? = nil,
            uavNumber: Int? = nil,
            address: String? = nil,
            state: String,
            hops: Int,
            incarnation: String? = nil,
            lastHeardMsAgo: Int? = nil,
            rttMs: Double? = nil,
            linkQuality: Double? = nil,
            discoveredAtMs: Int? = nil,
            establishedAtMs: Int? = nil,
            stateSinceMs: Int? = nil
        ) {
            self.id = id
            self.name = name
            self.role = role
            self.uavNumber = uavNumber
            self.address = address
            self.state = state
            self.hops = hops
            self.incarnation = incarnation
            self.lastHeardMsAgo = lastHeardMsAgo
            self.rttMs = rttMs
            self.linkQuality = linkQuality
            self.discoveredAtMs = discoveredAtMs
            self.establishedAtMs = establishedAtMs
            self.stateSinceMs = stateSinceMs
        }
    }

    /// A DNS-SD advert of this mesh whose identity no handshake has proven yet: anyone can publish one (the mesh
    /// fingerprint is public), so it never carries a UAV number, and a name an authenticated peer holds is withheld.
    public struct UnverifiedAdvert: Codable, Sendable, Hashable {
        /// The node id the advert claims.
        public var claimedID: String
        /// The name the advert claims; nil when an authenticated peer holds it.
        public var claimedName: String?
        public var address: String?
        /// `discovered` or `handshaking`.
        public var state: String
        /// Milliseconds since it was first seen.
        public var seenForMs: Int

        public init(
            claimedID: String,
            claimedName: String? = nil,
            address: String? = nil,
            state: String,
            seenForMs: Int
        ) {
            self.claimedID = claimedID
            self.claimedName = claimedName
            self.address = address
            self.state = state
            self.seenForMs = seenForMs
        }
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
    /// The node's flight log (absent when `[log] flight_log = false`).
    public var flightLog: FlightLogReport?

    public init(
        node: LocalNode,
        peers: [Peer],
        unverified: [UnverifiedAdvert]? = nil,
        mapOrigin: OriginReport? = nil,
        manualControl: ManualControlReport? = nil,
        autopilot: AutopilotReport? = nil,
        flightLog: FlightLogReport? = nil
    ) {
        self.node = node
        self.peers = peers
        self.unverified = unverified
        self.mapOrigin = mapOrigin
        self.manualControl = manualControl
        self.autopilot = autopilot
        self.flightLog = flightLog
    }
}

/// The node's flight log: where it records, whether it can, and how much it wrote and lost.
public struct FlightLogReport: Codable, Sendable, Hashable {
    public var path: String
    /// Whether the last batch was written.
    public var recording: Bool
    /// Why it cannot record, when it cannot.
    public var problem: String?
    /// Records written since the node started.
    public var written: Int
    /// Records lost since the node started (queue full, or the log could not be written).
    public var dropped: Int
    /// The log's size on disk, with its write-ahead file.
    public var bytes: Int64
    /// Shipping to PostgreSQL (`[log] postgres`).
    public var shipping: FlightLogShippingReport?

    public init(
        path: String, recording: Bool, problem: String?, written: Int, dropped: Int, bytes: Int64,
        shipping: FlightLogShippingReport? = nil
    ) {
        self.path = path
        self.recording = recording
        self.problem = problem
        self.written = written
        self.dropped = dropped
        self.bytes = bytes
        self.shipping = shipping
    }
}

/// How far the flight log has been shipped to its PostgreSQL server.
public struct FlightLogShippingReport: Codable, Sendable, Hashable {
    /// The server, without its password.
    public var target: String
    /// Whether the node is connected and the last batch was stored.
    public var connected: Bool
    /// Why it cannot ship, when it cannot (it retries; records wait in the local log).
    public var problem: String?
    /// Rows stored on the server since the node started.
    public var shipped: Int
    /// Telemetry, event and prediction rows the server does not have yet.
    public var backlog: Int
    /// Milliseconds from a telemetry sample's time to its commit on the server, for the last batch.
    public var lagMs: Int64?

    public init(target: String, connected: Bool, problem: String?, shipped: Int, backlog: Int, lagMs: Int64?) {
        self.target = target
        self.connected = connected
        self.problem = problem
        self.shipped = shipped
        self.backlog = backlog
        self.lagMs = lagMs
    }
}
