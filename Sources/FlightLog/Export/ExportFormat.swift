import Foundation

/// The formats `fleetmesh log export` writes.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// One row per sample, every field (spreadsheets, pandas).
    case csv
    /// RFC 7946: one LineString feature per vehicle, its sample times in `coordTimes` (QGIS, geojson.io).
    case geojson
    /// KML 2.2: one placemark per vehicle, altitude relative to the ground (Google Earth).
    case kml
    /// GPX 1.1: one track per vehicle with time and elevation per point.
    case gpx
    /// A MAVLink telemetry log per UAV: before each MAVLink 2 frame, the time it was recorded as a big-endian 64-bit
    /// count of microseconds since 1970 (QGroundControl, pymavlink's mavlogdump, MAVExplorer).
    case tlog
    /// A flight's commanded paths as a QGroundControl mission (needs a FLIGHT).
    case plan

    /// The file name extension.
    public var fileExtension: String { rawValue }
}

/// One vehicle's samples within an export, in time order.
public struct ExportTrack: Sendable, Hashable {
    public var node: String
    public var uavNumber: Int?
    public var name: String
    public var samples: [TelemetryRecord]

    /// "UAV 3 (drone-3)", or the name alone when it had no number.
    public var title: String { uavNumber.map { "UAV \($0) (\(name))" } ?? name }

    /// Splits samples (any vehicles, time order) into one track per vehicle, by UAV number then name.
    public static func tracks(_ samples: [TelemetryRecord]) -> [ExportTrack] {
        var order: [String] = []
        var byNode: [String: [TelemetryRecord]] = [:]
        for s in samples {
            if byNode[s.node] == nil { order.append(s.node) }
            byNode[s.node, default: []].append(s)
        }
        return order.map { node in
            let list = byNode[node]!
            return ExportTrack(
                node: node, uavNumber: list.last(where: { $0.uavNumber != nil })?.uavNumber, name: list.last!.name,
                samples: list)
        }.sorted { ($0.uavNumber ?? 999, $0.name) < ($1.uavNumber ?? 999, $1.name) }
    }
}

/// Text formatting shared by the exporters.
enum ExportText {
    /// ISO 8601 UTC with milliseconds: 2026-11-26T20:15:03.250Z.
    static func iso(_ ms: Int64) -> String {
        var seconds = time_t(ms.quotient(dividingBy: 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var out = ""
        out.reserveCapacity(24)
        func put(_ value: Int, _ width: Int, _ separator: Character?) {
            let text = String(value)
            if text.count < width { out += String(repeating: "0", count: width - text.count) }
            out += text
            if let separator { out.append(separator) }
        }
        put(Int(parts.tm_year) + 1900, 4, "-")
        put(Int(parts.tm_mon) + 1, 2, "-")
        put(Int(parts.tm_mday), 2, "T")
        put(Int(parts.tm_hour), 2, ":")
        put(Int(parts.tm_min), 2, ":")
        put(Int(parts.tm_sec), 2, ".")
        put(Int(ms.floorModulus(1000)), 3, "Z")
        return out
    }

    /// A fixed-point number (no exponent, "." as the decimal mark whatever the locale), rounded to `digits` decimals
    /// by integer arithmetic (Foundation's `String(format:)` made exports of an hour several times slower).
    static func fixed(_ x: Double, _ digits: Int) -> String {
        guard x.isFinite else { return "0" }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((abs(x) * Double(scale)).rounded())
        let whole = String(scaled / scale)
        let negative = x < 0 && scaled != 0
        guard digits > 0 else { return negative ? "-" + whole : whole }
        let fraction = String(scaled % scale)
        return (negative ? "-" : "") + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// Text safe inside an XML element or attribute.
    static func xml(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }

    /// Text as a JSON string literal.
    static func json(_ s: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])) ?? Data()
        let array = String(decoding: data, as: UTF8.self)
        return String(array.dropFirst().dropLast())
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (times before 1970 stay ordered).
    func quotient(dividingBy d: Int64) -> Int64 { (self - floorModulus(d)) / d }
    func floorModulus(_ d: Int64) -> Int64 { ((self % d) + d) % d }
}
