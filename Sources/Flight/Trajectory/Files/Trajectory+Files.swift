import Foundation
import Geodesy

extension Trajectory {
    /// File formats for trajectories.
    public enum FileFormat: Sendable {
        /// CSV (see ``Trajectory/fromCSV(_:origin:)``).
        case csv
        /// GeoJSON Feature with a LineString (see ``Trajectory/fromGeoJSON(_:origin:defaultSpeed:)``).
        case geoJSON

        /// The format for a file name: `.csv`, or `.geojson` / `.json`.
        public init(path: String) throws(TrajectoryFileError) {
            switch (path as NSString).pathExtension.lowercased() {
            case "csv": self = .csv
            case "geojson", "json": self = .geoJSON
            default: throw .unsupportedFormat(path: path)
            }
        }
    }

    /// Reads a trajectory file, choosing the format by extension. GeoJSON and geodetic CSV need `origin`.
    /// - Throws: ``TrajectoryFileError`` wrapped in ``TrajectoryFileError/inFile(path:_:)`` so the message names the file,
    ///   the line and the field.
    public static func load(path: String, origin: MapOrigin?) throws(TrajectoryFileError) -> Trajectory {
        let format = try FileFormat(path: path)
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .io(path: path, problem: "cannot read (\(error.localizedDescription))")
        }
        do throws(TrajectoryFileError) {
            switch format {
            case .csv:
                guard let text = String(data: data, encoding: .utf8) else {
                    throw .malformedCSV(line: 1, field: "(file)", problem: "not UTF-8 text")
                }
                return try fromCSV(text, origin: origin)
            case .geoJSON:
                guard let origin else { throw .needsOrigin }
                return try fromGeoJSON(data, origin: origin)
            }
        } catch {
            throw .inFile(path: path, error)
        }
    }

    /// Writes the trajectory, choosing the format by extension (GeoJSON needs `origin`; CSV is geodetic when `origin` is given).
    public func save(path: String, origin: MapOrigin?) throws(TrajectoryFileError) {
        let data: Data
        switch try FileFormat(path: path) {
        case .csv: data = Data(csv(origin: origin).utf8)
        case .geoJSON:
            guard let origin else { throw .inFile(path: path, .needsOrigin) }
            data = geoJSON(origin: origin)
        }
        do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw .io(path: path, problem: "cannot write (\(error.localizedDescription))")
        }
    }
}
