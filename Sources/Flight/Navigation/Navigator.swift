import Geodesy

/// Settings of a ``Navigator``.
public struct NavigatorConfiguration: Sendable, Hashable, Codable {
    /// The vehicle's limits (also used for prediction).
    public var limits = VehicleLimits()
    /// A goto target counts as reached (and the vehicle hovers there) within this distance, metres.
    public var arrivalRadius = 1.0
    /// Goto speed when the command gives none, m/s.
    public var defaultSpeed = 4.0
    /// Takeoff is refused below this battery percent.
    public var takeoffMinimumBattery = 30.0
    /// Allowed takeoff altitudes above home, metres.
    public var takeoffAltitudeRange: ClosedRange<Double> = 1...120
    /// At or below this battery percent an airborne vehicle returns home (matches the simulator's failsafe).
    public var lowBatteryPercent = 20.0
    /// Return-home altitude above home, metres.
    public var returnAltitude = 20.0
    /// "Start trajectory" needs the vehicle within this distance of the trajectory's first point, metres.
    public var trajectoryStartTolerance = 1.0
    /// A followed target's last observation is extrapolated at most this long, seconds.
    public var targetMaxExtrapolation = 2.0
    /// Prediction horizon, seconds.
    public var predictionHorizon = 8.0
    /// Prediction step, seconds.
    public var predictionStep = 0.2

    /// Defaults as documented on each property.
    public init() {}
}

/// Turns commands and targets into setpoints, and predicts where the vehicle will go.
///
/// Pure and deterministic: time comes in as `now`, the vehicle state as a ``VehicleState``; nothing is stored but the
/// current intent and the last target observation. The caller loop is: `handle` commands as they arrive, `updateTarget`
/// when a followed target reports, and every control tick `vehicle.setpoint = navigator.setpoint(state:now:)`.
public struct Navigator: Sendable {
    /// What the navigator is trying to do.
    public enum Intent: Sendable, Hashable {
        /// On the ground, nothing to do.
        case idle
        /// Climbing to an altitude above home.
        case takeoff(altitude: Double)
        /// Holding a position.
        case hold(Vector3)
        /// Flying to a target at a speed; becomes ``hold(_:)`` within the arrival radius.
        case goto(Vector3, speed: Double)
        /// Following the current target at an offset.
        case follow(offset: Vector3)
        /// Flying a trajectory started at `startTime`.
        case trajectory(Trajectory, startTime: Double)
        /// Landing.
        case land
        /// Returning home (climb, fly home, land); `lowBattery` when the battery triggered it.
        case returnHome(lowBattery: Bool)
    }

    /// Settings.
    public internal(set) var configuration: NavigatorConfiguration
    /// The map origin for geodetic locations.
    public let origin: MapOrigin
    /// Current intent.
    public private(set) var intent: Intent = .idle
    /// Latest observation of the followed target.
    public private(set) var target: TargetObservation?
    /// Collision avoidance's change to how the current intent is flown (nil: none); see ``NavigatorAdjustment``.
    /// Applied to the `hold`, `goto` and `follow` intents by ``setpoint(state:now:)`` and so also by
    /// ``predictedTrajectory(state:now:)``. Commands do not clear it; whoever set it does.
    public var adjustment: NavigatorAdjustment?

    /// A navigator with nothing to do.
    public init(origin: MapOrigin, configuration: NavigatorConfiguration = NavigatorConfiguration()) {
        self.origin = origin
        self.configuration = configuration
    }

    /// Takes `intent` as it stands, without a command's checks: for a vehicle that navigates itself (an autopilot),
    /// whose navigator mirrors what it flies so that prediction and avoidance reason about it as about any other.
    public mutating func adopt(_ intent: Intent) {
        self.intent = intent
    }

    /// Records a new observation of the target to follow.
    public mutating func updateTarget(_ observation: TargetObservation) {
        target = observation
    }

    /// Accepts a command or says why not.
    public mutating func handle(_ command: FlightCommand, state: VehicleState, now: Double) throws(CommandRejection) {
        let c = configuration
        var airborne = state.isAirborne
        if case .takeoff = intent { airborne = true }
        if case .returnHome(lowBattery: true) = intent, command != .land { throw .failsafeActive }
        switch command {
        case .takeoff(let altitude):
            guard !airborne else { throw .alreadyAirborne }
            guard state.batteryPercent >= c.takeoffMinimumBattery else {
                throw .batteryTooLow(percent: state.batteryPercent, minimum: c.takeoffMinimumBattery)
            }
            guard altitude.isFinite, c.takeoffAltitudeRange.contains(altitude) else {
                throw .invalidAltitude(altitude, allowed: c.takeoffAltitudeRange)
            }
            intent = .takeoff(altitude: altitude)
        case .land:
            guard airborne else { throw .notAirborne }
            intent = .land
        case .hold:
            guard airborne else { throw .notAirborne }
            intent = .hold(state.position)
        case .goto(let location, let speed):
            guard airborne else { throw .notAirborne }
            let v = speed ?? c.defaultSpeed
            guard v.isFinite, v > 0, v <= c.limits.maxHorizontalSpeed else {
                throw .invalidSpeed(v, maximum: c.limits.maxHorizontalSpeed)
            }
            intent = .goto(try localPosition(location), speed: v)
        case .follow(let offset):
            guard airborne else { throw .notAirborne }
            guard target != nil else { throw .noTarget }
            intent = .follow(offset: offset)
        case .goToStart(let trajectory):
            guard airborne else { throw .notAirborne }
            intent = .goto(trajectory.start.position, speed: c.defaultSpeed)
        case .startTrajectory(let trajectory):
            guard airborne else { throw .notAirborne }
            let d = state.position.distance(to: trajectory.start.position)
            guard d <= c.trajectoryStartTolerance else {
                throw .notAtTrajectoryStart(distance: d, tolerance: c.trajectoryStartTolerance)
            }
            intent = .trajectory(trajectory, startTime: now)
        case .returnHome:
            guard airborne else { throw .notAirborne }
            intent = .returnHome(lowBattery: false)
        }
    }

    /// The setpoint for this control tick; also advances the intent (arrival → hold, trajectory end → hold,
    /// touchdown → idle, low battery → return home). An ``adjustment`` changes how `hold`, `goto` and `follow` are
    /// flown.
    public mutating func setpoint(state: VehicleState, now: Double) -> Setpoint {
        let sp = intentSetpoint(state: state, now: now)
        guard let adjustment, !adjustment.isNeutral else { return sp }
        switch intent {
        case .hold, .goto, .follow:
            return adjustment.apply(to: sp, limit: configuration.limits.maxHorizontalSpeed, now: now)
        default: return sp
        }
    }

    /// Whether the current intent is one an ``adjustment`` applies to (hold, goto, follow).
    public var acceptsAdjustment: Bool {
        switch intent {
        case .hold, .goto, .follow: return true
        default: return false
        }
    }

    mutating func intentSetpoint(state: VehicleState, now: Double) -> Setpoint {
        let c = configuration
        switch intent {
        case .land, .returnHome, .idle: break
        default:
            if state.isAirborne && state.batteryPercent <= c.lowBatteryPercent {
                intent = .returnHome(lowBattery: true)
            }
        }
        switch intent {
        case .land, .returnHome:
            if !state.armed && state.activity == .landed { intent = .idle }
        default: break
        }
        switch intent {
        case .idle:
            return .idle
        case .takeoff(let altitude):
            if state.activity == .hovering {
                let hold = Vector3(state.position.x, state.position.y, state.home.z + altitude)
                intent = .hold(hold)
                return .hold(hold)
            }
            return .takeoff(altitude: altitude)
        case .hold(let p):
            return .hold(p)
        case .goto(let target, let speed):
            if state.position.distance(to: target) <= c.arrivalRadius {
                intent = .hold(target)
                return .hold(target)
            }
            return .position(target: target, feedforward: .zero, speed: speed, heading: nil, activity: .flyingToTarget)
        case .follow(let offset):
            guard let target else { return .hold(state.position) }
            let fresh = now - target.time <= c.targetMaxExtrapolation
            let targetNow = target.position(at: now, maxExtrapolation: c.targetMaxExtrapolation)
            let facing = (targetNow - state.position).horizontalLength > 1 ? (targetNow - state.position).heading : nil
            return .position(
                target: targetNow + offset, feedforward: fresh ? target.velocity : .zero,
                speed: c.limits.maxHorizontalSpeed, heading: facing, activity: .following)
        case .trajectory(let trajectory, let start):
            let t = now - start
            if t >= trajectory.duration {
                intent = .hold(trajectory.end.position)
                return .hold(trajectory.end.position)
            }
            let p = trajectory.sample(at: t)
            return .position(
                target: p.position, feedforward: p.velocity, speed: c.limits.maxHorizontalSpeed,
                heading: p.heading, activity: .followingTrajectory)
        case .land:
            return .land
        case .returnHome:
            return .returnHome(altitude: c.returnAltitude)
        }
    }

    /// Predicts the vehicle's positions ``NavigatorConfiguration/predictionStep`` … ``NavigatorConfiguration/predictionHorizon``
    /// seconds ahead (default 40 points), by running this navigator's logic on a noiseless copy of the vehicle model.
    public func predictedTrajectory(state: VehicleState, now: Double) -> PredictedTrajectory {
        let c = configuration
        guard c.predictionStep > 0, c.predictionHorizon >= c.predictionStep,
            c.predictionHorizon / c.predictionStep <= 10_000
        else {
            return PredictedTrajectory(time: now, origin: state.position, points: [])
        }
        var nav = self
        // A target that is being tracked is assumed to keep its last velocity over the whole horizon.
        if let target, now - target.time <= c.targetMaxExtrapolation {
            nav.configuration.targetMaxExtrapolation = now - target.time + c.predictionHorizon + c.predictionStep
        }
        var model = MultirotorModel(state: state, limits: c.limits)
        let count = Int((c.predictionHorizon / c.predictionStep).rounded())
        let substeps = max(1, Int((c.predictionStep / MultirotorModel.maxSubstep).rounded(.up)))
        let h = c.predictionStep / Double(substeps)
        var points: [PredictedTrajectory.Point] = []
        points.reserveCapacity(count)
        var t = 0.0
        for k in 1...max(1, count) {
            for _ in 0..<substeps {
                let sp = nav.setpoint(state: model.state(batteryPercent: state.batteryPercent), now: now + t)
                model.step(dt: h, setpoint: sp)
                t += h
            }
            points.append(.init(offset: Double(k) * c.predictionStep, position: model.position))
        }
        return PredictedTrajectory(time: now, origin: state.position, points: points)
    }

    func localPosition(_ location: Location) throws(CommandRejection) -> Vector3 {
        switch location {
        case .local(let v):
            guard v.x.isFinite, v.y.isFinite, v.z.isFinite else {
                throw .locationNotOnMap("coordinates must be finite")
            }
            return v
        case .geodetic(let g):
            do { return Vector3(try origin.local(g)) } catch { throw .locationNotOnMap(error.description) }
        }
    }
}
