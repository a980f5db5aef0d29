import Dashboard

extension NodeConfiguration {
    /// `[metrics] listen = "address:port"`: where the node's own metrics listener listens (TCP); it must not be the
    /// dashboard's address, which serves `/metrics` itself.
    static func readMetrics(_ t: ConfigFields, dashboard: DashboardConfiguration?) throws(ConfigError)
        -> MetricsConfiguration
    {
        try t.rejectUnknownKeys(["listen"])
        guard let listen = try t.string("listen") else {
            throw t.error(
                "listen", "missing (an \"address:port\" such as \"[::1]:\(MetricsConfiguration.defaultPort)\")")
        }
        guard let endpoint = PeerEndpoint(parsing: listen), endpoint.scope == nil else {
            throw t.error(
                "listen",
                "expected \"address:port\" with a numeric address, such as \"[::1]:\(MetricsConfiguration.defaultPort)\" or \"127.0.0.1:\(MetricsConfiguration.defaultPort)\", found \"\(listen)\""
            )
        }
        if let dashboard, dashboard.port == endpoint.port,
            dashboard.host == endpoint.host || Self.isWildcard(dashboard.host) || Self.isWildcard(endpoint.host)
        {
            throw t.error(
                "listen",
                "\(listen) is the dashboard's port (\(dashboard.host):\(dashboard.port)), which serves /metrics already: choose another port or leave [metrics] out"
            )
        }
        return MetricsConfiguration(host: endpoint.host, port: endpoint.port)
    }

    private static func isWildcard(_ host: String) -> Bool { host == "0.0.0.0" || host == "::" }
}
