/// Why an inspection map or route cannot be made; the text names the parameter, file, point or leg.
public enum InspectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A parameter out of range.
    case badParameter(String)
    /// A snapshot-point file that cannot be used (file, line and reason).
    case badPoints(String)
    /// A snapshot point inside the clearance of the cloud, or outside the planning space.
    case pointNotFree(String)
    /// No collision-free path between two consecutive points.
    case noPath(String)

    public var description: String {
        switch self {
        case .badParameter(let s), .badPoints(let s), .pointNotFree(let s), .noPath(let s): return s
        }
    }
}
