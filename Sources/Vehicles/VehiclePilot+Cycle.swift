import Avoidance
import Coordinator
import Geodesy
import MeshTypes

/// What one control cycle produced: the vehicle's events, and what the coordinator should publish.
public struct PilotCycle: Sendable {
    /// The vehicle's events, in order (verdicts, completions, frames for its link, log lines).
    public var events: [VehicleEvent]
    /// The state to publish as telemetry (nil until the vehicle knows where it is).
    public var telemetry: Coordinator.VehicleState?
    /// The predicted trajectory to publish now; nil when none is due.
    public var prediction: TrajectoryPrediction?
    /// The plan changed to avoid another drone: the prediction goes out at once, not at the next period.
    public var replanned: Bool
}

extension VehiclePilot {
    /// One control cycle at `now` (the node's 50 ms tick): the vehicle advances; avoidance starts once the vehicle's
    /// local map is known (a plan that cannot be placed on it leaves avoidance off, with an error in the log), then
    /// decides against `airspace` (every drone's fresh prediction; `ownNode`'s own is left out) and the adjustment
    /// goes to the vehicle; the prediction is due every `predictionInterval`, or at once after a new plan.
    public mutating func cycle(
        now: MeshInstant, airspace: [AirspaceEntry], ownNode: NodeID, uavNumber: UInt8?, tiebreak: UInt64
    ) -> PilotCycle {
        var events = advance(to: now)
        if let plan = pendingAvoidance, avoidance == nil, let frame {
            pendingAvoidance = nil
            do {
                enableAvoidance(try plan.core(on: frame))
            } catch {
                events.append(.log(.error, "collision avoidance stays off: \(error)"))
            }
        }
        var replanned = false
        if avoidance != nil, let frame {
            let tracks = trackCache.tracks(airspace, excluding: ownNode, in: frame, now: now)
            let (changed, more) = avoid(
                tracks: tracks, uavNumber: uavNumber.map(Int.init) ?? 251, tiebreak: tiebreak, now: now)
            events += more
            replanned = changed
            if changed { events.append(.log(.info, "avoidance: \(decision)")) }
        }
        var published: TrajectoryPrediction?
        if now >= nextPredictionAt || replanned {
            published = prediction(now: now)
            if published != nil { nextPredictionAt = now + predictionInterval }
        }
        return PilotCycle(events: events, telemetry: telemetry, prediction: published, replanned: replanned)
    }

    /// The fresh predictions of the drones but `own` (every drone's with nil) as avoidance tracks in the vehicle's
    /// local `frame`, on its clock (seconds of `now`'s clock). A drone without a UAV number ranks last (251). Each path
    /// is projected afresh; a caller that asks again and again keeps a ``LocalTrackCache``.
    public static func tracks(
        _ airspace: [AirspaceEntry], excluding own: NodeID?, in frame: MapOrigin, now: MeshInstant
    ) -> [AirspaceTrack] {
        var once = LocalTrackCache()
        return once.tracks(airspace, excluding: own, in: frame, now: now)
    }
}
