import Coordinator
import MAVLink

extension AutopilotSession {
    /// What the autopilot flies now, as far as the node commanded it: what a prediction of its path starts from.
    public enum PlannedFlight: Sendable, Hashable {
        /// A goal avoidance may adjust (hold, goto, follow).
        case goal(Goal)
        /// Climbing to `altitude` metres above home.
        case takingOff(altitude: Double)
        /// Landing where it is.
        case landing
        /// Returning home (the firmware's return: climb, fly home, land).
        case returning
        /// Flying the uploaded trajectory as a mission: `waypoints` still ahead, in order.
        case mission(waypoints: [GeoPoint])
    }

    /// What the vehicle flies now; nil when the node does not know (on the ground, idle, under manual control, or
    /// in a mode the node did not ask for).
    public var plannedFlight: PlannedFlight? {
        guard flying || intent == .takingOff else { return nil }
        switch intent {
        case .hovering, .flyingToTarget, .following:
            return goal.map(PlannedFlight.goal)
        case .takingOff:
            guard let r = running, case .altitude(let mm) = r.completion else { return nil }
            return .takingOff(altitude: Double(mm) / 1000)
        case .landing:
            return .landing
        case .returning:
            return .returning
        case .trajectory:
            let ahead = missionWaypoints.filter { $0.seq >= missionCurrentSeq }.map(\.point)
            return ahead.isEmpty ? nil : .mission(waypoints: ahead)
        case .idle, .manual:
            return nil
        }
    }

    /// Keeps an accepted trajectory's waypoints (the mission items at relative altitude; ArduPilot's item 0, home,
    /// is not one) and starts at its first.
    mutating func recordMission(of plan: Plan) {
        guard plan.intent == .trajectory else {
            missionWaypoints = []
            return
        }
        var items: [MissionItemInt] = []
        for case .mission(let list) in plan.steps { items = list }
        missionWaypoints = items.filter { $0.frame == .globalRelativeAlt }.map {
            ($0.seq, GeoPoint(latitudeE7: $0.x, longitudeE7: $0.y, altitudeMillimetres: Int32(($0.z * 1000).rounded())))
        }
        missionCurrentSeq = missionWaypoints.first?.seq ?? 0
    }
}
