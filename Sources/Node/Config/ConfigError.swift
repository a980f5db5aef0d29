/// A configuration problem, naming the file, the field and what is wrong.
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    public let file: String
    /// The field as `[table] key`, or empty for a whole-file problem.
    public let field: String
    public let problem: String

    public init(file: String, field: String, problem: String) {
        self.file = file
        self.field = field
        self.problem = problem
    }

    public var description: String {
        field.isEmpty ? "config \(file): \(problem)" : "config \(file): \(field): \(problem)"
    }
}
