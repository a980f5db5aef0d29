import Flight
import MAVLink

extension AutopilotEmulator {
    /// How long a velocity from the companion is flown without a new one (ArduPilot GUID_TIMEOUT), seconds.
    static let velocityTimeout = 3.0
    /// How long after the last MANUAL_CONTROL the sticks still count, seconds.
    static let manualTimeout = 0.5
    /// PX4 leaves OFFBOARD when position targets stop for this long (COM_OF_LOSS_T), seconds.
    static let offboardLossTimeout = 0.5

    // MARK: - Stepping

    /// Flies on from the last time to `now` in equal substeps of at most `MultirotorModel.maxSubstep`; returns the
    /// frames the flight produced. The first call only sets the clock (and the boot time).
    mutating func simulate(to now: Double) -> [[UInt8]] {
        guard now.isFinite else { return [] }
        guard let start = time else {
            time = now
            bootTime = now
            return []
        }
        guard now > start else { return [] }
        let n = max(1, Int(((now - start) / MultirotorModel.maxSubstep).rounded(.up)))
        let h = (now - start) / Double(n)
        var out: [[UInt8]] = []
        for i in 1...n {
            let t = i == n ? now : start + Double(i) * h
            out += substep(h, at: t)
            out += deliverDue(at: t)
        }
        time = now
        return out
    }

    /// Handles the frames whose transport delay is over by `t`.
    mutating func deliverDue(at t: Double) -> [[UInt8]] {
        guard let first = pending.first, first.due <= t + 1e-9 else { return [] }
        var out: [[UInt8]] = []
        while let next = pending.first, next.due <= t + 1e-9 {
            pending.removeFirst()
            out += handle(next.frame, now: next.due)
        }
        return out
    }

    /// One substep ending at `t`.
    mutating func substep(_ h: Double, at t: Double) -> [[UInt8]] {
        var out = fireFaults(at: t)
        syncModelArming()
        guard armed else {
            model.step(dt: h, setpoint: .hold(model.position))  // motors off: the model stays put
            respond(h)
            return out
        }
        if flavour == .px4, behaviour == .guided, t - lastSetpointAt > Self.offboardLossTimeout {
            enter(flavour.holdMode, reason: "offboard setpoints lost", now: t)
        }
        flyingVelocityOnly = false
        let (setpoint, speedLimit) = chooseSetpoint(h, at: t)
        model.limits.maxHorizontalSpeed = speedLimit
        model.step(dt: h, setpoint: setpoint)
        respond(h)
        out += afterStep(at: t)
        return out
    }

    /// The model's arming follows the autopilot's: the model disarms itself on touchdown in `.land` and
    /// `.returnHome`, but the autopilot keeps its motors armed until its land detector is sure.
    mutating func syncModelArming() {
        guard model.armed != armed else { return }
        if !model.armed && armed && behaviour == .returnToLaunch { landing = true }
        var state = model.state(batteryPercent: 100)
        state.armed = armed
        state.activity = armed ? .hovering : .landed
        if !armed { state.velocity = .zero }
        let limits = model.limits
        model = MultirotorModel(state: state, limits: limits)
    }

    /// What to fly this substep, and the horizontal speed limit for it.
    mutating func chooseSetpoint(_ h: Double, at t: Double) -> (Setpoint, Double) {
        // PX4 OFFBOARD flies to its position targets at its own speed: DO_CHANGE_SPEED is acknowledged, not obeyed.
        let ignoresSpeed = flavour == .px4 && behaviour == .guided
        let cruise = min(ignoresSpeed ? configuration.cruiseSpeed : speed, configuration.limits.maxHorizontalSpeed)
        let fastest = configuration.limits.maxHorizontalSpeed
        if let altitude = takeoffAltitude { return (.takeoff(altitude: altitude), cruise) }
        if landing {
            if model.onGround { return (.hold(model.position), cruise) }
            // RTL's final descent keeps centring over home; LAND descends straight down.
            return (behaviour == .returnToLaunch ? .returnHome(altitude: configuration.returnAltitude) : .land, cruise)
        }
        switch behaviour {
        case .returnToLaunch:
            return (.returnHome(altitude: configuration.returnAltitude), cruise)
        case .manual:
            if let m = manual, t - m.at < Self.manualTimeout {
                target = nil  // hold where the sticks leave it
                return (velocitySetpoint(m.velocity, fastest, activity: .hovering), fastest)
            }
        case .mission where missionSequence < mission.count:
            let goal = mission[missionSequence].position
            return (
                .position(
                    target: goal, feedforward: .zero, speed: cruise, heading: nil, activity: .followingTrajectory),
                cruise
            )
        case .guided:
            if let v = targetVelocity, t - v.at < Self.velocityTimeout {
                let limit = min(fastest, max(cruise, v.velocity.horizontalLength))
                guard var goal = target else {
                    return (velocitySetpoint(v.velocity, limit, activity: .following), limit)
                }
                goal += v.velocity * h  // the target moves with its velocity
                target = goal
                return (
                    .position(
                        target: goal, feedforward: v.velocity, speed: limit, heading: desiredHeading,
                        activity: .following),
                    limit
                )
            }
            targetVelocity = nil
        default:
            break
        }
        if target == nil, model.velocity.length < 0.2 { target = model.position }
        guard let goal = target else {
            // Brake: no position error, no feed-forward, so the commanded velocity is zero.
            return (velocitySetpoint(.zero, cruise, activity: .hovering), cruise)
        }
        return (
            .position(
                target: goal, feedforward: .zero, speed: cruise, heading: desiredHeading, activity: .flyingToTarget),
            cruise
        )
    }

    /// A pure velocity command for the model: a target at the vehicle itself plus the velocity as feed-forward.
    mutating func velocitySetpoint(_ v: Vector3, _ speed: Double, activity: Activity) -> Setpoint {
        flyingVelocityOnly = true
        return .position(
            target: model.position, feedforward: v, speed: speed, heading: desiredHeading, activity: activity)
    }

    /// Takeoff done, RTL's final descent, mission items reached, touchdown and disarming.
    mutating func afterStep(at t: Double) -> [[UInt8]] {
        var out: [[UInt8]] = []
        let p = model.position
        if let altitude = takeoffAltitude, p.z >= altitude - 0.1 {
            takeoffAltitude = nil
            if flavour == .px4 { enter(flavour.holdMode, reason: "takeoff done", now: t) }
        }
        if behaviour == .returnToLaunch, !landing, p.horizontalLength <= 0.5, model.velocity.horizontalLength <= 0.5 {
            landing = true  // over home: the descent is a landing
        }
        if behaviour == .mission, missionSequence < mission.count {
            let goal = mission[missionSequence].position
            if (goal - p).horizontalLength < 0.5 && abs(goal.z - p.z) < 0.5 {
                let seq = UInt16(clamping: missionSequence)
                out.append(frame(MissionItemReached(seq: seq)))
                record(.missionItemReached(seq), at: t)
                missionSequence += 1
                if missionSequence >= mission.count { target = goal }  // the mission is over: hold at its end
            }
        }
        let touching = p.z <= 1e-6 || !model.armed
        if landing && touching {
            landedSince = landedSince ?? t
            if let since = landedSince, t - since >= configuration.landDisarmDelay {
                out += disarm(reason: "landed", now: t)
            }
        } else if !touching {
            landedSince = nil
        }
        if armed, onGround, !landing, let delay = configuration.autoDisarmDelay {
            armedOnGroundSince = armedOnGroundSince ?? t
            if let since = armedOnGroundSince, t - since >= delay { out += disarm(reason: "auto disarm", now: t) }
        } else {
            armedOnGroundSince = nil
        }
        return out
    }
}
