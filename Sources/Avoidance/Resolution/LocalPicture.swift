import Flight

/// The part of the airspace one drone must consider, resampled on its decision grid: tracks that can come near it
/// within the horizon, with their rank relative to it and how much of the horizon each must be checked over.
struct LocalPicture {
    /// Grid points per track.
    let k: Int
    var xs: [Double] = [], ys: [Double] = [], zs: [Double] = [], gh: [Double] = [], gv: [Double] = []
    var uavNumbers: [Int] = []
    /// Ranks above the own drone (or does not avoid): checked over the whole horizon.
    var higher: [Bool] = []
    /// Last grid index checked against this track (inclusive); 0 for tracks that only matter near the goal.
    var window: [Int] = []
    /// Penetration of the planning volume already present at index 0 (kept, not deepened).
    var allowed: [Double] = []
    /// Whether the track ends its horizon standing still (a drone holding a spot).
    var stationaryEnd: [Bool] = []
    /// Vertical speed at the end of the horizon of a track that ends it climbing or descending in place (horizontally
    /// slower than 1 m/s), m/s; 0 for others. Such a drone is taken to go on climbing or descending for a while.
    var endClimb: [Double] = []
    var count: Int { uavNumbers.count }

    init(k: Int) { self.k = k }

    /// Builds the picture for `own` at `now` from `airspace`.
    init(
        own: AvoidanceOwnship, airspace: [AirspaceTrack], now: Double, goal: Vector3,
        configuration: AvoidanceConfiguration, tuning c: Tuning
    ) {
        self.init(k: configuration.steps + 1)
        let ownRank = own.rank
        let l = configuration.limits
        let horizon = configuration.horizon
        let reachH =
            greater(l.maxHorizontalSpeed, own.velocity.horizontalLength) * horizon + c.planningHorizontal
            + c.maxHorizontalInflation
        let reachV = greater(l.maxClimbRate, l.maxDescentRate) * horizon + c.planningVertical + c.maxVerticalInflation
        let p = own.position
        let react = min(k - 1, Int((configuration.reactionTime / c.step).rounded(.down)))
        // First pass: which tracks matter (near the own drone's reach, or near its goal).
        var selected: [(index: Int, nearOwn: Bool)] = []
        for (index, track) in airspace.enumerated() {
            if track.uavNumber == own.uavNumber && track.tiebreak == own.tiebreak { continue }
            let age = now - track.prediction.time
            guard age <= c.forgetAfter else { continue }
            let pr = track.prediction
            var lx = pr.origin.x, hx = lx, ly = pr.origin.y, hy = ly, lz = pr.origin.z, hz = lz
            var extra = c.maxHorizontalInflation
            pr.points.withUnsafeBufferPointer { buffer in
                guard let pts = buffer.baseAddress else { return }
                let m = buffer.count
                var i = 0
                while i < m {
                    let q = pts[i].position
                    if q.x < lx { lx = q.x } else if q.x > hx { hx = q.x }
                    if q.y < ly { ly = q.y } else if q.y > hy { hy = q.y }
                    if q.z < lz { lz = q.z } else if q.z > hz { hz = q.z }
                    i += 1
                }
                if m >= 2 {
                    let a = pts[m - 2], b = pts[m - 1]
                    let dt = b.offset - a.offset
                    if dt > 0 && age > 0 {
                        let dx = b.position.x - a.position.x, dy = b.position.y - a.position.y,
                            dz = b.position.z - a.position.z
                        extra += (dx * dx + dy * dy + dz * dz).squareRoot() / dt * age
                    }
                }
            }
            let nearOwn =
                lx - extra <= p.x + reachH && hx + extra >= p.x - reachH && ly - extra <= p.y + reachH
                && hy + extra >= p.y - reachH && lz - extra <= p.z + reachV && hz + extra >= p.z - reachV
            let nearGoal =
                lx - extra <= goal.x + 30 && hx + extra >= goal.x - 30 && ly - extra <= goal.y + 30
                && hy + extra >= goal.y - 30
            if nearOwn || nearGoal { selected.append((index, nearOwn)) }
        }
        let n = selected.count * k
        xs = [Double](repeating: 0, count: n)
        ys = xs
        zs = xs
        gh = xs
        gv = xs
        uavNumbers.reserveCapacity(selected.count)
        for (slot, s) in selected.enumerated() {
            let track = airspace[s.index]
            let conservative = !track.avoiding || now - track.prediction.time > c.staleAfter
            AirspaceSnapshot.resample(
                track.prediction, from: now, step: c.step, count: k, base: slot * k, conservative: conservative,
                avoiding: track.avoiding,
                tuning: c, xs: &xs, ys: &ys, zs: &zs, growH: &gh, growV: &gv)
            AirspaceSnapshot.addUncertainty(
                track, from: now, step: c.step, count: k, base: slot * k, tuning: c, growH: &gh)
            let higher = track.rank < ownRank
            uavNumbers.append(track.uavNumber)
            self.higher.append(higher)
            window.append(s.nearOwn ? (higher ? k - 1 : react) : 0)
            let b = slot * k
            let dx = xs[b] - p.x, dy = ys[b] - p.y, dz = abs(zs[b] - p.z)
            let pen = min(
                c.planningHorizontal + gh[b] - (dx * dx + dy * dy).squareRoot(), c.planningVertical + gv[b] - dz)
            allowed.append(max(0, pen))
            let e = b + k - 1
            let ex = xs[e] - xs[e - 1], ey = ys[e] - ys[e - 1], ez = zs[e] - zs[e - 1]
            stationaryEnd.append((ex * ex + ey * ey + ez * ez).squareRoot() < 0.5 * c.step)
            endClimb.append((ex * ex + ey * ey).squareRoot() < c.step && abs(ez) > 0.3 * c.step ? ez / c.step : 0)
        }
    }

    /// Runs `body` with pointers to the positions and growths (track `t`, index `i` at `t * k + i`).
    func withPointers<R>(
        _ body: (
            UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<Double>,
            UnsafePointer<Double>
        ) -> R
    ) -> R {
        xs.withUnsafeBufferPointer { x in
            ys.withUnsafeBufferPointer { y in
                zs.withUnsafeBufferPointer { z in
                    gh.withUnsafeBufferPointer { h in
                        gv.withUnsafeBufferPointer { v in
                            body(x.baseAddress!, y.baseAddress!, z.baseAddress!, h.baseAddress!, v.baseAddress!)
                        }
                    }
                }
            }
        }
    }

    /// Position of track `t` at grid index `i`.
    func position(_ t: Int, _ i: Int) -> Vector3 { Vector3(xs[t * k + i], ys[t * k + i], zs[t * k + i]) }
}
