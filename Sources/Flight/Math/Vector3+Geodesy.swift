import Geodesy

extension Vector3 {
    /// Converts from the geodesy layer's local position (east, north, up).
    public init(_ p: LocalPosition) { self.init(p.east, p.north, p.up) }
    /// This vector as a geodesy local position.
    public var localPosition: LocalPosition { LocalPosition(east: x, north: y, up: z) }
}
