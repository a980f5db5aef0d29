/// Which drones a target is for.
public enum TargetAddress: Hashable, Sendable {
    /// One drone by UAV number.
    case uav(UInt8)
    /// Several drones by UAV number.
    case group([UInt8])
    /// Every drone.
    case all

    /// Whether a drone holding `number` is addressed.
    public func includes(_ number: UInt8) -> Bool {
        switch self {
        case .uav(let n): return n == number
        case .group(let ns): return ns.contains(number)
        case .all: return true
        }
    }
}

/// A location for drones to go to or follow; a moving target is a stream of these (follow-me, ≥5 Hz), latest wins.
public struct Target: Hashable, Sendable {
    /// Who it is for.
    public var address: TargetAddress
    /// Where.
    public var location: GeoPoint
    /// Desired heading in centidegrees, if any.
    public var headingCentidegrees: UInt16?

    /// A target from its fields.
    public init(address: TargetAddress, location: GeoPoint, headingCentidegrees: UInt16? = nil) {
        self.address = address
        self.location = location
        self.headingCentidegrees = headingCentidegrees
    }
}
