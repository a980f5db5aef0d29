import Flight

extension AvoidanceCore {
    /// The roundabout point of the direct way, or nil: where at least ``roundaboutMinimum`` other drones whose
    /// predictions end in the destination's layer cross the direct way at about the same time (within
    /// ``roundaboutWindow`` seconds of the own drone, on the way ahead of both, within 8 m of each other), at most
    /// ``roundaboutMaximum`` of them, the crossing moved to the right of the way by a radius at which that many drones
    /// evenly round it keep 7 m apart (at least ``roundaboutRadius``). Every drone that sees the same crossing passes it
    /// on the right, the highest-ranked one too, so a small crowd that meets in one place circles its centre
    /// counter-clockwise instead of each lower-ranked drone dodging the ones above it; only while the drone flies in
    /// its layer (within 1 m of the destination's altitude) and to the goal itself.
    func roundabout(_ x: CandidateContext, picture: LocalPicture) -> Vector3? {
        let p = x.own.position
        guard x.destination == x.goal.position, x.distance > 20, x.speed > 0.5,
            magnitude(p.z - x.destination.z) < 1
        else { return nil }
        let d = (x.destination - p).horizontal
        let u = d / d.horizontalLength
        let k = picture.k
        var points: [Vector3] = []
        for t in 0..<picture.count {
            let a = picture.position(t, 0), b = picture.position(t, k - 1)
            guard magnitude(b.z - x.destination.z) < 2 else { continue }
            let w = (b - a).horizontal / configuration.horizon
            let speed = w.horizontalLength
            guard speed > 1 else { continue }
            let e = w / speed
            // Where the direct way p + u·s meets the track's way a + e·r (not nearly parallel).
            let det = u.x * e.y - u.y * e.x
            guard magnitude(det) > 0.3 else { continue }
            let qx = a.x - p.x, qy = a.y - p.y
            let s = (qx * e.y - qy * e.x) / det
            let r = (qx * u.y - qy * u.x) / det
            guard s > 5, s < min(x.distance - 5, 45), r > 0,
                magnitude(s / x.speed - r / speed) < Self.roundaboutWindow
            else { continue }
            points.append(p + u * s)
        }
        var crowd: [Vector3] = []
        for q in points {
            let near = points.filter { ($0 - q).horizontalLength < 8 }
            if near.count > crowd.count { crowd = near }
        }
        guard crowd.count >= Self.roundaboutMinimum, crowd.count <= Self.roundaboutMaximum else { return nil }
        var sum = Vector3.zero
        for q in crowd { sum = sum + q }
        let centre = sum / Double(crowd.count)
        let along = (centre - p).x * u.x + (centre - p).y * u.y
        guard along > 3 else { return nil }
        // sin(π / m) for m = 4 … 8 drones evenly round the centre, the own drone included.
        let sine = [0.7071, 0.5878, 0.5, 0.4339, 0.3827][crowd.count - Self.roundaboutMinimum]
        let radius = greater(Self.roundaboutRadius, 7 / (2 * sine))
        let v = p + u * along + Vector3(u.y, -u.x, 0) * radius
        return Vector3((v.x * 10).rounded() / 10, (v.y * 10).rounded() / 10, x.destination.z)
    }

    /// The mission's plan, or passing the roundabout point on the right when there is one: toward that point at cruise
    /// speed until it is reached, then on to the destination. It costs nothing: it is the plan every drone of the
    /// crowd flies, not a way round a higher-ranked drone.
    func missionPlan(_ x: CandidateContext, picture: LocalPicture) -> Candidate {
        guard let via = roundabout(x, picture: picture) else {
            return travel(x, altitude: x.destination.z, speed: x.speed)
        }
        let leg = (via - x.own.position).horizontalLength
        var v = veer(x, via: via, until: x.now + ((leg / x.speed) * 10).rounded(.up) / 10)
        v.cost = 0
        return v
    }

    /// Seconds between the own drone's and another drone's arrival where their ways cross for the crossing to count.
    static let roundaboutWindow = 4.0
    /// Fewest and most other drones crossing at one place that make it a roundabout (more: the radius would be too
    /// large for the detour to pay).
    static let roundaboutMinimum = 3
    static let roundaboutMaximum = 7
    /// Smallest distance at which a roundabout is passed, metres.
    static let roundaboutRadius = 10.0
}
