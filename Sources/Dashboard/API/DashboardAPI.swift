import ControlProtocol
import Foundation
import Hummingbird
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime

/// The JSON API (docs/DASHBOARD.md §HTTP API): the handlers of the operations swift-openapi-generator made from
/// `Web/openapi.yaml` (`Generated/`, `make openapi`). Reads answer from the node's picture; commands and targets answer
/// as `fleetmesh send` and `fleetmesh target` do, each request checked by the control protocol's own decoding, which
/// names any field that is wrong. The answers are the control protocol's types, encoded as the CLI's `--json`.
struct DashboardAPI: APIProtocol {
    let configuration: DashboardConfiguration
    let backend: DashboardBackend
    let access: AccessGuard
    let state: DashboardState
    let logger: Logger

    /// Registers every operation on `router`, after its middleware (the JSON errors, sessions, roles, CSRF, 405s and the
    /// content type apply as to any route), each call knowing its caller (`APICaller`) and wrapped in `APIMiddleware`.
    func register(on router: Router<DashboardRequestContext>) throws {
        let group = router.group().add(middleware: APICallerMiddleware(cookieName: access.cookieName))
        try registerHandlers(
            on: group, configuration: .init(jsonEncodingOptions: [.sortedKeys]),
            middlewares: [APIMiddleware(maximumBody: DashboardService.maximumBody, logger: logger)])
    }

    /// An error body naming what was wrong.
    static func error(_ message: String) -> Components.Schemas._Error { .init(error: message) }

    /// The one field of the node's answer to a read; an error or no answer is the node's failure (500).
    func read<T>(_ request: ControlRequest, _ field: KeyPath<ControlResponse, T?>) async throws -> T {
        let response = await backend.answer(request)
        guard let value = response[keyPath: field] else {
            throw APIRefusal(
                message: "\(request.command): \(response.error ?? "the node gave no answer")",
                status: .internalServerError)
        }
        return value
    }

    /// `fields` of `command` (the path's and the body's, as JSON) decoded as a control request: the control protocol's
    /// own checks, as the control socket makes them, name any field that is wrong.
    static func controlRequest(_ command: String, _ fields: [String: Any]) throws(ControlRequestError) -> ControlRequest
    {
        var whole = fields
        whole["command"] = command
        do {
            let data = try JSONSerialization.data(withJSONObject: whole)
            return try JSONDecoder().decode(ControlRequest.self, from: data)
        } catch let error as ControlRequestError {
            throw error
        } catch {
            throw ControlRequestError("\(command): \(error)")
        }
    }
}

/// Who sent the request a generated handler serves (its operation's input says only what the document describes): the
/// client's address, the session the access middleware found and the session cookie's token.
struct APICaller: Sendable {
    var address: String
    var session: AccessControl.Session?
    var sessionToken: String?

    @TaskLocal static var current = APICaller(address: "unknown")
}

/// Sets `APICaller.current` around the generated handlers (they run in the route's task).
struct APICallerMiddleware: RouterMiddleware {
    typealias Context = DashboardRequestContext
    let cookieName: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let caller = APICaller(
            address: context.clientAddress, session: context.session,
            sessionToken: request.cookies[cookieName]?.value)
        return try await APICaller.$current.withValue(caller) { try await next(request, context) }
    }
}
