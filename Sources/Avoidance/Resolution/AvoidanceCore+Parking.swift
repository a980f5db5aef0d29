import Flight

extension AvoidanceCore {
    /// The goal clamped into the geofence, the local picture around it, and where to fly: there or a parking spot near.
    mutating func resolveDestination(
        for goal: AvoidanceOwnship.Goal, own: AvoidanceOwnship, airspace: [AirspaceTrack], now: Double
    ) -> (fenceGoal: Vector3, picture: LocalPicture, destination: Vector3) {
        let c = configuration
        let fenceGoal =
            c.geofence?.clamp(goal.position, margin: c.fenceMargin, altitudeMargin: c.fenceAltitudeMargin)
            ?? goal.position
        let picture = LocalPicture(
            own: own, airspace: airspace, now: now, goal: fenceGoal, configuration: c, tuning: tuning)
        if goal.velocity.horizontalLength < 0.1,
            let spot = parking(near: fenceGoal, own: own, picture: picture, now: now)
        {
            return (fenceGoal, picture, spot)
        }
        return (fenceGoal, picture, fenceGoal)
    }

    /// The goal itself when no higher-ranked drone holds it, else the nearest free spot of a hexagonal lattice
    /// (``AvoidanceConfiguration/parkingSpacing`` apart) around it, inside the geofence: on the innermost ring that has
    /// one, the spot nearest the drone (the current spot while it stays free and no ring nearer has one).
    /// A spot is held when a higher-ranked or non-avoiding drone's prediction ends standing still within the horizontal
    /// planning separation of it, at its altitude or up to two layers above or below (a drone waiting over a spot
    /// holds it: drones gather around a goal, they do not stack over it), or anywhere between the own drone's altitude
    /// and the spot's (the way down or up is blocked; the drone changes altitude beside it and then slides over, since
    /// the goal is free again once the drone is at its altitude). A spot the drone makes no progress toward for 10 s is
    /// avoided for 30 s (a crowd around the goal can leave a spot free but unreachable).
    mutating func parking(near goal: Vector3, own: AvoidanceOwnship, picture: LocalPicture, now: Double) -> Vector3? {
        let c = configuration
        // A spot the drone has not got nearer to for `giveUpAfter` seconds is avoided for `avoidFor` seconds.
        avoidedSpots.removeAll { $0.until <= now }
        if let p = parkingSpot {
            let d = (p - own.position).length
            if let progress = spotProgress, progress.spot == p {
                if d < progress.best - 1 {
                    spotProgress = (p, d, now)
                } else if now - progress.since > Self.giveUpAfter && d > 1.5 {
                    avoidedSpots.append((p, now + Self.avoidFor))
                    parkingSpot = nil
                    spotProgress = nil
                }
            } else {
                spotProgress = (p, d, now)
            }
        }
        func held(_ q: Vector3) -> Bool {
            let k = picture.k
            for t in 0..<picture.count where picture.higher[t] && picture.stationaryEnd[t] {
                let j = t * k + k - 1
                let dx = picture.xs[j] - q.x, dy = picture.ys[j] - q.y
                let z = picture.zs[j]
                // The growth of an uncertain drone's volume counts only in the spot's own layer: one that ends in
                // another layer (a neighbour still climbing to its own altitude) holds no spot beside it.
                let sameLayer = abs(z - q.z) < c.planningVertical
                let rh = c.planningHorizontal + (sameLayer ? picture.gh[j] : 0)
                guard dx * dx + dy * dy < rh * rh else { continue }
                let margin = c.planningVertical + picture.gv[j]
                if abs(z - q.z) < margin + 2 * c.layerSpacing { return true }
                if z > min(own.position.z, q.z) - margin && z < max(own.position.z, q.z) + margin { return true }
            }
            return false
        }
        guard held(goal) else {
            parkingSpot = nil
            return goal
        }
        // A spot the drone has reached is kept while it stays free, even when a nearer ring frees up: spots are not
        // shuffled inward once taken, which could go round in circles in a crowd.
        if let p = parkingSpot, parkingGoal == goal, (p - own.position).length < 2, !held(p) { return p }
        parkingGoal = goal
        let a = c.parkingSpacing
        var best: (ring: Int, distance: Double, point: Vector3)?
        var currentRing: Int?
        for ring in 1...8 {
            // Walk the hexagonal ring: start at ring·(direction 4), take `ring` steps along each of the six directions.
            let dirs = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
            var q = -ring, r = ring
            for side in 0..<6 {
                for _ in 0..<ring {
                    let x = a * (Double(q) + Double(r) / 2), y = a * (Double(r) * 3.0.squareRoot() / 2)
                    let spot = Vector3(goal.x + x, goal.y + y, goal.z)
                    q += dirs[side].0
                    r += dirs[side].1
                    if let f = c.geofence,
                        !f.contains(spot, margin: c.fenceMargin, altitudeMargin: c.fenceAltitudeMargin)
                    {
                        continue
                    }
                    if held(spot) || avoidedSpots.contains(where: { ($0.spot - spot).length < 0.01 && $0.until > now })
                    {
                        continue
                    }
                    if let p = parkingSpot, (p - spot).length < 0.01 { currentRing = ring }
                    let d = (spot - own.position).horizontalLength
                    if best == nil || (ring == best!.ring && d < best!.distance - 1e-9) { best = (ring, d, spot) }
                }
            }
            if best != nil { break }
        }
        if let ring = currentRing, let p = parkingSpot, let b = best, ring <= b.ring { return p }
        parkingSpot = best?.point
        return best?.point ?? goal
    }

    /// Seconds without getting 1 m nearer to a parking spot before it is given up.
    static let giveUpAfter = 10.0
    /// Seconds a given-up spot is avoided.
    static let avoidFor = 30.0
}
