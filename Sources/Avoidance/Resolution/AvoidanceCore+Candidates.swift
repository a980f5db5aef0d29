import Flight

/// One plan the drone could fly: how it looks to the navigator (an adjustment), to the internal model, and its cost.
struct Candidate: Sendable, Hashable {
    var maneuver: AvoidanceDecision.Maneuver
    var adjustment: NavigatorAdjustment?
    var plan: MotionPlan
    /// Estimated seconds this plan costs against the mission's own (lower is better).
    var cost: Double
}

/// What every candidate of one decision shares.
struct CandidateContext {
    var own: AvoidanceOwnship
    var goal: AvoidanceOwnship.Goal
    /// Where the drone is heading (goal, goal moved into the geofence, or parking spot).
    var destination: Vector3
    var now: Double
    /// Cruise speed.
    var speed: Double
    /// Horizontal distance to the destination.
    var distance: Double
    /// Seconds from now until the mission's own plan is horizontally clear of the higher-ranked drones it conflicts
    /// with (the horizon when unknown): an altitude change can be undone after that, on the way.
    var clearAfter: Double
}

extension AvoidanceCore {
    func context(
        own: AvoidanceOwnship, goal: AvoidanceOwnship.Goal, destination: Vector3, now: Double,
        clearAfter: Double? = nil
    ) -> CandidateContext {
        CandidateContext(
            own: own, goal: goal, destination: destination, now: now,
            speed: min(goal.speed, configuration.limits.maxHorizontalSpeed),
            distance: (destination - own.position).horizontalLength, clearAfter: clearAfter ?? configuration.horizon)
    }

    /// Candidate plans in order of cost (the mission's own plan first). `previous` is the plan flown before a new
    /// command (it offers a handover).
    func candidates(_ x: CandidateContext, picture: LocalPicture, threats: [Int], previous: Candidate? = nil)
        -> [Candidate]
    {
        let c = configuration
        var out: [Candidate] = []
        out.reserveCapacity(96)
        if let previous, x.destination == x.goal.position {
            out.append(
                handover(x, from: previous.plan.target, speed: previous.plan.speed, until: x.now + c.reactionTime + 0.3)
            )
        }
        let waitUntil = x.now + c.reactionTime + 0.3
        let zs = altitudes(x, picture: picture, threats: threats)
        for z in zs {
            let first = out.count
            for f in [1.0] + c.speedFactors {
                out.append(travel(x, altitude: z, speed: f >= 1 ? x.speed : x.speed * f))
            }
            let brake = brakingPoint(x.own, altitude: x.own.position.z)
            out.append(stop(x, at: Vector3(brake.x, brake.y, z)))
            out.append(wait(x, at: brake, until: waitUntil, altitude: z))
            // Change altitude in place first, then go: the way past a drone that holds its position.
            let climb = abs(z - x.own.position.z)
            if climb > 0.5 {
                let rate = z > x.own.position.z ? c.limits.maxClimbRate : c.limits.maxDescentRate
                let until = x.now + ((climb / rate + 1.5) * 10).rounded(.up) / 10
                out.append(wait(x, at: Vector3(brake.x, brake.y, z), until: until, altitude: z))
            }
            // Another group's busy layer costs more than a clear one.
            let traffic = layerTraffic(x, picture: picture, altitude: z)
            if traffic > 0 { for i in first..<out.count { out[i].cost += traffic } }
        }
        out += sidesteps(x, picture: picture, threats: threats)
        if !threats.isEmpty {
            // Passing beside the way at every altitude tried, as the other plans: a drone that has left its layer for
            // another passes a crossing drone there instead of first climbing or descending back into the layer it left.
            for z in zs {
                let traffic = layerTraffic(x, picture: picture, altitude: z)
                for var v in veers(x, altitude: z) {
                    v.cost += traffic
                    out.append(v)
                }
            }
        }
        // Stable sort by cost, so equal costs keep the generation order.
        let costs = out.map(\.cost)
        let order = (0..<out.count).sorted { costs[$0] < costs[$1] || (costs[$0] == costs[$1] && $0 < $1) }
        return order.map { out[$0] }
    }

    /// The same plan as `previous` (same altitude, speed, hold point or waiting time) with costs for now.
    func candidate(_ x: CandidateContext, like previous: Candidate) -> Candidate {
        switch previous.maneuver {
        case .stop(let p): return stop(x, at: p)
        case .sidestep(let p): return sidestep(x, to: p)
        case .wait(let p, let until, let z):
            return until > x.now ? wait(x, at: p, until: until, altitude: z) : travel(x, altitude: z, speed: x.speed)
        case .handover(let p, let speed, let until):
            return until > x.now && x.destination == x.goal.position
                ? handover(x, from: p, speed: speed, until: until)
                : travel(x, altitude: x.destination.z, speed: x.speed)
        case .veer(let p, let until):
            return until > x.now ? veer(x, via: p, until: until) : travel(x, altitude: p.z, speed: x.speed)
        case .altitude(let z): return travel(x, altitude: z, speed: x.speed)
        case .slowDown(let s, let z): return travel(x, altitude: z, speed: s)
        case .nominal, .notAvoiding: return travel(x, altitude: x.destination.z, speed: x.speed)
        }
    }

    /// The adjustment that flies toward the destination at altitude `z` and `speed`, holding at `hold` until `until`.
    func adjustment(
        _ x: CandidateContext, altitude z: Double, speed: Double, hold: Vector3? = nil, until: Double? = nil
    ) -> NavigatorAdjustment? {
        let offset = Vector3(x.destination.x - x.goal.position.x, x.destination.y - x.goal.position.y, 0)
        let a = NavigatorAdjustment(
            altitude: z != x.goal.position.z ? z : nil, offset: offset,
            maxSpeed: speed < x.speed - 1e-9 ? speed : nil, hold: hold, holdUntil: until)
        return a.isNeutral ? nil : a
    }

    func travelPlan(_ x: CandidateContext, altitude z: Double, speed: Double) -> MotionPlan {
        var velocity = x.goal.velocity
        if z != x.destination.z { velocity.z = 0 }
        return MotionPlan(target: Vector3(x.destination.x, x.destination.y, z), targetVelocity: velocity, speed: speed)
    }

    /// Flying toward the destination at altitude `z` and `speed`.
    func travel(_ x: CandidateContext, altitude z: Double, speed: Double) -> Candidate {
        let maneuver: AvoidanceDecision.Maneuver =
            speed < x.speed - 1e-9
            ? .slowDown(speed: speed, altitude: z)
            : (z == x.destination.z ? .nominal : .altitude(z))
        let cost = progressLoss(x, speed: speed, delay: 0) + altitudeCost(x, altitude: z, speed: speed)
        return Candidate(
            maneuver: maneuver, adjustment: adjustment(x, altitude: z, speed: speed),
            plan: travelPlan(x, altitude: z, speed: speed), cost: cost)
    }

    /// Braking to a stop (at `point`, possibly at another altitude) and holding there. It makes no progress, so it costs
    /// the whole horizon however near the destination is, plus twice the time the drone has already been held up
    /// (stopped, stepping aside or waiting): a drone that stays blocked eventually takes any plan that gets somewhere
    /// (a long detour in altitude) instead of waiting for ever.
    func stop(_ x: CandidateContext, at point: Vector3) -> Candidate {
        let stopped = stoppedSince.map { x.now - $0 } ?? 0
        let cost = configuration.horizon + 0.5 + 2 * stopped + altitudeCost(x, altitude: point.z, speed: 0)
        return Candidate(
            maneuver: .stop(point), adjustment: NavigatorAdjustment(hold: point),
            plan: MotionPlan(target: point, targetVelocity: .zero, speed: configuration.limits.maxHorizontalSpeed),
            cost: cost)
    }

    /// Moving aside to `point` and holding there: a stop somewhere else, which does not grow costlier with the time
    /// held up, so a drone boxed in for a while tries another place instead of waiting where it is.
    func sidestep(_ x: CandidateContext, to point: Vector3) -> Candidate {
        var s = stop(x, at: point)
        s.maneuver = .sidestep(point)
        s.cost =
            configuration.horizon + 1.5 + (point - x.own.position).horizontalLength
            / configuration.limits.maxHorizontalSpeed
            + altitudeCost(x, altitude: point.z, speed: 0)
        return s
    }

    /// Holding at `point` until `until`, then flying toward the destination at altitude `z`.
    func wait(_ x: CandidateContext, at point: Vector3, until: Double, altitude z: Double) -> Candidate {
        let delay = max(0, until - x.now)
        var plan = travelPlan(x, altitude: z, speed: x.speed)
        plan.wait = point
        plan.waitFor = delay
        let cost = progressLoss(x, speed: x.speed, delay: delay) + 0.2 + altitudeCost(x, altitude: z, speed: x.speed)
        return Candidate(
            maneuver: .wait(point, until: until, altitude: z),
            adjustment: adjustment(x, altitude: z, speed: x.speed, hold: point, until: until), plan: plan, cost: cost)
    }

    /// Flying on toward `point` at `speed` (the previous plan) until `until`, then the mission's plan unadjusted.
    func handover(_ x: CandidateContext, from point: Vector3, speed: Double, until: Double) -> Candidate {
        let delay = max(0, until - x.now)
        var plan = travelPlan(x, altitude: x.destination.z, speed: x.speed)
        plan.wait = point
        plan.waitFor = delay
        plan.waitSpeed = speed
        let adjustment = NavigatorAdjustment(
            altitude: point.z != x.goal.position.z ? point.z : nil,
            offset: Vector3(point.x - x.goal.position.x, point.y - x.goal.position.y, 0),
            maxSpeed: speed < x.speed - 1e-9 ? speed : nil, until: until)
        let cost = progressLoss(x, speed: x.speed, delay: delay) + 0.3
        return Candidate(
            maneuver: .handover(point, speed: speed, until: until), adjustment: adjustment, plan: plan, cost: cost)
    }

    /// Passing beside the direct way to the goal itself (not to a parking spot, where drones settle by the lattice):
    /// toward points 8 m and 14 m to its right and left, up to 16 m ahead (at most half the way), at altitude `z` and
    /// cruise speed, then on to the destination. Right is a little cheaper, so that drones that meet pass each other
    /// the same way round.
    func veers(_ x: CandidateContext, altitude z: Double) -> [Candidate] {
        let c = configuration
        guard x.distance > 2 * c.planningHorizontal, x.speed > 0.5, x.destination == x.goal.position else { return [] }
        let d = (x.destination - x.own.position).horizontal
        let u = d / d.horizontalLength
        let right = Vector3(u.y, -u.x, 0)
        let ahead = min(x.distance / 2, x.speed * 4)
        var out: [Candidate] = []
        for (off, extra) in [(8.0, 0.0), (-8.0, 0.2), (14.0, 0.1), (-14.0, 0.3)] {
            let p = x.own.position + u * ahead + right * off
            let via = Vector3((p.x * 10).rounded() / 10, (p.y * 10).rounded() / 10, z)
            if let fence = c.geofence,
                !fence.contains(via, margin: c.fenceMargin, altitudeMargin: c.fenceAltitudeMargin)
            {
                continue
            }
            let leg = (via - x.own.position).horizontalLength
            let until = x.now + ((leg / x.speed * 0.8) * 10).rounded(.up) / 10
            var v = veer(x, via: via, until: until)
            v.cost += extra
            out.append(v)
        }
        return out
    }

    /// Flying at cruise speed toward `via` until `until`, then the mission's plan.
    func veer(_ x: CandidateContext, via: Vector3, until: Double) -> Candidate {
        var plan = travelPlan(x, altitude: x.destination.z, speed: x.speed)
        plan.wait = via
        plan.waitFor = max(0, until - x.now)
        plan.waitSpeed = x.speed
        let adjustment = NavigatorAdjustment(
            altitude: via.z != x.goal.position.z ? via.z : nil,
            offset: Vector3(via.x - x.goal.position.x, via.y - x.goal.position.y, 0), until: until)
        let detour = (via - x.own.position).horizontalLength + (x.destination - via).horizontalLength - x.distance
        let cost = detour / x.speed + 0.3 + altitudeCost(x, altitude: via.z, speed: x.speed)
        return Candidate(maneuver: .veer(via, until: until), adjustment: adjustment, plan: plan, cost: cost)
    }

    /// Stepping aside, perpendicular to the first higher-ranked threat's motion.
    func sidesteps(_ x: CandidateContext, picture: LocalPicture, threats: [Int]) -> [Candidate] {
        let c = configuration
        guard let threat = threats.first else { return [] }
        let k = picture.k
        let a = picture.position(threat, 0), b = picture.position(threat, k - 1)
        var along = (b - a).horizontal
        if along.horizontalLength < 0.5 { along = (a - x.own.position).horizontal }
        guard along.horizontalLength > 1e-6 else { return [] }
        let u = along / along.horizontalLength
        let side = Vector3(-u.y, u.x, 0)
        let reach = c.planningHorizontal + c.maxHorizontalInflation + 2
        var out: [Candidate] = []
        for sign in [1.0, -1.0] {
            let p = Vector3(
                x.own.position.x + side.x * sign * reach, x.own.position.y + side.y * sign * reach, x.own.position.z)
            if let fence = c.geofence, !fence.contains(p, margin: c.fenceMargin, altitudeMargin: c.fenceAltitudeMargin)
            {
                continue
            }
            out.append(sidestep(x, to: Vector3((p.x * 10).rounded() / 10, (p.y * 10).rounded() / 10, p.z)))
        }
        return out
    }

    /// The steps aside of ``sidesteps(_:picture:threats:)`` while changing to one of the first altitudes to try (other
    /// than the current one): for a drone with no safe plan, squeezed between higher-ranked drones that close in from
    /// the side and from above or below.
    func escapes(_ x: CandidateContext, picture: LocalPicture, threats: [Int]) -> [Candidate] {
        let steps = sidesteps(x, picture: picture, threats: threats)
        guard !steps.isEmpty else { return [] }
        let zs = altitudes(x, picture: picture, threats: threats).prefix(5)
        var out: [Candidate] = []
        for step in steps {
            guard case .sidestep(let p) = step.maneuver else { continue }
            for z in zs where magnitude(z - p.z) > 1 { out.append(sidestep(x, to: Vector3(p.x, p.y, z))) }
        }
        return out
    }

    /// Altitudes to try: the destination's, layers above and below it, a layer above and below (and just clear of) each
    /// of the first higher-ranked drones the mission's plan meets, and the floor and ceiling when it meets any; within
    /// the geofence; nearest the destination's first.
    func altitudes(_ x: CandidateContext, picture: LocalPicture, threats: [Int]) -> [Double] {
        let c = configuration
        let d = x.destination
        var low = c.minimumAltitude, high = Double.infinity
        if let f = c.geofence {
            low = max(f.minAltitude + c.fenceAltitudeMargin, low)
            high = f.maxAltitude - c.fenceAltitudeMargin
        }
        var raw: [Double] = []
        for i in 1...max(1, c.layers) {
            raw.append(d.z + Double(i) * c.layerSpacing)
            raw.append(d.z - Double(i) * c.layerSpacing)
        }
        for t in threats.prefix(3) {
            let z = picture.zs[t * picture.k + picture.k / 2]
            for d in [c.layerSpacing, c.planningVertical + 0.3] {
                raw.append(z + d)
                raw.append(z - d)
            }
        }
        raw = raw.map { ($0 * 10).rounded() / 10 }
        if !threats.isEmpty {
            // The top and bottom of the allowed band: the way over or under a crowd.
            if high.isFinite { raw.append((high * 10).rounded(.down) / 10) }
            raw.append((low * 10).rounded(.up) / 10)
        }
        let own = x.own.position.z
        raw.sort { (abs($0 - d.z), abs($0 - own), $0) < (abs($1 - d.z), abs($1 - own), $1) }
        var out = [d.z]
        for z in raw where z >= low && z <= high && out.allSatisfy({ abs($0 - z) >= 0.5 }) { out.append(z) }
        return out
    }

    /// Seconds of travel lost within the horizon by waiting `delay` seconds, then flying at `speed` instead of the
    /// cruise speed.
    func progressLoss(_ x: CandidateContext, speed: Double, delay: Double) -> Double {
        let h = configuration.horizon
        guard x.speed > 0 else { return 0 }
        return (min(x.distance, x.speed * h) - min(x.distance, speed * max(0, h - delay))) / x.speed
    }

    /// Seconds an altitude change costs. On a leg longer than the horizon to the goal itself, the time to return to the destination's
    /// altitude that is left over when the drone gets there (it returns on the way once clear of the drones it avoids:
    /// ``CandidateContext/clearAfter``) plus a tenth of the return; on a shorter leg, a quarter of the return while
    /// the rest of the leg beyond the horizon leaves time for it, all of it otherwise. Plus a little for moving away
    /// from the current altitude, so that nearer layers are preferred.
    func altitudeCost(_ x: CandidateContext, altitude z: Double, speed: Double) -> Double {
        let l = configuration.limits
        let dz = z - x.destination.z
        let move = magnitude(z - x.own.position.z) / l.maxClimbRate * 0.1
        let h = configuration.horizon
        if x.distance > x.speed * h && speed > 0.1 && x.destination == x.goal.position {
            let back = magnitude(dz) / (dz > 0 ? l.maxDescentRate : l.maxClimbRate)
            let available = max(0, x.distance / speed - x.clearAfter)
            let late = back > 0 ? max(0, back + 1.5 - available) : 0
            return late + 0.1 * back + move
        }
        let back = magnitude(dz) / min(l.maxClimbRate, l.maxDescentRate)
        let leftAfterHorizon = max(0, x.distance - speed * h)
        let overlap = speed > 0 && leftAfterHorizon / max(speed, 0.1) > back + 2 ? 0.25 : 1.0
        return back * overlap + move
    }

    /// Where the drone stops if it brakes now, at altitude `z`.
    func brakingPoint(_ own: AvoidanceOwnship, altitude z: Double) -> Vector3 {
        let v = own.velocity.horizontal
        let s = v.horizontalLength
        let d = s * s / (2 * 0.9 * configuration.limits.maxHorizontalAcceleration)
        let p = s > 1e-6 ? own.position + v / s * d : own.position
        return Vector3((p.x * 10).rounded() / 10, (p.y * 10).rounded() / 10, z)
    }
}
