import Avoidance
import Flight
import Geodesy

/// Collision avoidance as configured (`[avoidance]`), before it is placed on a vehicle's local map: its separations,
/// and the geofence as latitude/longitude corners with a floor and ceiling above home. A simulated vehicle's map is
/// known at once; an autopilot's once it has reported its first position, so the pilot places the plan then.
public struct AvoidancePlan: Sendable, Hashable {
    public var configuration: AvoidanceConfiguration
    /// Geofence corners (at least 3, or none for no geofence).
    public var geofence: [GeodeticCoordinate]
    /// Geofence floor and ceiling, metres above home.
    public var geofenceAltitudes: ClosedRange<Double>

    public init(
        configuration: AvoidanceConfiguration, geofence: [GeodeticCoordinate] = [],
        geofenceAltitudes: ClosedRange<Double> = 2...120
    ) {
        self.configuration = configuration
        self.geofence = geofence
        self.geofenceAltitudes = geofenceAltitudes
    }

    /// The avoidance core for a vehicle whose local map is `frame`; throws when the geofence cannot be placed on it.
    public func core(on frame: MapOrigin) throws -> AvoidanceCore {
        var c = configuration
        if !geofence.isEmpty {
            c.geofence = try Geofence(
                corners: geofence, origin: frame, minAltitude: geofenceAltitudes.lowerBound,
                maxAltitude: geofenceAltitudes.upperBound)
        }
        return AvoidanceCore(configuration: c)
    }
}
