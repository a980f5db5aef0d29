import Foundation

/// What openapi.yaml says of one operation that the generated server does not check itself, so that the API middleware
/// refuses such a request naming the field: the generated server ignores query parameters it does not know, takes a
/// field sent as null for one left out, and its decoding errors name a coding path but not the operation. `make
/// openapi` writes every operation's into `Generated/APIOperations.swift` (`APIOperation.all`, by operationId).
struct APIOperation: Sendable {
    /// A query or path parameter.
    struct Parameter: Sendable {
        var name: String
        var isInteger: Bool
        var minimum: Int?
        var maximum: Int?
        /// What the parameter is, in words (`a UAV number 1–250`).
        var description: String?

        init(name: String, isInteger: Bool, minimum: Int? = nil, maximum: Int? = nil, description: String? = nil) {
            self.name = name
            self.isInteger = isInteger
            self.minimum = minimum
            self.maximum = maximum
            self.description = description
        }
    }

    /// A JSON request body's fields, in the document's order, and those it requires.
    struct Body: Sendable {
        var fields: [String]
        var required: [String]
    }

    /// The operationId: the CLI command the operation mirrors (`send`, `events`), which its errors start with.
    var name: String
    var method: String
    var path: String
    var query: [Parameter]
    var pathParameters: [Parameter]
    var body: Body?
}

extension APIOperation {
    /// Why the request's parameters are refused, or nil: a query parameter the operation does not take (only an
    /// operation that takes some refuses others: a misspelt `limit` must not be ignored), one that is not the integer it
    /// must be, or an integer path parameter outside its range (its range is the only rule for a value in the path).
    func parameterRefusal(query items: [(name: String, value: String)], path: [String: Substring]) -> String? {
        if !query.isEmpty {
            for (key, value) in items {
                guard let parameter = query.first(where: { $0.name == key }) else {
                    return "\(name): unknown query parameter \"\(key)\" (\(name) takes "
                        + query.map(\.name).joined(separator: ", ") + ")"
                }
                if parameter.isInteger, Int(value) == nil {
                    return "\(name): \"\(key)\" must be an integer, found \"\(value)\""
                }
            }
        }
        for parameter in pathParameters where parameter.isInteger {
            let text = path[parameter.name].map(String.init) ?? ""
            if let n = Int(text), parameter.minimum.map({ n >= $0 }) ?? true, parameter.maximum.map({ n <= $0 }) ?? true
            {
                continue
            }
            return "\(parameter.name): expected \(parameter.description ?? "an integer") in the path, found \"\(text)\""
        }
        return nil
    }

    /// Why the body is refused before it is decoded, or nil: an optional field sent as null (the generated decoding
    /// would take it as left out, and so give it its default).
    func nullRefusal(_ body: JSONValue?) -> String? {
        guard let fields = self.body, case .object(let object)? = body else { return nil }
        let key = object.keys.sorted().first {
            object[$0] == .null && fields.fields.contains($0) && !fields.required.contains($0)
        }
        return key.map { "\(name): \($0) is null (leave a field out to use its default)" }
    }

    /// A refusal naming the field for an error of the generated decoding of `body` (the request's JSON, if it is JSON):
    /// `args: expected an array, found the string "land"`, `send: unknown field "uav" (send takes args, timeoutMs,
    /// takeover)`, `malformed JSON: expected one object (…)`.
    func message(for error: DecodingError, body: JSONValue?) -> String {
        let fields = self.body?.fields ?? []
        let takes = fields.isEmpty ? "no fields: send {}" : fields.joined(separator: ", ")
        let malformed = "malformed JSON: expected one object (\(name) takes \(takes))"
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            guard !context.codingPath.isEmpty else { return malformed }
            return "\(Self.field(context.codingPath)): expected \(Self.describe(type)), "
                + "found \(found(at: context.codingPath, in: body))"
        case .keyNotFound(let key, let context):
            let needs = self.body?.required.joined(separator: ", ") ?? key.stringValue
            return "\(Self.field(context.codingPath + [key])): missing (\(name) needs \(needs))"
        case .dataCorrupted(let context):
            guard let last = context.codingPath.last else { return malformed }
            if context.debugDescription.hasPrefix("Additional properties are disabled") {
                let place =
                    context.codingPath.count > 1 ? Self.field(context.codingPath.dropLast()) + ": " : "\(name): "
                return place + "unknown field \"\(last.stringValue)\" (\(name) takes \(takes))"
            }
            return "\(Self.field(context.codingPath)): \(context.debugDescription) "
                + "(found \(found(at: context.codingPath, in: body)))"
        @unknown default:
            return malformed
        }
    }

    /// What the request held at `path`, in words.
    private func found(at path: [any CodingKey], in body: JSONValue?) -> String {
        body?.value(at: path)?.found ?? "nothing"
    }

    /// A coding path as the API names a field: `waypoints[1][0]`, `node.name`.
    static func field(_ path: some Collection<any CodingKey>) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    /// A Swift type the decoding expected, in words.
    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default:
            "\(type)".hasPrefix("Array") ? "an array" : "\(type)".hasPrefix("Dictionary") ? "an object" : "\(type)"
        }
    }
}
