import Avoidance
import Geodesy
import Vehicles

/// Collision avoidance on a drone, simulated or on an autopilot (`[avoidance]`; every key optional).
public struct AvoidanceSettings: Sendable, Equatable {
    /// Whether the drone avoids others (`enabled`, default true).
    public var enabled = true
    /// Horizontal separation to keep, metres (`horizontal_separation`, default 5, MRS's default).
    public var horizontalSeparation = 5.0
    /// Vertical separation below which drones count as level, metres (`vertical_separation`, default 2.9).
    public var verticalSeparation = 2.9
    /// Geofence corners, [latitude, longitude] in degrees (`geofence`, at least 3; none by default).
    public var geofence: [[Double]] = []
    /// Geofence floor and ceiling, metres above home (`geofence_altitude = [min, max]`, default [2, 120]).
    public var geofenceAltitude: [Double] = [2, 120]

    public init() {}
}

extension AvoidanceSettings {
    /// The settings as the vehicle's pilot takes them: separations, and the geofence to place on its map.
    public var plan: AvoidancePlan {
        var c = AvoidanceConfiguration()
        c.horizontalSeparation = horizontalSeparation
        c.verticalSeparation = verticalSeparation
        return AvoidancePlan(
            configuration: c,
            geofence: geofence.map { GeodeticCoordinate(latitude: $0[0], longitude: $0[1], altitude: 0) },
            geofenceAltitudes: geofenceAltitude[0]...max(geofenceAltitude[0], geofenceAltitude[1]))
    }
}
