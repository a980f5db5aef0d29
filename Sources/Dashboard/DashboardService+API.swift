import ControlProtocol
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The OpenAPI document the JSON API is generated from, served at `/api/openapi.yaml`, and the helpers of a route
/// written by hand (`router.post(…) { request, _ in try await Self.relay(request, as: "send", …) }`): a JSON request
/// relayed to the node as a control request, answered as the CLI's `--json`, refused as `{"error": …}` naming the
/// field. New endpoints belong in openapi.yaml and `DashboardAPI` (docs/DASHBOARD.md: how to add an endpoint); these
/// helpers serve the hand-written ones until they are ported.
extension DashboardService {
    /// Largest request body accepted (a trajectory upload fits many times over).
    static let maximumBody = 256 * 1024

    func addAPI(to router: Router<DashboardRequestContext>) {
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
        (ControlRequest.fields[command] ?? []).filter { command != "send" || $0 != "uav" }.joined(separator: ", ")
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
        return problem("the node gave no answer", status: .internalServerError)
    }

    /// A JSON error body `{"error": message}`.
    static func problem(_ message: String, status: HTTPResponse.Status) -> Response {
        json(["error": message], status: status)
    }

    /// `value` as a JSON body (keys sorted).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = jsonData(value)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `value` encoded as the API's answers are: compact JSON, keys sorted.
    static func jsonData(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(value)) ?? Data(#"{"error":"could not encode the answer"}"#.utf8)
    }
}
