import Coordinator
import MeshTypes

extension AutopilotSession {
    /// PX4: streams the goal point while the node commands a held point or a goto that neither avoidance nor
    /// following streams for (PX4 ignores position targets outside OFFBOARD), so that the offboard signal is already
    /// there when steering must switch to OFFBOARD: no prestream delay before an avoidance manoeuvre begins.
    mutating func warmOffboardStream(now: MeshInstant) -> [Directive] {
        guard let interval = configuration.warmStreamInterval, identity?.flavour == .px4, flying, setpoint == nil,
            steering == nil, !following, let target = targetSystemID, !isSilent, now >= nextWarmAt
        else { return [] }
        let point: GeoPoint
        switch goal {
        case .hold(let p)?, .goto(let p, _)?: point = p
        default: return []
        }
        nextWarmAt = now + interval
        noteStreamed(now: now)
        return [frame(positionTarget(point, target: target, now: now))]
    }

    /// A position target left at `now`: the stream goes on if the previous one left within PX4's offboard loss time
    /// (0.5 s), else a new stream begins.
    mutating func noteStreamed(now: MeshInstant) {
        if let last = lastStreamedAt, now - last <= .milliseconds(500), streamSince != nil {
            // The stream goes on.
        } else {
            streamSince = now
        }
        lastStreamedAt = now
    }
}
