/// A point cloud in the mission's local ENU frame, metres (x east, y north, z up from the map origin).
public struct PointCloud: Sendable {
    /// The finite points, in file order.
    public var points: [SIMD3<Float>]
    /// Points dropped because a coordinate was NaN or infinite (organised PCD clouds mark missing returns so).
    public var droppedNonFinite: Int
    /// What was read, for reports: "PCD binary_compressed", "PLY ascii", …
    public var format: String

    /// A cloud of `points`.
    public init(points: [SIMD3<Float>], droppedNonFinite: Int = 0, format: String = "") {
        self.points = points
        self.droppedNonFinite = droppedNonFinite
        self.format = format
    }
}
