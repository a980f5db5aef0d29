import Coordinator
import Flight
import Geodesy
import MAVLinkBridge

extension AutopilotVehicle {
    /// What the mirrored plan came from: a new one (another command) starts the monitor's view of the plan over.
    enum PlanKey: Hashable {
        case none, hold(GeoPoint), goto(GeoPoint), follow, takeoff(Double), land, returning, mission(GeoPoint?)
    }

    /// Brings `nav` in line with what the autopilot flies: the goal, a takeoff, a landing, a return, or the mission's
    /// waypoints still ahead (planned once per waypoint, from where the vehicle is, at the autopilot's cruise speed,
    /// without turning in place: autopilots turn while they fly).
    mutating func mirror(_ flight: AutopilotSession.PlannedFlight?, into nav: inout Navigator) {
        let key: PlanKey
        switch flight {
        case .goal(.hold(let p))?:
            key = .hold(p)
            nav.adopt(local(p).map { .hold($0) } ?? .idle)
        case .goal(.goto(let p, let speed))?:
            key = .goto(p)
            // PX4 in OFFBOARD flies to a position target at its own cruise speed, whatever the goto asked for: while
            // avoidance steers it without a cap of its own, that is the speed flown, and predicted.
            let steeredPX4 =
                session.identity?.flavour == .px4 && session.steering != nil && session.steering?.speed == nil
            let flown = steeredPX4 ? navigation.defaultSpeed : speed ?? navigation.defaultSpeed
            nav.adopt(local(p).map { .goto($0, speed: flown) } ?? .idle)
        case .goal(.follow)?:
            key = .follow
            nav.adopt(.follow(offset: .zero))
        case .takingOff(let altitude)?:
            key = .takeoff(altitude)
            nav.adopt(.takeoff(altitude: altitude))
        case .landing?:
            key = .land
            nav.adopt(.land)
        case .returning?:
            key = .returning
            nav.adopt(.returnHome(lowBattery: false))
        case .mission(let waypoints)?:
            // Not a goal avoidance may adjust: the navigator stays idle and the prediction flies the waypoints.
            key = .mission(waypoints.last)
            missionAhead = waypoints.compactMap { local($0, in: nav.origin) }
            nav.adopt(.idle)
        case nil:
            key = .none
            nav.adopt(.idle)
        }
        if case .mission = key {} else { missionAhead = [] }
        if key != planKey {
            planKey = key
            monitor.planChanged()
        }
    }

    /// What the plan predicts from `state` at `now`: the mission's waypoints still ahead, or the navigator's
    /// intent; nil when the node does not know what the autopilot flies.
    func planPrediction(state: Flight.VehicleState, now t: Double) -> PredictedTrajectory? {
        if !missionAhead.isEmpty { return missionPrediction(state: state, now: t) }
        guard let navigator, navigator.intent != .idle else { return nil }
        return navigator.predictedTrajectory(state: state, now: t)
    }

    /// The mission flown as the autopilot flies it: to each waypoint in turn at the cruise speed, the next one once
    /// within `missionAcceptance` of it, holding at the last; on the same vehicle model as every prediction.
    func missionPrediction(state: Flight.VehicleState, now t: Double) -> PredictedTrajectory {
        let c = navigation
        var model = MultirotorModel(state: state, limits: c.limits)
        let count = max(1, Int((c.predictionHorizon / c.predictionStep).rounded()))
        let substeps = max(1, Int((c.predictionStep / MultirotorModel.maxSubstep).rounded(.up)))
        let h = c.predictionStep / Double(substeps)
        var next = 0
        var points: [PredictedTrajectory.Point] = []
        points.reserveCapacity(count)
        for k in 1...count {
            for _ in 0..<substeps {
                while next < missionAhead.count - 1,
                    (missionAhead[next] - model.position).length < Self.missionAcceptance
                {
                    next += 1
                }
                model.step(
                    dt: h,
                    setpoint: .position(
                        target: missionAhead[next], feedforward: .zero, speed: c.defaultSpeed, heading: nil,
                        activity: .followingTrajectory))
            }
            points.append(.init(offset: Double(k) * c.predictionStep, position: model.position))
        }
        return PredictedTrajectory(time: t, origin: state.position, points: points)
    }

    /// A mission waypoint counts as reached within this distance, metres (the autopilots' acceptance radius).
    static let missionAcceptance = 1.0

    /// Feeds the monitor: a new position report is compared with what was predicted for it, and every
    /// `PredictionMonitor.recordInterval` both models' predictions from now are kept.
    mutating func monitorPrediction(now t: Double) {
        guard navigator != nil, let state = localState(), let reported = session.telemetry.position else { return }
        if observed != reported {
            observed = reported
            monitor.observe(state.position, at: t)
        }
        guard monitor.wantsRecord(at: t) else { return }
        let plan = planPrediction(state: state, now: t)
        let c = navigation
        let count = max(1, Int((c.predictionHorizon / c.predictionStep).rounded()))
        let extrapolation = PredictedTrajectory(
            time: t, origin: state.position,
            points: (1...count).map { i in
                let dt = Double(i) * c.predictionStep
                return .init(offset: dt, position: state.position + state.velocity * dt)
            })
        monitor.record(plan: plan, extrapolation: extrapolation)
    }

    func local(_ p: GeoPoint, in origin: MapOrigin) -> Vector3? {
        (try? origin.local(p.geodetic)).map(Vector3.init)
    }
}

extension TrajectoryPrediction {
    /// A local prediction as the mesh carries it (at most 255 points, `step` seconds apart).
    init(_ p: PredictedTrajectory, step: Double, origin: MapOrigin, avoiding: Bool, uncertainty: PredictionUncertainty)
    {
        self.init(
            stepMilliseconds: UInt16(max(1, min(65_535, (step * 1000).rounded()))),
            points: p.points.prefix(255).map { GeoPoint($0.position, origin: origin) }, avoiding: avoiding,
            uncertainty: uncertainty)
    }
}
