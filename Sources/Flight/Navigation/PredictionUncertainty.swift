/// How far a drone may stray from its published prediction: `radius` metres at the moment the prediction was made,
/// growing by `growth` metres each second after it. A drone whose autopilot flies its plan faithfully publishes a
/// small radius and no growth; one that is slower than commanded, drifts in wind or ignores its setpoints publishes
/// the rate at which its recent predictions went wrong, and the others keep that much further away.
public struct PredictionUncertainty: Sendable, Hashable, Codable {
    /// Metres at the moment the prediction was made (position noise), 0…25.5.
    public var radius: Double
    /// Metres per second of prediction age, 0…25.5.
    public var growth: Double

    /// An uncertainty; values are clamped to what the wire carries (0…25.5, in tenths).
    public init(radius: Double, growth: Double) {
        self.radius = Self.clamp(radius)
        self.growth = Self.clamp(growth)
    }

    /// No uncertainty beyond the separation minima.
    public static let none = PredictionUncertainty(radius: 0, growth: 0)

    /// The radius `seconds` after the prediction was made.
    public func radius(after seconds: Double) -> Double { radius + growth * max(0, seconds) }

    /// Whether it adds nothing.
    public var isNone: Bool { radius == 0 && growth == 0 }

    static func clamp(_ v: Double) -> Double {
        guard v.isFinite, v > 0 else { return 0 }
        return min(25.5, (v * 10).rounded() / 10)
    }
}
