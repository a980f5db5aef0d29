import Foundation
import Geodesy

/// Snapshot points from a file: CSV (`x,y,z[,heading]` in local metres, or `lat,lon,alt[,heading]` with altitude in
/// metres above the map origin, chosen by a header line; without a header, local) or JSON (an array of objects with
/// `x`, `y`, `z` or `lat`, `lon`, `alt`, and optionally `heading`). Errors name the file and line.
public enum SnapshotFile {
    /// Reads the points of `path`; geodetic points need `origin`.
    public static func read(path: String, origin: MapOrigin?) throws(InspectionError) -> [SnapshotPoint] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .badPoints("\(path): cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .badPoints("\(path): not UTF-8 text") }
        if path.lowercased().hasSuffix(".json") { return try json(data, file: path, origin: origin) }
        return try csv(text, file: path, origin: origin)
    }

    /// Points from CSV text.
    public static func csv(_ text: String, file: String, origin: MapOrigin?) throws(InspectionError) -> [SnapshotPoint]
    {
        var geodetic = false
        var headed = false
        var out: [SnapshotPoint] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "\t" || $0 == " " })
                .map { $0.lowercased() }
            let place = "\(file):\(n + 1)"
            if !headed && out.isEmpty && fields.first.map({ Double($0) == nil }) == true {
                headed = true
                switch Array(fields.prefix(3)) {
                case ["x", "y", "z"], ["east", "north", "up"]: geodetic = false
                case ["lat", "lon", "alt"], ["latitude", "longitude", "altitude"]: geodetic = true
                default:
                    throw .badPoints("\(place): the header must start with x,y,z or lat,lon,alt, found '\(line)'")
                }
                if fields.count > 3 && fields[3] != "heading" {
                    throw .badPoints("\(place): the fourth column must be heading, found '\(fields[3])'")
                }
                continue
            }
            guard fields.count == 3 || fields.count == 4 else {
                throw .badPoints("\(place): expected 3 or 4 values (x,y,z[,heading]), found \(fields.count)")
            }
            var values: [Double] = []
            for f in fields {
                guard let v = Double(f), v.isFinite else { throw .badPoints("\(place): '\(f)' is not a number") }
                values.append(v)
            }
            out.append(
                try point(values, geodetic: geodetic, origin: origin, label: "point \(out.count + 1) (\(place))"))
        }
        guard !out.isEmpty else { throw .badPoints("\(file): no points") }
        return out
    }

    /// Points from JSON.
    public static func json(_ data: Data, file: String, origin: MapOrigin?) throws(InspectionError) -> [SnapshotPoint] {
        guard let array = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]] else {
            throw .badPoints("\(file): expected a JSON array of objects with x, y, z or lat, lon, alt")
        }
        var out: [SnapshotPoint] = []
        for (i, o) in array.enumerated() {
            let label = "point \(i + 1) (\(file) item \(i + 1))"
            func number(_ key: String) throws(InspectionError) -> Double? {
                guard let v = o[key] else { return nil }
                guard let d = (v as? NSNumber)?.doubleValue, d.isFinite else {
                    throw .badPoints("\(label): \(key) is not a number")
                }
                return d
            }
            let heading = try number("heading")
            if let x = try number("x") {
                guard let y = try number("y"), let z = try number("z") else {
                    throw .badPoints("\(label): needs x, y and z")
                }
                out.append(
                    try point([x, y, z] + (heading.map { [$0] } ?? []), geodetic: false, origin: origin, label: label))
            } else if let lat = try number("lat") {
                guard let lon = try number("lon"), let alt = try number("alt") else {
                    throw .badPoints("\(label): needs lat, lon and alt")
                }
                out.append(
                    try point(
                        [lat, lon, alt] + (heading.map { [$0] } ?? []), geodetic: true, origin: origin, label: label))
            } else {
                throw .badPoints("\(label): needs x, y, z or lat, lon, alt")
            }
        }
        guard !out.isEmpty else { throw .badPoints("\(file): no points") }
        return out
    }

    private static func point(_ v: [Double], geodetic: Bool, origin: MapOrigin?, label: String)
        throws(InspectionError) -> SnapshotPoint
    {
        let heading = v.count > 3 ? v[3] : nil
        guard geodetic else { return SnapshotPoint(position: SIMD3(v[0], v[1], v[2]), heading: heading, label: label) }
        guard let origin else {
            throw .badPoints("\(label): latitude and longitude need the map origin (--origin or --utm)")
        }
        do {
            let l = try origin.local(
                GeodeticCoordinate(latitude: v[0], longitude: v[1], altitude: origin.coordinate.altitude + v[2]))
            return SnapshotPoint(position: SIMD3(l.east, l.north, l.up), heading: heading, label: label)
        } catch {
            throw .badPoints("\(label): not on the map: \(error)")
        }
    }
}
