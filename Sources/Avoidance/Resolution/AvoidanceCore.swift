import Flight

/// Decentralised, deterministic collision avoidance for one drone: a sans-IO value type that every control cycle
/// turns the drone's state, its mission goal and the shared airspace picture into a ``NavigatorAdjustment``.
///
/// Every drone runs the same rules on the same kind of picture with one total priority order (``VehicleRank``):
///
/// 1. A plan is *safe* when it keeps the planning separation (minima plus buffer) from every higher-ranked or
///    non-avoiding drone's prediction over the whole horizon, from every lower-ranked avoiding drone's prediction over
///    the courtesy window (``AvoidanceConfiguration/reactionTime``), and stays inside the geofence.
/// 2. Candidate plans — the mission's own plan, altitude layers, slower speeds, stopping (at any of those altitudes),
///    stepping aside — are ranked by an estimate of the time they cost, and the cheapest safe one is flown. The
///    current plan is kept while it stays safe and within ``AvoidanceConfiguration/hysteresis`` of the best.
/// 3. A goal held by a higher-ranked drone (its prediction ends standing still there) is replaced by the nearest free
///    spot on a hexagonal lattice around it, so drones sent to one point gather around it instead of stacking.
/// 4. With no safe plan, the plan that intrudes least (weighted toward the near future) is flown.
///
/// The decision changes only the navigator's adjustment; publish the navigator's prediction at once when
/// ``AvoidanceDecision/changed`` is set.
public struct AvoidanceCore: Sendable {
    /// Settings (only the geofence changes after start: ``replaceGeofence(_:)``).
    public private(set) var configuration: AvoidanceConfiguration
    /// The latest decision.
    public private(set) var decision: AvoidanceDecision = .notAvoiding

    var current: Candidate?
    /// The last decision at which the mission's own plan was not safe (see ``settleTime``).
    var missionPlanUnsafeAt = -Double.infinity
    var lastSearch = -Double.infinity
    var parkingSpot: Vector3?
    /// Since when the drone has been held up (stop, sidestep or wait plans chosen without interruption).
    var stoppedSince: Double?
    /// The nearest the drone has come to its destination, and since when (a drone that gets no nearer is stuck).
    var progress: (destination: Vector3, best: Double, since: Double)?
    /// Goal and destination of the decision being made, and of the plan flown now (for ``isPublished(_:)``).
    var currentGoal: AvoidanceOwnship.Goal?
    var currentDestination: Vector3?
    var planGoal: AvoidanceOwnship.Goal?
    var parkingGoal: Vector3?
    var spotProgress: (spot: Vector3, best: Double, since: Double)?
    var avoidedSpots: [(spot: Vector3, until: Double)] = []
    let model: MotionModel
    let tuning: Tuning
    // Scratch buffers for rollouts.
    var ox: [Double], oy: [Double], oz: [Double]

    /// A core that has decided nothing yet.
    public init(configuration: AvoidanceConfiguration = AvoidanceConfiguration()) {
        self.configuration = configuration
        model = MotionModel(limits: configuration.limits, step: configuration.modelStep)
        tuning = Tuning(configuration)
        let k = configuration.steps + 1
        ox = [Double](repeating: 0, count: k)
        oy = ox
        oz = ox
    }

    /// Flies with `fence` (nil: none) from the next decision on. The plan flown now is weighed again at once and
    /// parking spots are chosen afresh, against the new fence.
    public mutating func replaceGeofence(_ fence: Geofence?) {
        guard fence != configuration.geofence else { return }
        configuration.geofence = fence
        parkingSpot = nil
        parkingGoal = nil
        spotProgress = nil
        avoidedSpots = []
        lastSearch = -Double.infinity
    }

    /// Decides what the own drone flies next, from its state and goal and the other drones' tracks (in the same local
    /// frame and on the same clock as `now`). Tracks of the own drone (same UAV number and tie-break) are ignored.
    public mutating func decide(own: AvoidanceOwnship, airspace: [AirspaceTrack], now: Double) -> AvoidanceDecision {
        let previous = decision.adjustment
        guard let goal = own.goal else {
            // No goal (landing, a mission, the pilot's hands): not avoiding. Stopping is a change even without an
            // adjustment to undo: the drone's prediction must say so at once.
            let wasAvoiding = decision.maneuver != .notAvoiding
            current = nil
            parkingSpot = nil
            spotProgress = nil
            planGoal = nil
            stoppedSince = nil
            progress = nil
            decision = .notAvoiding
            decision.changed = previous != nil || wasAvoiding
            return decision
        }
        let (fenceGoal, picture, destination) = resolveDestination(for: goal, own: own, airspace: airspace, now: now)
        let parked = destination != fenceGoal
        let c = configuration
        // The mission's own plan: its conflicts with higher-ranked drones are reported and suggest altitudes and
        // sidesteps; when it is safe no other plan is needed (unless the current one is kept).
        var x = context(own: own, goal: goal, destination: destination, now: now)
        let gap = (destination - own.position).length
        if let p = progress, p.destination == destination {
            if gap < p.best - 1 { progress = (destination, gap, now) }
        } else {
            progress = (destination, gap, now)
        }
        let nominal = missionPlan(x, picture: picture)
        rollout(own: own, nominal.plan)
        var nominalSafe = insideFence()
        var threats: [Int] = []
        currentGoal = goal
        currentDestination = destination
        let nominalPublished = isPublished(nominal)
        for t in 0..<picture.count
        where conflicts(picture, track: t, hardOnly: nominalPublished && !picture.higher[t])
            || (picture.higher[t] && picture.endClimb[t] != 0 && tailConflicts(picture, track: t))
        {
            nominalSafe = false
            if picture.higher[t] { threats.append(t) }
        }
        if !nominalSafe { missionPlanUnsafeAt = now }
        let yielding = Array(Set(threats.map { picture.uavNumbers[$0] })).sorted()
        if !threats.isEmpty { x.clearAfter = clearance(picture, threats: threats) }
        var hot = threats.first
        var keep: Candidate?
        if let cur = current, cur.maneuver != .nominal {
            let k = candidate(x, like: cur)
            if k.maneuver != .nominal && isSafe(own: own, k, picture: picture, hot: &hot) { keep = k }
        }

        var chosen: Candidate?
        var safe = true
        if nominalSafe {
            // Within the horizon of the destination the mission's plan is taken once it is safe; farther away the
            // current plan is kept while it costs little more, so plans do not flap. Either way a safe current plan
            // is kept until the mission's plan has stayed safe for ``settleTime``: a mission plan that is safe one
            // cycle and not the next (GPS error, gusts, a neighbour's prediction that moves) would otherwise send an
            // autopilot up and down a layer every cycle, flying neither plan.
            let near = x.distance < x.speed * c.horizon
            let settling = now - missionPlanUnsafeAt < Self.settleTime
            chosen =
                keep.map { settling || (!near && $0.cost <= nominal.cost + c.hysteresis) ? $0 : nominal } ?? nominal
        } else if let k = keep,
            now - lastSearch < c.reconsiderEvery || (k.maneuver.stepsAside(from: own.position) && stuck(now))
        {
            // A drone that has got no nearer to its destination for a while finishes a step aside before it looks at
            // other plans again (unless the mission's own plan is safe): the step aside is its way out of a local
            // minimum, and a plan that turns back early (a slow one that looks safe within the horizon) leads into
            // it again.
            chosen = k
        } else {
            lastSearch = now
            // After a new command, the plan flown so far can be finished for the courtesy window first.
            let previous = planGoal != nil && planGoal != goal ? current : nil
            let candidates = self.candidates(x, picture: picture, threats: threats, previous: previous)
            var best: Candidate?
            for candidate in candidates.dropFirst() where isSafe(own: own, candidate, picture: picture, hot: &hot) {
                best = candidate
                break
            }
            if let k = keep, best == nil || k.cost <= best!.cost + c.hysteresis {
                chosen = k
            } else {
                chosen = best
            }
            if chosen == nil {
                // No safe plan: the one that intrudes least, but the current one while it is nearly as good, so that
                // the others are not planning against a prediction that changes every cycle.
                safe = false
                var bestScore = Double.infinity
                // Also stepping aside while changing altitude: out of a squeeze between higher-ranked drones that
                // close in from the side and from above or below (the other plans keep the altitude while they
                // stop or step aside).
                for candidate in candidates + escapes(x, picture: picture, threats: threats) {
                    let b = badness(own: own, candidate, picture: picture)
                    if b < bestScore - 1e-9
                        || (abs(b - bestScore) <= 1e-9 && candidate.cost < (chosen?.cost ?? .infinity))
                    {
                        bestScore = b
                        chosen = candidate
                    }
                }
                if let cur = current {
                    let k = candidate(x, like: cur)
                    if badness(own: own, k, picture: picture) <= bestScore * 1.25 + 0.05 { chosen = k }
                }
            }
        }
        let pick = chosen!
        current = pick
        planGoal = goal
        switch pick.maneuver {
        case .stop, .sidestep, .wait: if stoppedSince == nil { stoppedSince = now }
        case .handover: break
        default: stoppedSince = nil
        }
        decision = AvoidanceDecision(
            adjustment: pick.adjustment, maneuver: pick.maneuver, destination: destination, parked: parked,
            safe: safe, changed: pick.adjustment != previous, yieldingTo: yielding)
        return decision
    }
}

extension AvoidanceCore {
    /// Whether the drone has got no nearer to its destination (by 1 m) for ``stuckAfter`` seconds.
    func stuck(_ now: Double) -> Bool { progress.map { now - $0.since >= Self.stuckAfter } ?? false }

    /// Seconds until the current rollout (the mission's own plan) has been horizontally clear of every track in
    /// `threats` for good, plus a second: after the last grid instant within the planning separation plus growth.
    func clearance(_ picture: LocalPicture, threats: [Int]) -> Double {
        let k = picture.k
        var last = 0
        for t in threats {
            var i = k - 1
            while i > last {
                let j = t * k + i
                let dx = picture.xs[j] - ox[i], dy = picture.ys[j] - oy[i]
                let r = tuning.planningHorizontal + picture.gh[j]
                if dx * dx + dy * dy < r * r {
                    last = i
                    break
                }
                i -= 1
            }
        }
        return Double(last) * configuration.step + 1
    }

    /// Seconds without getting nearer to the destination after which a drone is stuck.
    static let stuckAfter = 10.0
    /// Seconds the mission's own plan must have been safe before it replaces a safe current plan.
    static let settleTime = 0.5
}

extension AvoidanceDecision.Maneuver {
    /// Whether this is a step aside that has not reached its point (more than 1.5 m from `position` horizontally).
    func stepsAside(from position: Vector3) -> Bool {
        if case .sidestep(let p) = self { return (p - position).horizontalLength > 1.5 }
        return false
    }
}
