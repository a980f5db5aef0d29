import Coordinator
import Flight
import Geodesy
import MAVLink
import MeshTypes

extension AutopilotSession {
    // MARK: - Telemetry for the mesh

    /// The vehicle's state for the mesh; nil until the autopilot has sent a position.
    public var vehicleState: Coordinator.VehicleState? {
        guard let p = telemetry.position else { return nil }
        return Coordinator.VehicleState(
            position: p, velocityNorthCmS: telemetry.velocityNorthCmS, velocityEastCmS: telemetry.velocityEastCmS,
            velocityDownCmS: telemetry.velocityDownCmS,
            headingCentidegrees: telemetry.headingCentidegrees ?? telemetry.yawCentidegrees ?? 0,
            batteryPercent: telemetry.batteryPercent ?? 100, activity: activity, armed: telemetry.armed,
            linkQuality: linkQuality)
    }

    /// What the vehicle is doing: the autopilot's landed state and mode, refined by the command it runs.
    public var activity: Activity {
        if let l = telemetry.landedState {
            if l == .takeoff && telemetry.armed { return .takingOff }
            if l == .landing { return .landing }
            if l == .onGround { return .landed }
        }
        guard telemetry.armed, flying || intent == .takingOff else { return .landed }
        guard let flavour = identity?.flavour else { return .hovering }
        let mode = telemetry.customMode
        if flavour.isMode(mode, .land) { return .landing }
        if flavour.isMode(mode, .returnToLaunch) || (flavour != .px4 && (mode == 21 || mode == 27)) {
            return .returning
        }
        if flavour.isMode(mode, .mission) { return .followingTrajectory }
        if flavour == .px4, mode == AutopilotFlavour.px4CustomMode(main: 4, sub: 2) { return .takingOff }
        switch intent {
        case .takingOff: return .takingOff
        case .flyingToTarget: return .flyingToTarget
        case .following: return .following
        default: return .hovering
        }
    }

    /// A constant-velocity prediction: `count` points `step` apart (the mesh's airspace picture).
    public func prediction(count: Int = 40, stepMilliseconds: UInt16 = 200) -> TrajectoryPrediction? {
        guard let p = telemetry.position else { return nil }
        let vn = Double(telemetry.velocityNorthCmS) / 100
        let ve = Double(telemetry.velocityEastCmS) / 100
        let vu = -Double(telemetry.velocityDownCmS) / 100
        let points = (1...max(1, count)).map { i -> GeoPoint in
            let t = Double(i) * Double(stepMilliseconds) / 1000
            return Self.offset(p, north: vn * t, east: ve * t, up: vu * t)
        }
        return TrajectoryPrediction(stepMilliseconds: stepMilliseconds, points: points)
    }

    // MARK: - Geometry

    /// `p` moved by metres north, east and up (on the tangent plane at `p`).
    static func offset(_ p: GeoPoint, north: Double, east: Double, up: Double) -> GeoPoint {
        let g = TangentPlane(origin: p.geodetic).geodetic(LocalPosition(east: east, north: north, up: 0))
        return GeoPoint(latitude: g.latitude, longitude: g.longitude, altitude: p.altitude + up)
    }

    /// Horizontal distance in metres.
    static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        Geodesic.flatInverse(from: a.geodetic, to: b.geodetic).distance
    }
}
