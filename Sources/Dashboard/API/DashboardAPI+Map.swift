import Foundation

/// Health, readiness and the map's layers.
extension DashboardAPI {
    func healthz(_ input: Operations.Healthz.Input) async throws -> Operations.Healthz.Output {
        .ok(.init(body: .json(.init(alive: true))))
    }

    /// 503 with the problems from the start of a graceful shutdown, or while the node is not ready.
    func readyz(_ input: Operations.Readyz.Input) async throws -> Operations.Readyz.Output {
        var problems: [String] = []
        if state.isShuttingDown { problems.append("shutting down") }
        if problems.isEmpty { problems = DashboardService.readinessProblems(await backend.answer(.status).status) }
        let report = ReadyReport(ready: problems.isEmpty, problems: problems)
        return problems.isEmpty ? .ok(.init(body: .json(report))) : .serviceUnavailable(.init(body: .json(report)))
    }

    func map(_ input: Operations.Map.Input) async throws -> Operations.Map.Output {
        .ok(.init(body: .json(DashboardService.mapReport(configuration))))
    }

    /// The overlay's GeoJSON as read from its file (checked when the configuration was read), re-encoded.
    func overlay(_ input: Operations.Overlay.Input) async throws -> Operations.Overlay.Output {
        let index = input.path.index
        guard configuration.overlays.indices.contains(index) else {
            return .notFound(
                .init(
                    body: .json(
                        Self.error(
                            "no overlay \(index): this station has \(configuration.overlays.count) ([dashboard] overlays)"
                        ))))
        }
        let geoJSON = try JSONDecoder().decode(JSONValue.self, from: configuration.overlays[index].geoJSON)
        return .ok(.init(body: .applicationGeoJson(geoJSON)))
    }
}
