/// `[metrics]`: a listener of the node's own serving `GET /metrics` (off unless configured). A station's dashboard
/// serves `/metrics` too; this is for nodes without one (drones) or a scraper that cannot log in to it.
public struct MetricsConfiguration: Sendable, Equatable {
    /// The address to listen on (`listen = "[::1]:9464"`: loopback; another address lets other machines read the
    /// node's figures, which command nothing).
    public var host: String
    /// TCP port.
    public var port: Int

    public init(host: String = "::1", port: Int = MetricsConfiguration.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Prometheus's registered default port for a node exporter of this kind.
    public static let defaultPort = 9464
}
