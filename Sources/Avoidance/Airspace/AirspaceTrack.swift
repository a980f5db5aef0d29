import Flight

/// Another drone in the airspace picture: who it is, whether it avoids, and its latest shared prediction in the local
/// frame.
public struct AirspaceTrack: Sendable, Hashable {
    /// Its UAV number (above 250 if it has none).
    public var uavNumber: Int
    /// Tie-break for equal numbers.
    public var tiebreak: UInt64
    /// Whether it avoids others (false for manual control, lost link, landing, …).
    public var avoiding: Bool
    /// Its prediction; `time` is when the prediction was made, on the receiver's clock (its `now` minus the age).
    public var prediction: PredictedTrajectory
    /// How far the drone may stray from its prediction, as it published it: added to the separation kept from it.
    public var uncertainty: PredictionUncertainty

    /// Creates a track.
    public init(
        uavNumber: Int, tiebreak: UInt64 = 0, avoiding: Bool, prediction: PredictedTrajectory,
        uncertainty: PredictionUncertainty = .none
    ) {
        self.uavNumber = uavNumber
        self.tiebreak = tiebreak
        self.avoiding = avoiding
        self.prediction = prediction
        self.uncertainty = uncertainty
    }

    /// Its place in the priority order.
    public var rank: VehicleRank { VehicleRank(avoiding: avoiding, uavNumber: uavNumber, tiebreak: tiebreak) }

    /// Seconds since the prediction was made.
    public func age(now: Double) -> Double { now - prediction.time }
}
