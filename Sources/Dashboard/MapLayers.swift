import Foundation

/// `[dashboard] tiles`: an XYZ tile folder on the station's disk (`{z}/{x}/{y}.{format}`), served under
/// `/tiles/{z}/{x}/{y}.{format}` and drawn by the page under the metric grid. One format per folder: the station serves
/// only files with that extension.
public struct DashboardTiles: Sendable, Equatable {
    /// The folder holding `{z}/{x}/{y}.{format}` (absolute).
    public var folder: String
    /// `tiles_format`: `png` (the default), `jpg` or `webp`.
    public var format: String
    /// `tiles_max_zoom`: the deepest zoom level in the folder (0–22, default 19); the page enlarges it beyond.
    public var maxZoom: Int
    /// `tiles_attribution`: text shown in the map's corner (the imagery's source and licence), if any.
    public var attribution: String?

    /// The formats a folder may hold, with the content type each is served as.
    public static let formats: [String: String] = ["png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"]
    /// The zoom levels `tiles_max_zoom` may name.
    public static let zoomLevels = 0...22

    /// A tile folder; `folder` must be absolute.
    public init(folder: String, format: String = "png", maxZoom: Int = 19, attribution: String? = nil) {
        self.folder = folder
        self.format = format
        self.maxZoom = maxZoom
        self.attribution = attribution
    }

    /// Why this folder cannot be served (nil: it can): it must be a directory holding at least one tile
    /// `{z}/{x}/{y}.{format}` with `z` within 0…maxZoom.
    public func problem() -> String? {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            return "\(folder) does not exist (expected a folder of {z}/{x}/{y}.\(format) tiles)"
        }
        guard isDirectory.boolValue else { return "\(folder) is not a folder (expected {z}/{x}/{y}.\(format) tiles)" }
        guard let entries = try? files.contentsOfDirectory(atPath: folder) else { return "\(folder) cannot be read" }
        let zooms = entries.compactMap { Self.coordinate($0, limit: 2) }.filter { $0 <= maxZoom }.sorted()
        for z in zooms {
            let zoomFolder = "\(folder)/\(z)"
            let columns = (try? files.contentsOfDirectory(atPath: zoomFolder)) ?? []
            for x in columns.compactMap({ Self.coordinate($0, limit: 7) }).prefix(4) {
                let names = (try? files.contentsOfDirectory(atPath: "\(zoomFolder)/\(x)")) ?? []
                if names.contains(where: { Self.row(in: $0, format: format) != nil }) { return nil }
            }
        }
        return
            "\(folder) holds no tile {z}/{x}/{y}.\(format) with z within 0…\(maxZoom) (tiles_format is \"\(format)\")"
    }

    /// The file of tile `z`/`x`/`name` (`name` is `{y}.{format}`), or nil when the request is not a tile this folder
    /// may hold: only decimal numbers within the zoom's range and this folder's extension, so no path ever leaves it.
    public func file(z: String, x: String, name: String) -> String? {
        guard let z = Self.coordinate(z, limit: 2), z <= maxZoom, let x = Self.coordinate(x, limit: 7),
            let y = Self.row(in: name, format: format)
        else { return nil }
        let size = 1 << z
        guard x < size, y < size else { return nil }
        return "\(folder)/\(z)/\(x)/\(y).\(format)"
    }

    /// The content type tiles of this folder are served as.
    public var contentType: String { Self.formats[format] ?? "application/octet-stream" }

    /// A decimal number of at most `limit` digits, nothing else.
    static func coordinate(_ text: some StringProtocol, limit: Int) -> Int? {
        guard !text.isEmpty, text.count <= limit, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }

    /// The row `y` of a file named `{y}.{format}`.
    static func row(in name: String, format: String) -> Int? {
        guard name.hasSuffix("." + format) else { return nil }
        return coordinate(name.dropLast(format.count + 1), limit: 7)
    }
}

/// `[dashboard] overlays`: one GeoJSON file (a geofence, a site outline) drawn over the map under its name, read and
/// checked when the configuration is read and served as it was read under `/api/v1/overlays/{index}`.
public struct DashboardOverlay: Sendable, Equatable {
    /// Shown in the page's layer switcher and in the outline's tooltip.
    public var name: String
    /// Where it was read from (absolute).
    public var file: String
    /// The file's bytes: a GeoJSON object (a FeatureCollection, a Feature or a geometry).
    public var geoJSON: Data

    /// The largest file accepted.
    public static let maximumBytes = 5 * 1024 * 1024
    /// The most overlays one dashboard serves.
    public static let maximumCount = 16
    /// The GeoJSON object types a file may be (RFC 7946 §1.4).
    public static let types: Set<String> = [
        "FeatureCollection", "Feature", "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon",
        "MultiPolygon", "GeometryCollection",
    ]

    /// An overlay whose bytes were read (and checked) already.
    public init(name: String, file: String, geoJSON: Data) {
        self.name = name
        self.file = file
        self.geoJSON = geoJSON
    }

    /// Reads `file` (absolute) and checks it: at most `maximumBytes`, JSON, one GeoJSON object whose `type` is one of
    /// `types` with the member that type needs. Throws the problem as text naming the file.
    public static func read(name: String, file: String) throws(OverlayProblem) -> DashboardOverlay {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file)
        guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular else {
            throw OverlayProblem("\(file): \(attributes == nil ? "no such file" : "not a regular file")")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maximumBytes else {
            throw OverlayProblem("\(file): \(size) bytes, larger than the \(maximumBytes / 1024 / 1024) MB allowed")
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw OverlayProblem("\(file): cannot be read")
        }
        if let problem = problem(in: data) { throw OverlayProblem("\(file): \(problem)") }
        return DashboardOverlay(name: name, file: file, geoJSON: data)
    }

    /// Why `data` is not a GeoJSON object (nil: it is one).
    static func problem(in data: Data) -> String? {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data)
        } catch {
            return "not valid JSON (\((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? error))"
        }
        guard let object = value as? [String: Any] else { return "not a GeoJSON object (expected a JSON object)" }
        guard let type = object["type"] as? String else { return "not GeoJSON: the object has no \"type\"" }
        guard types.contains(type) else {
            return "not GeoJSON: type \"\(type)\" (expected one of \(types.sorted().joined(separator: ", ")))"
        }
        let member =
            switch type {
            case "FeatureCollection": "features"
            case "Feature": "geometry"
            case "GeometryCollection": "geometries"
            default: "coordinates"
            }
        let valid =
            member == "geometry" ? object[member] is [String: Any] || object[member] is NSNull : object[member] is [Any]
        return valid
            ? nil : "not GeoJSON: a \(type) needs \"\(member)\" (\(member == "geometry" ? "an object" : "an array"))"
    }
}

/// Why an overlay file was refused (the text names the file).
public struct OverlayProblem: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
