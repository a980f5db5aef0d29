import OpenAPIRuntime

extension DashboardAPI {
    /// The node's Prometheus metrics, in the text exposition format (version 0.0.4), as `[metrics] listen` serves them.
    func metrics(_ input: Operations.Metrics.Input) async throws -> Operations.Metrics.Output {
        let text = await backend.metrics()
        return .ok(.init(body: .textPlainVersion_0_0_4(HTTPBody(text))))
    }
}
