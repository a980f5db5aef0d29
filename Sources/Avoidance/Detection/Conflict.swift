/// A predicted loss of separation between two tracks of an ``AirspaceSnapshot``: at one or more grid instants they
/// are closer than the horizontal minimum (plus each track's conservative growth) while closer than the vertical
/// minimum (plus growth).
public struct Conflict: Sendable, Hashable, CustomStringConvertible {
    /// Index of the first track in the snapshot (the lower index).
    public var first: Int
    /// Index of the second track.
    public var second: Int
    /// First grid index at which they conflict.
    public var firstIndex: Int
    /// Number of grid instants in conflict.
    public var instants: Int
    /// Smallest horizontal distance at a conflicting instant, metres.
    public var closestHorizontal: Double

    /// Creates a conflict record.
    public init(first: Int, second: Int, firstIndex: Int, instants: Int, closestHorizontal: Double) {
        self.first = first
        self.second = second
        self.firstIndex = firstIndex
        self.instants = instants
        self.closestHorizontal = closestHorizontal
    }

    /// `3–17 from step 12 (8 instants, 3.42 m)`.
    public var description: String {
        "\(first)–\(second) from step \(firstIndex) (\(instants) instants, \(String(format: "%.2f", closestHorizontal)) m)"
    }
}
