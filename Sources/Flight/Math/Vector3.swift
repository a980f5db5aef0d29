import Foundation

/// A 3-D vector in the local east-north-up frame (x east, y north, z up), metres or metres per second.
public struct Vector3: Sendable, Hashable, Codable, CustomStringConvertible {
    /// East component.
    public var x: Double
    /// North component.
    public var y: Double
    /// Up component.
    public var z: Double

    /// Creates a vector from east, north and up components.
    @inlinable public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
    /// Creates a vector from named east, north and up components.
    @inlinable public init(east: Double, north: Double, up: Double) { self.init(east, north, up) }

    /// The zero vector.
    public static let zero = Vector3(0, 0, 0)

    /// Euclidean length.
    @inlinable public var length: Double { (x * x + y * y + z * z).squareRoot() }
    /// Length of the horizontal (east, north) part.
    @inlinable public var horizontalLength: Double { (x * x + y * y).squareRoot() }
    /// The horizontal part (z set to 0).
    @inlinable public var horizontal: Vector3 { Vector3(x, y, 0) }

    /// This vector scaled to at most `maxLength`.
    @inlinable public func clamped(toLength maxLength: Double) -> Vector3 {
        let l = length
        return l > maxLength && l > 0 ? self * (maxLength / l) : self
    }

    /// Heading of the horizontal part in degrees clockwise from north, 0 ≤ h < 360.
    @inlinable public var heading: Double { normalizedHeading(atan2(x, y) * 180 / .pi) }

    /// Component-wise sum.
    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    /// Component-wise difference.
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    /// Scaled by `s`.
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    /// Scaled by `s`.
    @inlinable public static func * (s: Double, a: Vector3) -> Vector3 { a * s }
    /// Divided by `s`.
    @inlinable public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    /// Negated.
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    /// Adds in place.
    @inlinable public static func += (a: inout Vector3, b: Vector3) { a = a + b }
    /// Subtracts in place.
    @inlinable public static func -= (a: inout Vector3, b: Vector3) { a = a - b }

    /// Dot product.
    @inlinable public func dot(_ b: Vector3) -> Double { x * b.x + y * b.y + z * b.z }
    /// Distance to another point.
    @inlinable public func distance(to b: Vector3) -> Double { (self - b).length }
    /// Linear interpolation: self at f = 0, b at f = 1.
    @inlinable public func interpolated(to b: Vector3, fraction f: Double) -> Vector3 { self + (b - self) * f }

    /// `(e, n, u)` with 3 decimals.
    public var description: String { "(\(fmt3(x)), \(fmt3(y)), \(fmt3(z)))" }
}

/// Degrees reduced to 0 ≤ h < 360.
@inlinable public func normalizedHeading(_ degrees: Double) -> Double {
    var h = degrees.truncatingRemainder(dividingBy: 360)
    if h < 0 { h += 360 }
    return h >= 360 ? 0 : h
}

/// Signed smallest turn from `a` to `b` in degrees, −180 < d ≤ 180.
@inlinable public func headingDifference(from a: Double, to b: Double) -> Double {
    var d = (b - a).truncatingRemainder(dividingBy: 360)
    if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
    return d
}

func fmt3(_ v: Double) -> String { String(format: "%.3f", v) }
