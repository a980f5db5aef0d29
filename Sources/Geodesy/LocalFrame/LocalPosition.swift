/// A position in a mission's local east-north-up map frame, metres from the ``MapOrigin``.
public struct LocalPosition: Sendable, Hashable, Codable {
    /// Metres east of the origin (UTM grid east).
    public var east: Double
    /// Metres north of the origin (UTM grid north).
    public var north: Double
    /// Metres above the origin's altitude.
    public var up: Double

    /// Creates a local position.
    public init(east: Double, north: Double, up: Double) {
        self.east = east
        self.north = north
        self.up = up
    }
}
