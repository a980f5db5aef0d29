import ControlProtocol
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The OpenAPI document the JSON API is generated from, served at `/api/openapi.yaml`, and the JSON answers of the
/// routes that are not generated (health, the WebSocket's refusals, the middleware's errors). Endpoints belong in
/// openapi.yaml and `DashboardAPI` (docs/DASHBOARD.md: how to add an endpoint).
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
