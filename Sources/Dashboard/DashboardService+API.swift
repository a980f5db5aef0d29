import ControlProtocol
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The JSON API: the CLI's requests over HTTP (docs/DASHBOARD.md). Reads answer from the node's picture; commands
/// and targets answer as `fleetmesh send` and `fleetmesh target` do. A bad request is a 4xx whose JSON `error` names
/// the field; nothing a client sends reaches the node unchecked.
extension DashboardService {
    /// Largest request body accepted (a trajectory upload fits many times over).
    static let maximumBody = 256 * 1024

    func addAPI(to router: Router<DashboardRequestContext>) {
        let backend = self.backend
        let api = router.group("/api/v1")
        for (path, request) in [
            ("status", ControlRequest.status), ("vehicles", .vehicles), ("airspace", .airspace),
            ("sources", .sources), ("origin", .origin),
        ] {
            api.get(RouterPath(path)) { _, _ in Self.answer(await backend.answer(request), notFoundWhenError: true) }
        }
        api.get("events") { request, _ -> Response in
            var fields: [String: Any] = ["command": "events"]
            for (key, value) in request.uri.queryParameters {
                guard key == "after" || key == "limit" else {
                    return Self.problem(
                        "events: unknown query parameter \"\(key)\" (events takes after, limit)", status: .badRequest)
                }
                guard let n = Int(value) else {
                    return Self.problem(
                        "events: \"\(key)\" must be an integer, found \"\(value)\"", status: .badRequest)
                }
                fields[String(key)] = n
            }
            return await Self.ask(fields, backend: backend)
        }
        api.post("uavs/:uav/commands") { request, context -> Response in
            guard let text = context.parameters.get("uav"), let uav = Int(text) else {
                return Self.problem("uav: expected a UAV number 1–250 in the path", status: .badRequest)
            }
            return try await Self.relay(request, as: "send", adding: ["uav": uav], to: backend)
        }
        api.post("uavs/:uav/trajectory-preview") { request, context -> Response in
            guard let text = context.parameters.get("uav"), let uav = Int(text), (1...250).contains(uav) else {
                return Self.problem(
                    "uav: expected a UAV number 1–250 in the path, found \"\(context.parameters.get("uav") ?? "")\"",
                    status: .badRequest)
            }
            let body = try await request.body.collect(upTo: Self.maximumBody)
            do throws(PreviewRefusal) {
                let waypoints = try TrajectoryPreview.waypoints(fromJSON: Data(buffer: body))
                guard let vehicles = await backend.answer(.vehicles).vehicles else {
                    return Self.problem("the node gave no answer", status: .internalServerError)
                }
                return Self.json(try TrajectoryPreview.plan(waypoints, for: uav, in: vehicles))
            } catch {
                return Self.problem(error.description, status: HTTPResponse.Status(code: error.status))
            }
        }
        api.post("targets") { request, _ -> Response in
            try await Self.relay(request, as: "target", adding: [:], to: backend)
        }
        router.get("/api/openapi.yaml") { _, _ -> Response in
            guard let data = FileManager.default.contents(atPath: Self.webRoot + "/openapi.yaml") else {
                return Self.problem("the OpenAPI document is missing from this installation", status: .notFound)
            }
            return Response(
                status: .ok, headers: [.contentType: "application/yaml"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    /// Decodes the body as one JSON object, adds `command` (and the path's fields), and asks the node; the control
    /// protocol's own checks name any field that is wrong.
    static func relay(
        _ request: Request, as command: String, adding fields: [String: Any], to backend: DashboardBackend
    ) async throws -> Response {
        guard let object = try await jsonObject(request, upTo: maximumBody) else {
            return problem(
                "malformed JSON: expected one object (\(command) takes \(takes(command)))", status: .badRequest)
        }
        if let key = object.keys.sorted().first(where: { object[$0] is NSNull }) {
            return problem(
                "\(command): \(key) is null (leave a field out to use its default)", status: .badRequest)
        }
        if let key = (["command", "v"] + fields.keys.sorted()).first(where: { object[$0] != nil }) {
            return problem(
                "\(command): unknown field \"\(key)\" (\(command) takes \(takes(command)))", status: .badRequest)
        }
        var whole = object
        whole["command"] = command
        for (key, value) in fields { whole[key] = value }
        return await ask(whole, backend: backend)
    }

    /// The request's body as one JSON object (nil if it is not one); a body over `limit` bytes throws (413).
    static func jsonObject(_ request: Request, upTo limit: Int) async throws -> [String: Any]? {
        let body = try await request.body.collect(upTo: limit)
        return try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
    }

    /// Decodes `fields` as a control request (its checks name any field that is wrong) and asks the node.
    static func ask(_ fields: [String: Any], backend: DashboardBackend) async -> Response {
        let controlRequest: ControlRequest
        do {
            let data = try JSONSerialization.data(withJSONObject: fields)
            controlRequest = try JSONDecoder().decode(ControlRequest.self, from: data)
        } catch let error as ControlRequestError {
            return problem(error.description, status: .badRequest)
        } catch {
            return problem("malformed JSON: \(error)", status: .badRequest)
        }
        return answer(await backend.answer(controlRequest), notFoundWhenError: false)
    }

    /// The fields a command's body takes (the path's `uav` left out).
    static func takes(_ command: String) -> String {
        let fields = (ControlRequest.fields[command] ?? []).filter { command != "send" || $0 != "uav" }
        return fields.isEmpty ? "no fields" : fields.joined(separator: ", ")
    }

    /// The one field of a control answer as the body; an error is 404 for reads (nothing known yet), 400 otherwise.
    static func answer(_ response: ControlResponse, notFoundWhenError: Bool) -> Response {
        if let error = response.error { return problem(error, status: notFoundWhenError ? .notFound : .badRequest) }
        if let v = response.status { return json(v) }
        if let v = response.vehicles { return json(v) }
        if let v = response.airspace { return json(v) }
        if let v = response.command { return json(v) }
        if let v = response.target { return json(v) }
        if let v = response.origin { return json(v) }
        if let v = response.sources { return json(v) }
        if let v = response.manual { return json(v) }
        if let v = response.events { return json(v) }
        if let v = response.geofence { return json(v) }
        return problem("the node gave no answer", status: .internalServerError)
    }

    /// A JSON error body `{"error": message}`.
    static func problem(_ message: String, status: HTTPResponse.Status) -> Response {
        json(["error": message], status: status)
    }

    /// `value` as a JSON body (keys sorted).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(value)) ?? Data(#"{"error":"could not encode the answer"}"#.utf8)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
