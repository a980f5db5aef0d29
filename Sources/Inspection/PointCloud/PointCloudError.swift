/// A failure to read or write a point cloud file, with where in the file it happened.
public struct PointCloudError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the file the problem was found.
    public enum Location: Sendable, Equatable {
        /// A 1-based line number (text headers and ASCII data).
        case line(Int)
        /// A 0-based byte offset (binary data).
        case byte(Int)
        /// The file as a whole (it cannot be opened, or something is missing).
        case file
    }

    /// The file name (or label) the error refers to.
    public var file: String
    /// Where in the file.
    public var location: Location
    /// What is wrong, in words.
    public var reason: String

    /// Creates an error for `file` at `location`.
    public init(file: String, location: Location, reason: String) {
        self.file = file
        self.location = location
        self.reason = reason
    }

    /// `site.pcd:12: reason`, `site.pcd: byte 1024: reason` or `site.pcd: reason`.
    public var description: String {
        switch location {
        case .line(let n): return "\(file):\(n): \(reason)"
        case .byte(let n): return "\(file): byte \(n): \(reason)"
        case .file: return "\(file): \(reason)"
        }
    }
}
