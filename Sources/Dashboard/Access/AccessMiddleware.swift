import HTTPTypes
import Hummingbird

/// Guards the API. Always: a state-changing request (anything but GET and HEAD) must be JSON and, if the browser says
/// where it comes from (`Origin`), come from this dashboard's own page — so a page on another site cannot command
/// aircraft through an operator's browser, also on loopback. With accounts: every `/api/v1/…` request but the login
/// and every map tile (`/tiles/…`: the imagery shows where the fleet works) needs a session cookie; state-changing ones
/// also its CSRF token in `X-CSRF-Token` and the operator role; so does `/metrics` (the fleet's figures, read-only like
/// the API's reads: any role). The page's files, `/healthz`, `/readyz` and the OpenAPI document stay public (they
/// carry nothing of the fleet).
struct AccessMiddleware: RouterMiddleware {
    typealias Context = DashboardRequestContext
    let access: AccessGuard
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let path = request.uri.path
        let changes = request.method != .get && request.method != .head
        if let origin = request.headers[.origin], !Self.isSameOrigin(origin, host: request.head.authority) {
            return DashboardService.problem(
                "Origin \(origin) is not this dashboard: requests from other sites are refused", status: .forbidden)
        }
        if let refusal = DashboardService.methodNotAllowed(request) { return refusal }
        if changes, path.hasPrefix("/api/"),
            !(request.headers[.contentType] ?? "").lowercased().hasPrefix("application/json")
        {
            return DashboardService.problem(
                "Content-Type: a JSON body (application/json) is required", status: .unsupportedMediaType)
        }
        guard access.isRequired, path.hasPrefix("/api/v1/") || path.hasPrefix("/tiles/") || path == "/metrics",
            path != "/api/v1/login"
        else {
            return try await next(request, context)
        }
        guard let token = request.cookies[access.cookieName]?.value, let session = await access.session(token: token)
        else {
            return DashboardService.problem(
                "not logged in (or the session expired): POST /api/v1/login with name and password",
                status: .unauthorized)
        }
        if changes {
            guard let sent = request.headers[Self.csrfHeader], sent == session.csrfToken else {
                return DashboardService.problem(
                    "X-CSRF-Token: missing or wrong (send the csrfToken the login answered)", status: .forbidden)
            }
            guard session.role == .operator || path == "/api/v1/logout" else {
                return DashboardService.problem(
                    "account \"\(session.name)\" is a viewer: commands and targets need an operator account",
                    status: .forbidden)
            }
        }
        var context = context
        context.session = session
        return try await next(request, context)
    }

    /// Whether `origin` (`scheme://host[:port]`) names the host the request was sent to.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let range = origin.range(of: "://") else { return false }
        return origin[range.upperBound...].lowercased() == host.lowercased()
    }
}
