import Geodesy

extension TrajectoryPlanner {
    /// The trajectory a drone flies for an uploaded `trajectory` command: from `start` (its local position, facing
    /// `heading` degrees) through `waypoints` (altitudes in metres above home) placed on the map of `origin`, at the
    /// navigator's cruise speed (`navigation.defaultSpeed`) and the planner's other default limits, turning and
    /// holding at the waypoints in `stops` (indexed from 0, the first waypoint). The simulated drone flies exactly
    /// this, and the station's dashboard previews it with the same call.
    public static func commandedFlight(
        from start: Vector3, heading: Double, through waypoints: [GeodeticCoordinate], on origin: MapOrigin,
        stops: [Int: Stop] = [:], navigation: NavigatorConfiguration = NavigatorConfiguration()
    ) throws(TrajectoryCommandError) -> Trajectory {
        guard !waypoints.isEmpty else { throw TrajectoryCommandError("trajectory has no waypoints") }
        var local = [start]
        for (i, w) in waypoints.enumerated() {
            do { local.append(Vector3(try origin.local(w))) } catch {
                throw TrajectoryCommandError("trajectory waypoint \(i + 1) is not on the map: \(error)")
            }
        }
        var limits = Limits()
        limits.maxSpeed = navigation.defaultSpeed
        do {
            var shifted: [Int: Stop] = [:]
            for (i, s) in stops { shifted[i + 1] = s }
            return try TrajectoryPlanner(limits: limits).plan(local, initialHeading: heading, stops: shifted)
        } catch {
            throw TrajectoryCommandError("trajectory cannot be planned: \(error)")
        }
    }
}

/// Why a commanded trajectory cannot be flown (the text names the waypoint, counted from 1).
public struct TrajectoryCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
