import Flight

/// A flight activity on the wire (telemetry; a ground station's custom mode): one byte, 0 landed … 7 returning.
extension Activity {
    /// The activities in wire order: a value's index is its byte.
    static let wireOrder: [Activity] = [
        .landed, .takingOff, .hovering, .flyingToTarget, .following, .followingTrajectory, .landing, .returning,
    ]

    /// This activity's byte on the wire.
    public var wireValue: UInt8 { UInt8(Self.wireOrder.firstIndex(of: self)!) }

    /// The activity a byte stands for; nil for a value no activity has.
    public init?(wireValue: UInt8) {
        guard Int(wireValue) < Self.wireOrder.count else { return nil }
        self = Self.wireOrder[Int(wireValue)]
    }
}
