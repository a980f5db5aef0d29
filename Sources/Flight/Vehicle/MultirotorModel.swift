/// Deterministic multirotor kinematics with an autopilot's built-in modes (takeoff, hold, position, land, return home).
///
/// A point mass whose velocity follows the commanded velocity within acceleration limits; commanded velocity comes
/// from a proportional position controller capped by the speed limits and by a braking profile (v ≤ √(2·a·d)) so the
/// vehicle stops at its target without overshoot. Shared by ``MultirotorSimulator`` (with noise, wind and battery on
/// top) and by ``Navigator``'s trajectory prediction, so predictions and simulation agree.
public struct MultirotorModel: Sendable, Hashable {
    /// Performance limits.
    public var limits: VehicleLimits
    /// Home position; its z is the ground level.
    public var home: Vector3
    /// Position, local ENU metres.
    public internal(set) var position: Vector3
    /// Velocity, local ENU m/s.
    public internal(set) var velocity: Vector3
    /// Heading, degrees clockwise from grid north.
    public internal(set) var heading: Double
    /// Motors armed.
    public internal(set) var armed: Bool
    /// Current activity.
    public internal(set) var activity: Activity

    /// Largest internal integration step, seconds; ``step(dt:setpoint:)`` subdivides longer steps.
    public static let maxSubstep = 0.02
    /// Within this distance (m) and below 0.3 m/s a target counts as reached for activity reporting.
    static let settleDistance = 0.3

    /// A vehicle landed and disarmed at `home`.
    public init(home: Vector3, limits: VehicleLimits = VehicleLimits(), heading: Double = 0) {
        self.limits = limits
        self.home = home
        self.position = home
        self.velocity = .zero
        self.heading = heading
        self.armed = false
        self.activity = .landed
    }

    /// A model continuing from an observed state (used for prediction).
    public init(state: VehicleState, limits: VehicleLimits) {
        self.limits = limits
        self.home = state.home
        self.position = state.position
        self.velocity = state.velocity
        self.heading = state.heading
        self.armed = state.armed
        self.activity = state.activity
    }

    /// Whether the vehicle is on the ground (at or below home level).
    public var onGround: Bool { position.z <= home.z + 1e-6 }

    /// Advances the model by `dt` seconds toward `setpoint` (subdivided into steps of at most ``maxSubstep``).
    public mutating func step(dt: Double, setpoint: Setpoint) {
        guard dt > 0 else { return }
        let n = Int((dt / Self.maxSubstep).rounded(.up))
        let h = dt / Double(n)
        for _ in 0..<n { substep(h, setpoint) }
    }

    mutating func substep(_ dt: Double, _ setpoint: Setpoint) {
        let command = commandedMotion(for: setpoint)
        guard armed else {
            velocity = .zero
            activity = .landed
            return
        }
        // Velocity follows the command within the acceleration limits.
        var dv = command.velocity - velocity
        let dvh = dv.horizontal.clamped(toLength: limits.maxHorizontalAcceleration * dt)
        dv = Vector3(
            dvh.x, dvh.y, min(max(dv.z, -limits.maxVerticalAcceleration * dt), limits.maxVerticalAcceleration * dt))
        velocity += dv
        position += velocity * dt
        if position.z <= home.z {
            position.z = home.z
            if velocity.z < 0 { velocity.z = 0 }
            if command.disarmOnTouchdown {
                velocity = .zero
                armed = false
                activity = .landed
                return
            }
        }
        // Yaw toward the desired heading at the yaw-rate limit.
        if let desired = command.heading {
            let turn = headingDifference(from: heading, to: desired)
            let maxTurn = limits.maxYawRate * dt
            heading = normalizedHeading(heading + min(max(turn, -maxTurn), maxTurn))
        }
        activity = command.activity
    }

    /// The controller's output for one substep.
    struct Motion {
        var velocity: Vector3
        var heading: Double?
        var activity: Activity
        var disarmOnTouchdown = false
    }

    mutating func commandedMotion(for setpoint: Setpoint) -> Motion {
        switch setpoint {
        case .idle:
            if onGround {
                armed = false
                return Motion(velocity: .zero, heading: nil, activity: .landed)
            }
            return Motion(velocity: .zero, heading: nil, activity: .hovering)
        case .takeoff(let altitude):
            if !armed { armed = true }
            let target = Vector3(position.x, position.y, home.z + altitude)
            let v = positionVelocity(to: target, feedforward: .zero, speed: limits.maxHorizontalSpeed)
            let settled = abs(target.z - position.z) < Self.settleDistance && abs(velocity.z) < 0.3
            return Motion(velocity: Vector3(0, 0, v.z), heading: nil, activity: settled ? .hovering : .takingOff)
        case .hold(let target):
            guard armed else { return Motion(velocity: .zero, heading: nil, activity: .landed) }
            return Motion(
                velocity: positionVelocity(to: target, feedforward: .zero, speed: limits.maxHorizontalSpeed),
                heading: nil, activity: .hovering)
        case .position(let target, let feedforward, let speed, let desiredHeading, let activity):
            guard armed else { return Motion(velocity: .zero, heading: nil, activity: .landed) }
            let v = positionVelocity(to: target, feedforward: feedforward, speed: speed)
            return Motion(velocity: v, heading: desiredHeading ?? travelHeading(v), activity: activity)
        case .land:
            guard armed else { return Motion(velocity: .zero, heading: nil, activity: .landed) }
            return Motion(
                velocity: Vector3(0, 0, -limits.landingSpeed), heading: nil, activity: .landing, disarmOnTouchdown: true
            )
        case .returnHome(let altitude):
            guard armed else { return Motion(velocity: .zero, heading: nil, activity: .landed) }
            return returnHomeMotion(altitude: altitude)
        }
    }

    /// Return home without stored phase: climb in place until at the return altitude, then fly home at that
    /// altitude (or higher if already higher), then descend and disarm once within 0.5 m of home horizontally.
    func returnHomeMotion(altitude: Double) -> Motion {
        let toHome = (home - position).horizontal
        if toHome.horizontalLength > 0.5 || velocity.horizontalLength > 0.5 {
            let cruise = max(home.z + altitude, position.z)
            if position.z < home.z + altitude - 0.5 && toHome.horizontalLength > 0.5 {
                // Climb phase: brake horizontally, climb.
                let v = positionVelocity(
                    to: Vector3(position.x, position.y, cruise), feedforward: .zero, speed: limits.maxHorizontalSpeed)
                return Motion(velocity: Vector3(0, 0, v.z), heading: nil, activity: .returning)
            }
            let target = Vector3(home.x, home.y, cruise)
            let v = positionVelocity(to: target, feedforward: .zero, speed: limits.maxHorizontalSpeed)
            return Motion(velocity: v, heading: travelHeading(v), activity: .returning)
        }
        let hv = positionVelocity(to: Vector3(home.x, home.y, position.z), feedforward: .zero, speed: 1)
        return Motion(
            velocity: Vector3(hv.x, hv.y, -limits.landingSpeed), heading: nil, activity: .returning,
            disarmOnTouchdown: true)
    }

    /// Desired velocity toward `target`: feedforward plus a proportional correction that is itself capped by a braking
    /// profile √(2·a·d) (so the vehicle can stop at the target), then limited to `speed` horizontally and to the
    /// climb/descent rates vertically.
    func positionVelocity(to target: Vector3, feedforward: Vector3, speed: Double) -> Vector3 {
        let error = target - position
        let gain = limits.positionGain
        let dh = error.horizontalLength
        let correctionH = (error.horizontal * gain).clamped(
            toLength: (2 * 0.9 * limits.maxHorizontalAcceleration * dh).squareRoot())
        let vh = (feedforward.horizontal + correctionH).clamped(toLength: min(speed, limits.maxHorizontalSpeed))
        let brakeZ = (2 * 0.9 * limits.maxVerticalAcceleration * abs(error.z)).squareRoot()
        var vz = feedforward.z + min(max(error.z * gain, -brakeZ), brakeZ)
        vz = min(max(vz, -limits.maxDescentRate), limits.maxClimbRate)
        return Vector3(vh.x, vh.y, vz)
    }

    /// Heading of travel when moving horizontally faster than 0.5 m/s, otherwise nil (keep heading).
    func travelHeading(_ v: Vector3) -> Double? {
        v.horizontalLength > 0.5 ? v.heading : nil
    }

    /// The model's state as a navigator sees it.
    public func state(batteryPercent: Double) -> VehicleState {
        VehicleState(
            position: position, velocity: velocity, heading: heading, armed: armed, activity: activity,
            batteryPercent: batteryPercent, home: home)
    }
}
