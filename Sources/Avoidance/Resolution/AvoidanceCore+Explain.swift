import Flight

extension AvoidanceCore {
    /// For debugging: every candidate plan the core would consider now, cheapest first, with its cost and whether it
    /// is safe, one line each (the core itself is not changed).
    public func explain(own: AvoidanceOwnship, airspace: [AirspaceTrack], now: Double) -> [String] {
        guard let goal = own.goal else { return ["not avoiding"] }
        var core = self
        let (_, picture, destination) = core.resolveDestination(for: goal, own: own, airspace: airspace, now: now)
        let x = core.context(own: own, goal: goal, destination: destination, now: now)
        var lines = [
            "destination \(destination), \(picture.count) tracks: "
                + (0..<picture.count).map {
                    "UAV \(picture.uavNumbers[$0])\(picture.higher[$0] ? "↑" : "↓") at \(picture.position($0, 0)) window \(picture.window[$0])"
                }.joined(separator: "; ")
        ]
        let nominal = core.travel(x, altitude: destination.z, speed: x.speed)
        core.rollout(own: own, nominal.plan)
        let threats = (0..<picture.count).filter { picture.higher[$0] && core.conflicts(picture, track: $0) }
        for candidate in core.candidates(x, picture: picture, threats: threats) {
            var hot: Int?
            let safe = core.isSafe(own: own, candidate, picture: picture, hot: &hot)
            lines.append(
                String(
                    format: "%7.2f %@ %@%@", candidate.cost, safe ? "safe  " : "UNSAFE", candidate.maneuver.description,
                    hot.map { " (UAV \(picture.uavNumbers[$0]))" } ?? ""))
        }
        return lines
    }
}
