import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `[metrics] listen`: a small HTTP server of the node's own answering `GET /metrics` with its Prometheus text
/// exposition (`NodeShell.metricsExposition`), for nodes without a dashboard. Stops on graceful shutdown. A listener
/// that cannot start (its port taken) is logged and the node runs on without it, as without its dashboard.
struct MetricsService: Service, CustomStringConvertible {
    let configuration: MetricsConfiguration
    let shell: NodeShell
    let logger: Logger

    var description: String { "MetricsService(\(configuration.host):\(configuration.port))" }

    /// The exposition's content type (the text format, version 0.0.4), as the dashboard's `/metrics` answers it.
    static let contentType = "text/plain; version=0.0.4"

    func run() async throws {
        let router = Router()
        let shell = self.shell
        router.get("/metrics") { _, _ -> Response in
            let text = await shell.metricsExposition()
            return Response(
                status: .ok, headers: [.contentType: Self.contentType, .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: text)))
        }
        let logger = self.logger
        let app = Application(
            router: router,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "fleetmesh"),
            onServerRunning: { channel in
                let host = channel.localAddress?.ipAddress ?? "?"
                logger.info(
                    "metrics at http://\(host.contains(":") ? "[\(host)]" : host):\(channel.localAddress?.port ?? 0)/metrics"
                )
            },
            logger: logger)
        do {
            try await app.run()
        } catch {
            logger.error(
                "metrics: cannot serve on \(configuration.host):\(configuration.port) (\(error)); the node runs without it; set [metrics] listen"
            )
        }
    }
}
