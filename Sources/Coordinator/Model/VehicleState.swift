import Flight

/// One telemetry sample of a drone, in compact fixed-point units (the same values go on the wire).
public struct VehicleState: Hashable, Sendable {
    /// Position.
    public var position: GeoPoint
    /// Velocity north in cm/s.
    public var velocityNorthCmS: Int16
    /// Velocity east in cm/s.
    public var velocityEastCmS: Int16
    /// Velocity down in cm/s.
    public var velocityDownCmS: Int16
    /// Heading in centidegrees, 0…35999.
    public var headingCentidegrees: UInt16
    /// Battery charge in percent, 0…100.
    public var batteryPercent: UInt8
    /// What the vehicle is doing.
    public var activity: Activity
    /// Whether the motors are armed.
    public var armed: Bool
    /// Link quality to the flight controller / radio, 0…100.
    public var linkQuality: UInt8

    /// A state from its fields.
    public init(
        position: GeoPoint, velocityNorthCmS: Int16 = 0, velocityEastCmS: Int16 = 0, velocityDownCmS: Int16 = 0,
        headingCentidegrees: UInt16 = 0, batteryPercent: UInt8 = 100, activity: Activity = .landed,
        armed: Bool = false, linkQuality: UInt8 = 100
    ) {
        self.position = position
        self.velocityNorthCmS = velocityNorthCmS
        self.velocityEastCmS = velocityEastCmS
        self.velocityDownCmS = velocityDownCmS
        self.headingCentidegrees = headingCentidegrees
        self.batteryPercent = batteryPercent
        self.activity = activity
        self.armed = armed
        self.linkQuality = linkQuality
    }
}

/// A drone's predicted path: `points[i]` is where it expects to be `(i + 1) × step` after the prediction was made.
public struct TrajectoryPrediction: Hashable, Sendable {
    /// Spacing of the points in milliseconds (200 by default).
    public var stepMilliseconds: UInt16
    /// Predicted positions (40 by default, at most 255).
    public var points: [GeoPoint]
    /// Whether the drone avoids others while flying this (false: taking off, landing, returning home, flying an
    /// uploaded trajectory, under manual control; other drones must keep clear of it).
    public var avoiding: Bool
    /// How far the drone may stray from `points` (``PredictionUncertainty/none``: it flies them as predicted).
    public var uncertainty: PredictionUncertainty
    /// Which of four consecutive publications this is (0–3; the publishing core sets it): relays far from the path
    /// forward only some of them (`CoordinatorConfiguration.predictionFullRateReach`, PROTOCOL.md §7.2).
    public var index: UInt8

    /// A prediction from its fields.
    public init(
        stepMilliseconds: UInt16 = 200, points: [GeoPoint], avoiding: Bool = true,
        uncertainty: PredictionUncertainty = .none, index: UInt8 = 0
    ) {
        self.stepMilliseconds = stepMilliseconds
        self.points = points
        self.avoiding = avoiding
        self.uncertainty = uncertainty
        self.index = index & 3
    }
}
