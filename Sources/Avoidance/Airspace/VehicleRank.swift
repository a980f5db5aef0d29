/// A drone's place in the total priority order that decides who gives way.
///
/// Sorted ascending, the first has right of way: drones that cannot avoid (manual control, lost link, landing,
/// taking off, returning, flying an uploaded trajectory) come first, then avoiding drones by UAV number (lower
/// wins), then by a tie-break (for example the low bits of the NodeID) for drones with the same or no number.
/// Every drone computes the same order from the same picture, so of two conflicting drones exactly one yields.
public struct VehicleRank: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whether the drone avoids others; those that do not rank above all that do.
    public var avoiding: Bool
    /// The UAV number (1–250); use a number above 250 for a drone that has none yet.
    public var uavNumber: Int
    /// Breaks ties between equal numbers.
    public var tiebreak: UInt64

    /// Creates a rank.
    public init(avoiding: Bool, uavNumber: Int, tiebreak: UInt64 = 0) {
        self.avoiding = avoiding
        self.uavNumber = uavNumber
        self.tiebreak = tiebreak
    }

    /// Whether `self` comes first in the priority order (has right of way over `other`).
    public static func < (a: VehicleRank, b: VehicleRank) -> Bool {
        if a.avoiding != b.avoiding { return !a.avoiding }
        if a.uavNumber != b.uavNumber { return a.uavNumber < b.uavNumber }
        return a.tiebreak < b.tiebreak
    }

    /// Whether `self` has right of way over `other`.
    public func hasPriority(over other: VehicleRank) -> Bool { self < other }

    /// `UAV 7` or `UAV 7 (not avoiding)`.
    public var description: String { "UAV \(uavNumber)\(avoiding ? "" : " (not avoiding)")" }
}
