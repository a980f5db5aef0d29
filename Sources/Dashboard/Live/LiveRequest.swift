import Foundation

/// What a live client is sent and how often: the vehicles it watches (the page's selected drone) at `watchHz`, every
/// other vehicle at `othersHz` (docs/DASHBOARD.md, "The live stream").
struct LiveSubscription: Sendable, Equatable {
    /// UAV numbers watched closely.
    var watch: Set<Int> = []
    /// Updates per second for a watched vehicle (1–50).
    var watchHz: Double = 20
    /// Updates per second for every other vehicle (0.2–50).
    var othersHz: Double = 5

    static let watchRange = 1.0...50.0
    static let othersRange = 0.2...50.0

    /// The shortest time between two updates of a vehicle with this UAV number.
    func period(for uav: Int?) -> Duration {
        .seconds(1 / (uav.map { watch.contains($0) } == true ? watchHz : othersHz))
    }
}

/// A message a live client sends on the WebSocket (one JSON object with a `type`).
enum LiveRequest: Sendable, Equatable {
    /// `{"type":"subscribe","watch":[6],"watchHz":20,"othersHz":2}`: fields left out keep their values.
    case subscribe(LiveSubscription)
    /// `{"type":"manual","uav":6,"axes":[x,y,z,r],"takeover":false}`: one manual-control sample (axes −1000…1000).
    case manual(uav: Int, axes: [Int], takeover: Bool)

    /// The fields each type takes.
    static let fields = ["subscribe": ["watch", "watchHz", "othersHz"], "manual": ["uav", "axes", "takeover"]]

    /// Parses one message; `current` is the client's subscription, which a `subscribe` changes.
    static func parse(_ text: String, current: LiveSubscription) throws(LiveRequestError) -> LiveRequest {
        let data = Data(text.utf8)
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw LiveRequestError("malformed JSON: expected one object with a \"type\" (subscribe or manual)")
        }
        guard let type = object["type"] as? String, let known = fields[type] else {
            throw LiveRequestError(
                "type: expected \"subscribe\" or \"manual\", found \(object["type"].map { "\($0)" } ?? "none")")
        }
        if let unknown = object.keys.sorted().first(where: { $0 != "type" && !known.contains($0) }) {
            throw LiveRequestError(
                "\(type): unknown field \"\(unknown)\" (\(type) takes \(known.joined(separator: ", ")))")
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: data)
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
            let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty
        {
            let field = context.codingPath.first?.stringValue ?? "?"
            throw LiveRequestError(
                "\(type): \(field) has the wrong type (\(expected[field] ?? "see docs/DASHBOARD.md"))")
        } catch {
            throw LiveRequestError("malformed JSON: \(error)")
        }
        switch type {
        case "subscribe":
            var s = current
            if let watch = wire.watch {
                let numbers = watch.compactMap { whole($0, in: 1...250) }
                guard watch.count <= 250, numbers.count == watch.count else {
                    throw LiveRequestError(
                        "subscribe: watch must be a list of UAV numbers 1–250, found \(watch.map { $0.formatted() })")
                }
                s.watch = Set(numbers)
            }
            if let v = wire.watchHz { s.watchHz = try rate(v, "watchHz", LiveSubscription.watchRange) }
            if let v = wire.othersHz { s.othersHz = try rate(v, "othersHz", LiveSubscription.othersRange) }
            return .subscribe(s)
        default:
            guard let uav = wire.uav.flatMap({ whole($0, in: 1...250) }) else {
                throw LiveRequestError(
                    "manual: uav must be a UAV number 1–250, found \(wire.uav.map { $0.formatted() } ?? "none")")
            }
            let axes = (wire.axes ?? []).compactMap { whole($0, in: -1000...1000) }
            guard axes.count == 4, wire.axes?.count == 4 else {
                throw LiveRequestError(
                    "manual: axes must be four integers [x, y, z, r], each −1000…1000, found \(wire.axes.map { "\($0.map { $0.formatted() })" } ?? "none")"
                )
            }
            return .manual(uav: uav, axes: axes, takeover: wire.takeover ?? false)
        }
    }

    /// The fields' types, for errors.
    private static let expected = [
        "watch": "a list of UAV numbers", "watchHz": "a number", "othersHz": "a number", "uav": "an integer",
        "axes": "four integers", "takeover": "true or false", "type": "a string",
    ]

    private struct Wire: Decodable {
        var type: String
        var watch: [Double]?
        var watchHz: Double?
        var othersHz: Double?
        var uav: Double?
        var axes: [Double]?
        var takeover: Bool?
    }

    /// `value` as an integer if it is a whole number within `range`.
    private static func whole(_ value: Double, in range: ClosedRange<Int>) -> Int? {
        guard value.rounded() == value, value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            return nil
        }
        return Int(value)
    }

    private static func rate(_ value: Double, _ field: String, _ range: ClosedRange<Double>) throws(LiveRequestError)
        -> Double
    {
        guard range.contains(value) else {
            throw LiveRequestError(
                "subscribe: \(field) must be a number of updates per second within \(range.lowerBound.formatted())–\(range.upperBound.formatted()), found \(value.formatted())"
            )
        }
        return value
    }
}

/// Why a live client's message was refused (sent back as `{"type":"error","error":…}`).
struct LiveRequestError: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
