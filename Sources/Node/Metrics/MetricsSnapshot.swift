import Membership
import MeshTypes

/// What the node's metrics show, read on the node's actor in one go at each scrape (`NodeShell.metricsSnapshot`) and
/// rendered off it (`NodeMetrics.render`): counts the node keeps anyway, sampled rather than counted twice.
struct MetricsSnapshot: Sendable {
    /// Seconds since the node started.
    var uptimeSeconds = 0.0
    /// Peers of the membership table by state (every state present, zero or not), and live sessions.
    var peers: [PeerState: Int] = [:]
    var sessions = 0
    /// Nodes reached only through a relay (a route, no session).
    var relayedNodes = 0
    /// The mesh socket's datagrams and bytes by kind.
    var traffic = DatagramTally()
    /// Datagrams the mesh layer refused, by its categories (`MeshCore.rejections`).
    var rejections: [String: Int] = [:]
    /// Datagrams that reached the socket but were never read: dropped by the kernel (the receive buffer full) and by the
    /// node's queue to its actor (`UDPTransport.ReceiveBuffer`).
    var unreadByKernel = 0
    var unreadByQueue = 0
    /// Times the UDP socket was bound again after a send error.
    var socketRebinds = 0
    /// Floods this node held to forward and dropped: other relays had served every neighbour (`NodeCore.floodsPruned`).
    var floodsPruned = 0
    /// Every round trip measured.
    var roundTrips = LatencyHistogram()
    /// How long group datagrams waited between their arrival and the node's next look (`NodeShell.receiveHeld`).
    var groupWaits = LatencyHistogram()
    /// Vehicles of the fleet picture besides this node's own, fresh and stale, and the oldest fresh one's telemetry
    /// age in seconds (nil: none).
    var liveVehicles = 0
    var staleVehicles = 0
    var oldestTelemetrySeconds: Double?
    /// The smallest horizontal distance between two airborne drones within the vertical separation of each other,
    /// now and over the prediction horizon, in metres (nil: no such pair).
    var separationNow: Double?
    var separationPredicted: Double?
    /// Manual-control samples obeyed (drones), targets from target sources passed on.
    var manualSamples = 0
    var targetsFromSources = 0
    /// Whether the node's Avahi client has its daemon (nil: the node runs none).
    var avahiUp: Bool?
    /// The node's publication pace, 0 full, 1 reduced, 2 minimal.
    var publicationPace: Int?
}
