import Hummingbird

/// Turns every error the router or a handler throws (no such route, a body too large, …) into a JSON answer
/// `{"error": …}` with its status, so a client always gets a body that says what was wrong.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPResponseError {
            let status = error.status
            let message =
                status == .notFound
                ? "no such resource: \(request.method) \(request.uri.path) (the API is described at /api/openapi.yaml)"
                : "\(status.code) \(status.reasonPhrase)"
            return DashboardService.problem(message, status: status)
        }
    }
}
