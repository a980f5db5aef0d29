import Foundation
import Geodesy

extension Trajectory {
    /// Writes the trajectory as a GeoJSON Feature: a LineString of `[longitude, latitude, altitude]` positions (RFC 7946
    /// order) with `properties.times` (seconds) and `properties.headings` (degrees) of the same length.
    public func geoJSON(origin: MapOrigin) -> Data {
        var coordinates: [[Double]] = []
        coordinates.reserveCapacity(points.count)
        for p in points {
            let g = origin.geodetic(p.position.localPosition)
            coordinates.append([g.longitude, g.latitude, g.altitude])
        }
        let feature = GeoJSONFeature(
            geometry: .init(coordinates: coordinates),
            properties: .init(times: points.map(\.time), headings: points.map(\.heading)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(feature)) ?? Data()
    }

    /// Reads a GeoJSON Feature (or a bare LineString geometry) written by ``geoJSON(origin:)``. Times come from
    /// `properties.times`; without them the points are timed at `defaultSpeed` m/s along the line.
    /// - Throws: ``TrajectoryFileError/malformedGeoJSON(path:problem:)`` naming the member at fault.
    public static func fromGeoJSON(_ data: Data, origin: MapOrigin, defaultSpeed: Double = 4)
        throws(TrajectoryFileError) -> Trajectory
    {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw .malformedGeoJSON(path: "$", problem: "not valid JSON")
        }
        guard let object = root as? [String: Any] else {
            throw .malformedGeoJSON(path: "$", problem: "expected an object")
        }
        let geometry: [String: Any]
        var properties: [String: Any] = [:]
        var base = ""
        switch object["type"] as? String {
        case "Feature":
            guard let g = object["geometry"] as? [String: Any] else {
                throw .malformedGeoJSON(path: "geometry", problem: "missing or not an object")
            }
            geometry = g
            base = "geometry."
            if let p = object["properties"] {
                guard let p = p as? [String: Any] else {
                    throw .malformedGeoJSON(path: "properties", problem: "expected an object")
                }
                properties = p
            }
        case "LineString":
            geometry = object
        case let other:
            throw .malformedGeoJSON(
                path: "type",
                problem: "expected \"Feature\" or \"LineString\", found \(other.map { "\"\($0)\"" } ?? "nothing")")
        }
        guard geometry["type"] as? String == "LineString" else {
            throw .malformedGeoJSON(path: base + "type", problem: "expected \"LineString\"")
        }
        guard let coords = geometry["coordinates"] as? [Any], !coords.isEmpty else {
            throw .malformedGeoJSON(path: base + "coordinates", problem: "missing, not an array, or empty")
        }
        var positions: [Vector3] = []
        for (i, c) in coords.enumerated() {
            guard let pair = c as? [Any], (2...3).contains(pair.count) else {
                throw .malformedGeoJSON(
                    path: "\(base)coordinates[\(i)]",
                    problem: "expected [longitude, latitude] or [longitude, latitude, altitude]")
            }
            var v: [Double] = []
            for (j, x) in pair.enumerated() {
                guard let n = x as? NSNumber, n.doubleValue.isFinite else {
                    throw .malformedGeoJSON(path: "\(base)coordinates[\(i)][\(j)]", problem: "expected a number")
                }
                v.append(n.doubleValue)
            }
            guard (-90...90).contains(v[1]) else {
                throw .malformedGeoJSON(path: "\(base)coordinates[\(i)][1]", problem: "latitude \(v[1]) outside -90…90")
            }
            do {
                positions.append(
                    Vector3(
                        try origin.local(
                            GeodeticCoordinate(
                                latitude: v[1], longitude: v[0],
                                altitude: v.count > 2 ? v[2] : origin.coordinate.altitude))))
            } catch {
                throw .malformedGeoJSON(path: "\(base)coordinates[\(i)]", problem: error.description)
            }
        }
        var times: [Double]
        if let raw = properties["times"] {
            times = try numbers(raw, path: "properties.times", count: positions.count)
        } else {
            times = [0]
            for i in positions.indices.dropFirst() {
                times.append(times[i - 1] + max(1e-3, positions[i].distance(to: positions[i - 1]) / defaultSpeed))
            }
        }
        var headings: [Double]?
        if let raw = properties["headings"] {
            headings = try numbers(raw, path: "properties.headings", count: positions.count)
        }
        for i in times.indices {
            if i == 0 && times[0] != 0 {
                throw .malformedGeoJSON(path: "properties.times[0]", problem: "the first time must be 0")
            }
            if i > 0 && !(times[i] > times[i - 1]) {
                throw .malformedGeoJSON(path: "properties.times[\(i)]", problem: "times must increase")
            }
        }
        let points = positions.indices.map {
            TrajectoryPoint(time: times[$0], position: positions[$0], heading: headings?[$0] ?? 0)
        }
        do { return try Trajectory(points: withDerivedVelocities(points)) } catch { throw .invalidTrajectory(error) }
    }

    private static func numbers(_ raw: Any, path: String, count: Int) throws(TrajectoryFileError) -> [Double] {
        guard let array = raw as? [Any] else {
            throw .malformedGeoJSON(path: path, problem: "expected an array of numbers")
        }
        guard array.count == count else {
            throw .malformedGeoJSON(
                path: path, problem: "expected \(count) values (one per coordinate), found \(array.count)")
        }
        var out: [Double] = []
        for (i, x) in array.enumerated() {
            guard let n = x as? NSNumber, n.doubleValue.isFinite else {
                throw .malformedGeoJSON(path: "\(path)[\(i)]", problem: "expected a number")
            }
            out.append(n.doubleValue)
        }
        return out
    }
}

/// The GeoJSON Feature written for a trajectory (JSONEncoder prints doubles that round-trip exactly).
struct GeoJSONFeature: Encodable {
    struct LineString: Encodable {
        var type = "LineString"
        var coordinates: [[Double]]
    }
    struct Properties: Encodable {
        var times: [Double]
        var headings: [Double]
    }
    var type = "Feature"
    var geometry: LineString
    var properties: Properties
}
