import ControlProtocol
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The station dashboard as one `Service`: an HTTP server with the JSON API (`/api/v1/…`), the live picture on a
/// WebSocket (`/api/v1/live`), the health endpoints and the page with its browser libraries, all from this machine.
/// On graceful shutdown `/readyz` fails at once, every live stream ends and the server stops.
public struct DashboardService: Service, CustomStringConvertible {
    let configuration: DashboardConfiguration
    let backend: DashboardBackend
    let clock: ContinuousClock
    let logger: Logger

    /// A dashboard for `backend`, taking its live pictures on the node's `clock`.
    public init(
        configuration: DashboardConfiguration, backend: DashboardBackend, clock: ContinuousClock, logger: Logger
    ) {
        self.configuration = configuration
        self.backend = backend
        self.clock = clock
        self.logger = logger
    }

    public var description: String { "DashboardService(\(configuration.host):\(configuration.port))" }

    /// Every path the dashboard serves besides the page's files, with its methods (as openapi.yaml lists them; a unit
    /// test compares the two): another method on one of them is 405 (`AccessMiddleware` answers it first).
    static let routes: [(path: String, methods: [HTTPRequest.Method])] = [
        ("/healthz", [.get]), ("/readyz", [.get]), ("/metrics", [.get]), ("/api/openapi.yaml", [.get]),
        ("/api/v1/status", [.get]),
        ("/api/v1/vehicles", [.get]), ("/api/v1/airspace", [.get]), ("/api/v1/sources", [.get]),
        ("/api/v1/origin", [.get]), ("/api/v1/events", [.get]), ("/api/v1/session", [.get]),
        ("/api/v1/login", [.post]), ("/api/v1/logout", [.post]), ("/api/v1/uavs/{uav}/commands", [.post]),
        ("/api/v1/uavs/{uav}/trajectory-preview", [.post]), ("/api/v1/group-commands", [.post]),
        ("/api/v1/targets", [.post]), ("/api/v1/live", [.get]), ("/api/v1/map", [.get]),
        ("/api/v1/overlays/{index}", [.get]), ("/api/v1/geofence", [.get, .post]), ("/api/v1/geofence/clear", [.post]),
        ("/api/v1/flights", [.get]), ("/api/v1/flights/{flight}/track", [.get]),
        ("/api/v1/inspection", [.get]), ("/api/v1/inspection/plan", [.post]),
    ]

    /// The methods `path` takes, if it is one of `routes`.
    static func methods(for path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return routes.first { route in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: false)
            return pattern.count == segments.count
                && zip(pattern, segments).allSatisfy { p, s in p == s || (p.hasPrefix("{") && !s.isEmpty) }
        }?.methods
    }

    /// 405 with `Allow` for a path the dashboard serves asked with a method it does not take (HEAD goes with GET).
    static func methodNotAllowed(_ request: Request) -> Response? {
        guard let allowed = methods(for: request.uri.path),
            !allowed.contains(request.method), !(request.method == .head && allowed.contains(.get))
        else { return nil }
        let names = allowed.flatMap { $0 == .get ? ["GET", "HEAD"] : [$0.rawValue] }.joined(separator: ", ")
        var response = problem(
            "\(request.method) is not allowed on \(request.uri.path) (it takes \(names))", status: .methodNotAllowed)
        response.headers[.allow] = names
        return response
    }

    /// Where the page's own files are (inside this target's resource bundle).
    static var webRoot: String { Bundle.module.bundlePath + "/Web" }
    /// Where Debian's libjs-* packages put browser libraries (served under `/vendor`).
    static let vendorRoot = "/usr/share/javascript"

    /// The dashboard's router: middleware first (JSON errors, access, tiles, files), then the generated API
    /// (`DashboardAPI`), the hand-written routes and the live WebSocket.
    func makeRouter(live: LivePicture, state: DashboardState, access: AccessGuard) throws -> Router<
        DashboardRequestContext
    > {
        let router = Router(context: DashboardRequestContext.self)
        router.add(middleware: JSONErrorMiddleware())
        router.add(middleware: AccessMiddleware(access: access))
        router.add(middleware: TileMiddleware(tiles: configuration.tiles))
        router.add(middleware: FileMiddleware(Self.vendorRoot, urlBasePath: "/vendor", logger: logger))
        router.add(middleware: FileMiddleware(Self.webRoot, searchForIndexHtml: true, logger: logger))
        try DashboardAPI(configuration: configuration, backend: backend, access: access, state: state, logger: logger)
            .register(on: router)
        addAPI(to: router)
        addLive(to: router, live: live)
        return router
    }

    public func run() async throws {
        let live = LivePicture(backend: backend, interval: .seconds(1.0 / configuration.liveRateHz), clock: clock)
        let state = DashboardState(inspection: configuration.inspection)
        let access = AccessGuard(accounts: configuration.accounts, clock: clock)
        let router = try makeRouter(live: live, state: state, access: access)
        let logger = self.logger
        let scheme = configuration.scheme
        do {
            var server = HTTPServerBuilder.http1WebSocketUpgrade(webSocketRouter: router)
            if let tls = configuration.tls {
                server = try .tls(server, tlsConfiguration: tls.serverConfiguration)
                if tls.notValidAfter < Date() {
                    logger.warning(
                        "dashboard: the certificate in \(tls.certificateFile) expired on \(tls.notValidAfter); browsers will refuse it"
                    )
                }
            } else if !configuration.isLoopback {
                logger.warning(
                    "dashboard: serving \(configuration.host):\(configuration.port) without TLS: passwords and session cookies cross the network readable; set [dashboard] tls_certificate and tls_key"
                )
            }
            let app = Application(
                router: router, server: server,
                configuration: .init(
                    address: .hostname(configuration.host, port: configuration.port), serverName: "fleetmesh"),
                services: [live],
                onServerRunning: { channel in
                    logger.info(
                        "dashboard at \(scheme)://\(channel.localAddress?.ipAddress ?? "?"):\(channel.localAddress?.port ?? 0)/"
                    )
                },
                logger: logger)
            try await withGracefulShutdownHandler {
                try await app.run()
            } onGracefulShutdown: {
                state.shuttingDown()
            }
        } catch {
            // The node runs on without its dashboard (a taken port must not ground the fleet's station).
            logger.error(
                "dashboard: cannot serve on \(configuration.host):\(configuration.port) (\(error)); the node runs without it; set [dashboard] listen"
            )
        }
    }
}

extension DashboardService {
    /// Why the node is not ready (empty: ready): it must answer, run its Avahi client with its record published, and
    /// have its ground-control endpoint (if configured) bound.
    static func readinessProblems(_ status: NodeStatus?) -> [String] {
        guard let node = status?.node else { return ["the node does not answer"] }
        var problems: [String] = []
        if node.avahi != "running" {
            problems.append("Avahi: \(node.avahi)")
        } else if node.publishedName == nil {
            problems.append("Avahi: the node's DNS-SD record is not published yet")
        }
        if let gc = node.groundControl, !gc.hasPrefix("listening") { problems.append("ground control: \(gc)") }
        return problems
    }
}

/// `/readyz`'s answer.
struct ReadyReport: Codable, Hashable, Sendable {
    var ready: Bool
    var problems: [String]
}

/// Whether graceful shutdown has begun (set from the shutdown handler, read by `/readyz`).
final class DashboardState: Sendable {
    private let flag = Mutex(false)
    /// The inspection site (`[dashboard.inspection]`), loaded on first use; nil without one.
    let inspection: InspectionWorkspace?

    init(inspection: DashboardInspection? = nil) {
        self.inspection = inspection.map { InspectionWorkspace(settings: $0) }
    }

    var isShuttingDown: Bool { flag.withLock { $0 } }
    func shuttingDown() { flag.withLock { $0 = true } }
}
