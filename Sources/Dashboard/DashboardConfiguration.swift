/// `[dashboard]`: where the station serves its dashboard and how often the live picture goes out.
public struct DashboardConfiguration: Sendable, Equatable {
    /// The address to listen on. Default `127.0.0.1`: only this machine; another address needs authentication.
    public var host: String
    /// TCP port. Default 8080.
    public var port: Int
    /// Periodic frames per second on the live WebSocket, and the default pace of pushed telemetry (1–20). Default 5.
    public var liveRateHz: Double
    /// `[[dashboard.accounts]]`: with none, no login (and loopback only); with any, every API request needs one.
    public var accounts: [DashboardAccount]
    /// `tiles`: an offline XYZ tile folder drawn under the grid; nil for the grid alone.
    public var tiles: DashboardTiles?
    /// `overlays`: GeoJSON files (geofence, site outline) drawn over the map, read when the configuration is.
    public var overlays: [DashboardOverlay]
    /// `tls_certificate` and `tls_key`: serve HTTPS (and WSS) with them; nil for plain HTTP.
    public var tls: DashboardTLS?
    /// `[dashboard.inspection]`: a site's point cloud to plan inspection routes in; nil for none.
    public var inspection: DashboardInspection?

    /// A configuration; every parameter defaults to the documented value.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, liveRateHz: Double = 5, accounts: [DashboardAccount] = [],
        tiles: DashboardTiles? = nil, overlays: [DashboardOverlay] = [], tls: DashboardTLS? = nil,
        inspection: DashboardInspection? = nil
    ) {
        self.inspection = inspection
        self.host = host
        self.port = port
        self.liveRateHz = liveRateHz
        self.accounts = accounts
        self.tiles = tiles
        self.overlays = overlays
        self.tls = tls
    }

    /// Whether `host` is a loopback address (the only kind served without authentication).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `https` with TLS, `http` without.
    public var scheme: String { tls == nil ? "http" : "https" }
}
