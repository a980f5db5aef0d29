import Flight

extension AvoidanceCore {
    /// Seconds added to the plans at altitude `z` (other than the destination's) for the traffic that lives in that
    /// layer: per lower-ranked drone flying level in it (the same altitude, within half a metre, at both ends of its
    /// prediction) whose prediction, within the horizon, comes within the planning separation plus ``layerMargin`` of
    /// the own drone flying straight on toward the destination at cruise speed in that layer. Safety looks at
    /// lower-ranked drones only over the courtesy window; a drone that changes altitude into another group's busy layer
    /// makes that group give way, and is then held up among them. A clear layer is taken before a busy one of about
    /// the same cost. (Higher-ranked drones are left to the safety rules, which keep the plan out of their way.)
    func layerTraffic(_ x: CandidateContext, picture: LocalPicture, altitude z: Double) -> Double {
        guard picture.count > 0, magnitude(z - x.destination.z) > 0.5 else { return 0 }
        let k = picture.k
        let step = configuration.step
        let d = (x.destination - x.own.position).horizontal
        let length = d.horizontalLength
        let u = length > 1e-6 ? d / length : Vector3.zero
        let rh = tuning.planningHorizontal + Self.layerMargin
        var busy = 0
        for t in 0..<picture.count where !picture.higher[t] {
            let first = picture.zs[t * k], last = picture.zs[t * k + k - 1]
            guard magnitude(first - z) <= 0.5, magnitude(last - z) <= 0.5 else { continue }
            var i = 1
            while i < k {
                let j = t * k + i
                let s = min(x.speed * Double(i) * step, length)
                let dx = picture.xs[j] - (x.own.position.x + u.x * s), dy = picture.ys[j] - (x.own.position.y + u.y * s)
                let r = rh + picture.gh[j]
                if dx * dx + dy * dy < r * r {
                    busy += 1
                    break
                }
                i += 1
            }
        }
        return Double(busy) * Self.layerTrafficCost
    }

    /// Metres added to the planning separation when looking for traffic in a layer.
    static let layerMargin = 1.0
    /// Seconds a layer's plans cost per lower-ranked drone in the way there.
    static let layerTrafficCost = 1.0
}
