import Flight

/// One drone's outcome in an ``AvoidanceSimulation``.
public struct DroneAvoidanceReport: Sendable, Codable, Hashable {
    /// Scenario id.
    public var id: String
    /// UAV number.
    public var uavNumber: Int
    /// Whether it was avoiding at the end (false: lost link, landed, …).
    public var avoidingAtEnd: Bool
    /// Seconds from the start of the timed part until it reached its destination for good (nil: it did not, or had
    /// nowhere to go).
    public var arrival: Double?
    /// The same flying alone.
    public var soloArrival: Double?
    /// Distance flown in the timed part, metres.
    public var distance: Double
    /// The same flying alone.
    public var soloDistance: Double?
    /// Where it ended, local ENU.
    public var finalPosition: Vector3
    /// Its destination at the end: the goal, the goal moved into the geofence, or a parking spot.
    public var destination: Vector3?
    /// Whether it ended on a parking spot beside a goal another drone holds.
    public var parked: Bool
    /// Decisions without a safe plan.
    public var unsafeDecisions: Int
    /// Times its plan changed.
    public var planChanges: Int
}

/// The outcome of an ``AvoidanceSimulation``: separation, violations, geofence, arrival and distance.
public struct AvoidanceReport: Sendable, Codable, Hashable {
    /// Scenario name.
    public var name: String
    /// Simulated seconds.
    public var simulatedTime: Double
    /// Start of the timed part, seconds.
    public var measuredFrom: Double
    /// Smallest horizontal distance between two avoiding drones while vertically closer than the vertical minimum,
    /// metres (nil if that never happened).
    public var minimumSeparation: Double?
    /// Smallest 3-D distance between two avoiding drones, metres.
    public var minimumDistance: Double?
    /// Losses of separation between avoiding drones (a pair entering the minima counts once).
    public var violations: Int
    /// Their total duration, pair-seconds.
    public var violationSeconds: Double
    /// Smallest separation (as ``minimumSeparation``) between a non-avoiding drone and an avoiding one.
    public var minimumSeparationToNonAvoiding: Double?
    /// Losses of separation involving a drone that does not avoid.
    public var nonAvoidingViolations: Int
    /// Their total duration, pair-seconds.
    public var nonAvoidingViolationSeconds: Double
    /// Times an avoiding drone left the geofence.
    public var fenceExits: Int
    /// Seconds until every drone that had somewhere to go had arrived for good (nil: some did not).
    public var arrivalTime: Double?
    /// The same with every drone flying alone.
    public var soloArrivalTime: Double?
    /// Distance flown by all drones in the timed part, metres.
    public var distance: Double
    /// The same flying alone.
    public var soloDistance: Double?
    /// Predictions published and copies delivered and lost.
    public var published: Int, delivered: Int, lost: Int
    /// Decisions made, and those without a safe plan.
    public var decisions: Int, unsafeDecisions: Int
    /// Per drone.
    public var drones: [DroneAvoidanceReport]

    /// Arrival time over the solo arrival time (nil if either is missing).
    public var timeRatio: Double? {
        guard let a = arrivalTime, let s = soloArrivalTime, s > 0 else { return nil }
        return a / s
    }
    /// Extra distance flown over flying alone, as a fraction (0.1 = 10 % more).
    public var extraDistance: Double? {
        guard let s = soloDistance, s > 0 else { return nil }
        return distance / s - 1
    }
    /// Drones with somewhere to go that did not arrive.
    public var unarrived: [String] {
        drones.filter { $0.avoidingAtEnd && $0.destination != nil && $0.arrival == nil }.map(\.id)
    }
}
