/// Why a trajectory file could not be read.
public enum TrajectoryFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A CSV line is malformed: 1-based line number, the field (column name) and what is wrong.
    case malformedCSV(line: Int, field: String, problem: String)
    /// A GeoJSON member is missing or malformed: its path (like `geometry.coordinates[3][1]`) and what is wrong.
    case malformedGeoJSON(path: String, problem: String)
    /// The file has geodetic coordinates but no map origin was given to place them.
    case needsOrigin
    /// The points parsed but do not make a trajectory (times not increasing, …).
    case invalidTrajectory(TrajectoryError)
    /// The file could not be read or written.
    case io(path: String, problem: String)
    /// The file name's extension is not .csv, .geojson or .json.
    case unsupportedFormat(path: String)
    /// A problem inside a named file.
    indirect case inFile(path: String, TrajectoryFileError)

    /// What is wrong, naming the line and field (CSV) or member path (GeoJSON).
    public var description: String {
        switch self {
        case .malformedCSV(let line, let field, let problem): return "line \(line), field '\(field)': \(problem)"
        case .malformedGeoJSON(let path, let problem): return "GeoJSON \(path): \(problem)"
        case .needsOrigin: return "geodetic trajectory needs a map origin"
        case .invalidTrajectory(let e): return e.description
        case .io(let path, let problem): return "\(path): \(problem)"
        case .unsupportedFormat(let path): return "\(path): unknown trajectory format (use .csv, .geojson or .json)"
        case .inFile(let path, let e): return "\(path): \(e)"
        }
    }
}
