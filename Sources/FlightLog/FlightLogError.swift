/// A flight log that cannot be opened, read or written: the file and what went wrong.
public struct FlightLogError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var problem: String

    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "flight log \(path): \(problem)" }
}
