import Flight

extension AvoidanceCore {
    /// Whether `candidate` is safe by the rules (see ``AvoidanceCore``). `hot` is the track that made the previous
    /// check fail; it is checked first. Toward lower-ranked drones, the plan the drone already flies and has published
    /// is theirs to avoid: keeping it only has to stay out of their separation minima within the courtesy window, not
    /// out of the planning buffer (so that drones holding their spots do not flinch at every neighbour passing by).
    ///
    /// A plan that waits where the drone is before it goes (``AvoidanceDecision/Maneuver/wait(_:until:altitude:)`` at
    /// the current altitude) is only safe when going at once would be safe from every higher-ranked drone: such waiting
    /// is for announcing a move to lower-ranked drones, not for pushing a conflict with a higher-ranked one beyond the
    /// horizon. Waiting while changing altitude (to pass a drone that holds its position) has no such condition.
    mutating func isSafe(own: AvoidanceOwnship, _ candidate: Candidate, picture: LocalPicture, hot: inout Int?) -> Bool
    {
        if case .wait(let p, _, _) = candidate.maneuver, candidate.plan.waitFor > 0 {
            var go = candidate.plan
            go.wait = nil
            go.waitFor = 0
            if magnitude(p.z - own.position.z) < 0.5 {
                rollout(own: own, go)
                guard insideFence() else { return false }
                for t in 0..<picture.count where picture.higher[t] && conflicts(picture, track: t) { return false }
            }
            // Whatever the wait, the way on from the hold point must not run into a higher-ranked drone that holds its
            // position (checked over a whole horizon: the wait must not hide it beyond the end of the prediction).
            var from = own
            from.position = p
            from.velocity = .zero
            rollout(own: from, go)
            guard insideFence() else { return false }
            if blockedByHovering(picture) { return false }
        }
        rollout(own: own, candidate.plan)
        guard insideFence() else { return false }
        // The plan already published binds lower-ranked drones: keeping it only has to stay out of their minima.
        let published = isPublished(candidate)
        if let h = hot, h < picture.count, conflicts(picture, track: h, hardOnly: published && !picture.higher[h]) {
            return false
        }
        for t in 0..<picture.count
        where t != hot && conflicts(picture, track: t, hardOnly: published && !picture.higher[t]) {
            hot = t
            return false
        }
        for t in 0..<picture.count
        where picture.higher[t] && picture.endClimb[t] != 0 && tailConflicts(picture, track: t) { return false }
        return true
    }

    /// Whether the current rollout ends where a higher-ranked drone that ends its prediction climbing or descending in
    /// place (``LocalPicture/endClimb``) would come within the planning separation if it went on doing so for
    /// ``tail`` seconds more while the own drone holds its final altitude: the way under (or over) a drone that is
    /// coming down (or up) on the same spot, which the horizon alone does not show.
    func tailConflicts(_ picture: LocalPicture, track t: Int) -> Bool {
        let k = picture.k
        let j = t * k + k - 1
        guard picture.window[t] > 0 else { return false }
        let dx = picture.xs[j] - ox[k - 1], dy = picture.ys[j] - oy[k - 1]
        let rh = tuning.planningHorizontal + picture.gh[j]
        guard dx * dx + dy * dy < rh * rh else { return false }
        let rv = tuning.planningVertical + picture.gv[j]
        let gap = picture.zs[j] - oz[k - 1]
        let v = picture.endClimb[t]
        // Closing when the track moves toward the own final altitude: the gap shrinks to |gap| - |v|·tail at worst.
        guard gap * v < 0 else { return false }
        return magnitude(gap) - magnitude(v) * Self.tail < rv
    }

    /// Seconds a climb or descent in place is taken to go on beyond the horizon.
    static let tail = 4.0

    /// Whether `candidate` is the plan the drone flies and has published: same goal, destination and adjustment.
    func isPublished(_ candidate: Candidate) -> Bool {
        decision.maneuver != .notAvoiding && candidate.adjustment == decision.adjustment && planGoal == currentGoal
            && decision.destination == currentDestination
    }

    /// How badly the candidate intrudes: the sum over tracks and grid instants of how far it gets into higher-ranked
    /// drones' planning volumes beyond what is already the case now, plus much more for their separation minima and
    /// for a lower-ranked drone's minima plus half the buffer, weighted by 1 / (1 + t); plus the geofence excess.
    ///
    /// The half buffer toward lower-ranked drones is their room to react: a least-bad plan that passes a lower-ranked
    /// drone just outside its minima, as predicted, relies on it flying exactly what it predicted, which a drone that
    /// is itself in an emergency (reversing a climb, replanning under 30 % loss) does not (encounter 10428:
    /// ARCHITECTURE.md §8.5).
    mutating func badness(own: AvoidanceOwnship, _ candidate: Candidate, picture: LocalPicture) -> Double {
        rollout(own: own, candidate.plan)
        let c = configuration
        var total = 0.0
        if let f = c.geofence {
            let start = f.excess(
                Vector3(ox[0], oy[0], oz[0]), margin: c.fenceMargin, altitudeMargin: c.fenceAltitudeMargin)
            for i in 1..<picture.k {
                let e = f.excess(
                    Vector3(ox[i], oy[i], oz[i]), margin: c.fenceMargin, altitudeMargin: c.fenceAltitudeMargin)
                total += max(0, e - start) * 100
            }
        }
        let k = picture.k
        // Toward lower-ranked drones: their minima plus half the buffer, as when keeping a published plan
        // (``conflicts(_:track:hardOnly:)``).
        let lowerH = 0.5 * (c.horizontalSeparation + c.planningHorizontal)
        let lowerV = 0.5 * (c.verticalSeparation + c.planningVertical)
        for t in 0..<picture.count where picture.window[t] > 0 {
            let higher = picture.higher[t]
            let sh = higher ? c.horizontalSeparation : lowerH, sv = higher ? c.verticalSeparation : lowerV
            for i in 1...picture.window[t] {
                let j = t * k + i
                let dz = abs(picture.zs[j] - oz[i])
                let dx = picture.xs[j] - ox[i], dy = picture.ys[j] - oy[i]
                let dh = (dx * dx + dy * dy).squareRoot()
                let pen = min(c.planningHorizontal + picture.gh[j] - dh, c.planningVertical + picture.gv[j] - dz)
                guard pen > 0 else { continue }
                let w = 1 / (1 + Double(i) * c.step)
                // Toward lower-ranked drones only coming near their minima counts: giving way is theirs to do, and a
                // higher-ranked drone that holds its course is the easiest for them to avoid.
                var b = higher ? max(0, pen - picture.allowed[t]) : 0
                if dh < sh + picture.gh[j] && dz < sv + picture.gv[j] {
                    b += 10 * (1 + pen)
                }
                total += w * b
            }
        }
        return total
    }

    /// Whether the current rollout conflicts with track `t` within its window: it enters the minima (plus growth), or
    /// (unless `hardOnly`) gets deeper into the planning volume than it is now.
    func conflicts(_ picture: LocalPicture, track t: Int, hardOnly: Bool = false) -> Bool {
        let w = picture.window[t]
        guard w > 0 else { return false }
        let c = tuning
        let k = picture.k
        let allowed = hardOnly ? Double.infinity : picture.allowed[t] + 0.05
        let ph = c.planningHorizontal, pv = c.planningVertical
        // Keeping a published plan toward a lower-ranked drone: its minima plus half the buffer (a drone that changes
        // its plan in front of this one, in an emergency, gets the rest of the buffer as this one's reaction).
        let sh = c.horizontalSeparation + (hardOnly ? 0.5 * (ph - c.horizontalSeparation) : 0)
        let sv = c.verticalSeparation + (hardOnly ? 0.5 * (pv - c.verticalSeparation) : 0)
        guard picture.count > 0 else { return false }
        return picture.withPointers { xs, ys, zs, gh, gv in
            ox.withUnsafeBufferPointer { oxb in
                oy.withUnsafeBufferPointer { oyb in
                    oz.withUnsafeBufferPointer { ozb in
                        let ox = oxb.baseAddress!, oy = oyb.baseAddress!, oz = ozb.baseAddress!
                        var i = 1
                        while i <= w {
                            let j = t * k + i
                            let dz = magnitude(zs[j] - oz[i])
                            let rv = pv + gv[j]
                            if dz < rv {
                                let dx = xs[j] - ox[i], dy = ys[j] - oy[i]
                                let rh = ph + gh[j]
                                let d2 = dx * dx + dy * dy
                                if d2 < rh * rh {
                                    let dh = d2.squareRoot()
                                    if dh < sh + gh[j] && dz < sv + gv[j] { return true }
                                    if lesser(rh - dh, rv - dz) > allowed { return true }
                                }
                            }
                            i += 1
                        }
                        return false
                    }
                }
            }
        }
    }

    /// Whether the current rollout comes within the planning separation of where a higher-ranked drone that ends its
    /// prediction standing still will be (treated as a fixed obstacle at every instant).
    func blockedByHovering(_ picture: LocalPicture) -> Bool {
        let c = tuning
        let k = picture.k
        for t in 0..<picture.count where picture.higher[t] && picture.stationaryEnd[t] && picture.window[t] > 0 {
            let j = t * k + k - 1
            let sx = picture.xs[j], sy = picture.ys[j], sz = picture.zs[j]
            let rh = c.planningHorizontal + picture.gh[j], rv = c.planningVertical + picture.gv[j]
            var i = 1
            while i < k {
                let dx = ox[i] - sx, dy = oy[i] - sy
                if magnitude(oz[i] - sz) < rv && dx * dx + dy * dy < rh * rh { return true }
                i += 1
            }
        }
        return false
    }

    /// Whether every rolled-out point is inside the geofence with margins, or no further outside than the drone is now.
    func insideFence() -> Bool {
        let c = configuration
        guard let f = c.geofence else { return true }
        // Convex fence: if the corners of the rollout's bounding box are inside, every point is.
        if f.isConvex {
            var lx = Double.infinity, hx = -Double.infinity, ly = Double.infinity, hy = -Double.infinity
            var lz = Double.infinity, hz = -Double.infinity
            ox.withUnsafeBufferPointer { x in
                oy.withUnsafeBufferPointer { y in
                    oz.withUnsafeBufferPointer { z in
                        let px = x.baseAddress!, py = y.baseAddress!, pz = z.baseAddress!
                        var i = 0
                        while i < x.count {
                            lx = lesser(lx, px[i])
                            hx = greater(hx, px[i])
                            ly = lesser(ly, py[i])
                            hy = greater(hy, py[i])
                            lz = lesser(lz, pz[i])
                            hz = greater(hz, pz[i])
                            i += 1
                        }
                    }
                }
            }
            if lz >= f.minAltitude + c.fenceAltitudeMargin && hz <= f.maxAltitude - c.fenceAltitudeMargin
                && f.contains(Vector3(lx, ly, lz), margin: c.fenceMargin)
                && f.contains(Vector3(hx, ly, lz), margin: c.fenceMargin)
                && f.contains(Vector3(lx, hy, lz), margin: c.fenceMargin)
                && f.contains(Vector3(hx, hy, lz), margin: c.fenceMargin)
            {
                return true
            }
        }
        let start = f.excess(Vector3(ox[0], oy[0], oz[0]), margin: c.fenceMargin, altitudeMargin: c.fenceAltitudeMargin)
        for i in 1..<ox.count {
            let e = f.excess(Vector3(ox[i], oy[i], oz[i]), margin: c.fenceMargin, altitudeMargin: c.fenceAltitudeMargin)
            if e > start + 0.05 { return false }
        }
        return true
    }

    /// Runs the motion model for `plan` into the scratch buffers.
    mutating func rollout(own: AvoidanceOwnship, _ plan: MotionPlan) {
        let k = ox.count
        model.rollout(
            position: own.position, velocity: own.velocity, plan: plan, gridStep: configuration.step, count: k,
            xs: &ox, ys: &oy, zs: &oz)
    }
}
