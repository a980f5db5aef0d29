import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Runs around every operation of the generated server (`DashboardAPI`) and keeps the API's behaviour what it was when
/// the routes were written by hand: a body over the limit is 413; a query parameter the operation does not take, a
/// parameter of the wrong type or range, an optional field sent as null are refused naming the field
/// (`APIOperation`); an error of the generated decoding becomes a 400 naming the field from its coding path, a
/// handler's `APIRefusal` its own status, anything else the runtime's status; every answer is JSON (`{"error": …}` for
/// a refusal) with `Content-Type: application/json` and `Cache-Control: no-store`, whatever the client's `Accept`.
struct APIMiddleware: ServerMiddleware {
    /// Largest request body accepted, bytes.
    let maximumBody: Int
    /// Where a failure of the station's own (5xx) is logged.
    let logger: Logger

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let operation = APIOperation.all[operationID]
        var request = request
        // The API answers JSON (or GeoJSON) whatever the client says it accepts, as it always has.
        request.headerFields[.accept] = nil
        var body = body
        var json: JSONValue?
        if let operation {
            if let refusal = operation.parameterRefusal(query: Self.query(of: request), path: metadata.pathParameters) {
                return Self.problem(refusal, status: .badRequest)
            }
            if operation.body != nil, let received = body {
                guard let bytes = try await Self.collect(received, upTo: maximumBody) else {
                    let status = HTTPResponse.Status.contentTooLarge
                    return Self.problem("\(status.code) \(status.reasonPhrase)", status: status)
                }
                json = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
                if let refusal = operation.nullRefusal(json) { return Self.problem(refusal, status: .badRequest) }
                body = HTTPBody(bytes)
            }
        }
        do {
            var (response, responseBody) = try await next(request, body, metadata)
            Self.settle(&response.headerFields)
            return (response, responseBody)
        } catch let error as ServerError {
            let name = operation?.name ?? operationID
            switch error.underlyingError {
            case let refusal as APIRefusal:
                if refusal.status.kind == .serverError { logger.error("dashboard: \(refusal.message)") }
                return Self.problem(refusal.message, status: refusal.status)
            case let decoding as DecodingError:
                let message =
                    operation?.message(for: decoding, body: json) ?? "\(name): \(error.causeDescription)"
                return Self.problem(message, status: .badRequest)
            default:
                if error.httpStatus.kind == .serverError {
                    logger.error("dashboard: \(name) failed: \(error.causeDescription) (\(error.underlyingError))")
                }
                return Self.problem("\(name): \(error.causeDescription)", status: error.httpStatus)
            }
        }
    }

    /// The body's bytes, or nil if there are more than `limit`.
    static func collect(_ body: HTTPBody, upTo limit: Int) async throws -> [UInt8]? {
        if case .known(let length) = body.length, length > limit { return nil }
        var bytes: [UInt8] = []
        for try await chunk in body {
            bytes += chunk
            if bytes.count > limit { return nil }
        }
        return bytes
    }

    /// The request's query items, percent-decoded.
    static func query(of request: HTTPRequest) -> [(name: String, value: String)] {
        guard let path = request.path, let mark = path.firstIndex(of: "?") else { return [] }
        return path[path.index(after: mark)...].split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ s: Substring) -> String {
                let text = s.replacingOccurrences(of: "+", with: " ")
                return text.removingPercentEncoding ?? text
            }
            return (decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    /// The API's own headers on a generated answer: JSON without the charset parameter (JSON is UTF-8), never cached,
    /// and the login's cookie as it is (the runtime percent-encodes a string header as a URI component would be).
    static func settle(_ headers: inout HTTPFields) {
        if let cookie = headers[.setCookie] { headers[.setCookie] = cookie.removingPercentEncoding ?? cookie }
        if let type = headers[.contentType], type.hasSuffix("; charset=utf-8") {
            headers[.contentType] = String(type.dropLast("; charset=utf-8".count))
        }
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }

    /// A refusal `{"error": message}` with `status`, as every other route of the dashboard answers one.
    static func problem(_ message: String, status: HTTPResponse.Status) -> (HTTPResponse, HTTPBody?) {
        let data = DashboardService.jsonData(["error": message])
        var response = HTTPResponse(status: status)
        response.headerFields[.contentType] = "application/json"
        response.headerFields[.cacheControl] = "no-store"
        return (response, HTTPBody(data))
    }
}

/// A handler's refusal that its operation's document does not list as an answer of its own (the node failing to
/// answer): the API middleware answers it with `status` and `{"error": message}`.
struct APIRefusal: Error, CustomStringConvertible {
    var message: String
    var status: HTTPResponse.Status
    var description: String { message }
}
