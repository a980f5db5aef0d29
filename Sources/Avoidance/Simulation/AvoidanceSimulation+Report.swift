import Flight
import Geodesy

extension AvoidanceSimulation {
    /// The report so far (arrival counts only drones settled at the current time).
    public func report() -> AvoidanceReport {
        let solo = soloStart.map { runSolo($0) }
        var droneReports: [DroneAvoidanceReport] = []
        for (i, d) in drones.enumerated() {
            let dest = d.avoiding ? d.core.decision.destination : nil
            droneReports.append(
                DroneAvoidanceReport(
                    id: d.spec.id, uavNumber: d.settings.uavNumber, avoidingAtEnd: d.avoiding,
                    arrival: d.arrivedSince.map { $0 - measureFrom }, soloArrival: solo?[i].arrival,
                    distance: d.sim.distanceFlown - d.distanceAtStart, soloDistance: solo?[i].distance,
                    finalPosition: d.sim.truePosition, destination: dest, parked: d.avoiding && d.core.decision.parked,
                    unsafeDecisions: d.unsafeDecisions, planChanges: d.planChanges))
        }
        let counted = droneReports.filter { $0.avoidingAtEnd && $0.destination != nil }
        let arrival: Double? = counted.contains { $0.arrival == nil } ? nil : counted.map { $0.arrival! }.max() ?? 0
        var soloArrival: Double?
        if solo != nil {
            soloArrival = counted.contains { $0.soloArrival == nil } ? nil : counted.map { $0.soloArrival! }.max() ?? 0
        }
        let m = monitor
        return AvoidanceReport(
            name: mission.scenario.name, simulatedTime: time, measuredFrom: measureFrom,
            minimumSeparation: m.minimumSeparation.isFinite ? m.minimumSeparation : nil,
            minimumDistance: m.minimumDistance.isFinite ? m.minimumDistance : nil,
            violations: m.violations, violationSeconds: m.violationSeconds,
            minimumSeparationToNonAvoiding: m.minimumSeparationMixed.isFinite ? m.minimumSeparationMixed : nil,
            nonAvoidingViolations: m.mixedViolations, nonAvoidingViolationSeconds: m.mixedViolationSeconds,
            fenceExits: m.fenceExits, arrivalTime: arrival, soloArrivalTime: soloArrival,
            distance: droneReports.reduce(0) { $0 + $1.distance },
            soloDistance: solo.map { $0.reduce(0) { $0 + $1.distance } },
            published: published, delivered: delivered, lost: lost, decisions: decisions, unsafeDecisions: unsafe,
            drones: droneReports)
    }

    /// Flies each drone alone from its state at the start of the timed part, with its remaining events.
    func runSolo(_ start: [DroneRun]) -> [(arrival: Double?, distance: Double)] {
        let s = mission.scenario
        let dt = s.step
        let first = Int((measureFrom / dt).rounded())
        let last = Int((s.duration / dt).rounded())
        return start.map { initial -> (arrival: Double?, distance: Double) in
            var d = initial
            d.navigator.adjustment = nil
            let mine = soloEvents.filter { $0.drone == d.spec.id }
            var next = 0
            var arrivedSince: Double?
            let distance0 = d.sim.distanceFlown
            var hadGoal = false
            for k in first..<last {
                let now = Double(k) * dt
                while next < mine.count && mine[next].time <= now + 1e-9 {
                    _ = Self.apply(mine[next].action, to: &d, targets: s.targets, now: now)
                    next += 1
                }
                if let t = d.followTarget { d.navigator.updateTarget(s.targets[t].observation(at: now)) }
                let state = d.sim.state
                if let trajectory = d.pendingStart, state.activity == .hovering,
                    state.position.distance(to: trajectory.start.position) <= d.navigator.configuration
                        .trajectoryStartTolerance / 4
                {
                    d.pendingStart = nil
                    try? d.navigator.handle(.startTrajectory(trajectory), state: state, now: now)
                }
                d.sim.setpoint = d.navigator.setpoint(state: state, now: now)
                d.sim.step(dt: dt)
                let t = Double(k + 1) * dt
                let own = AvoidanceOwnship(uavNumber: 0, navigator: d.navigator, state: d.sim.state, now: t)
                if let g = own.goal {
                    hadGoal = true
                    let dest =
                        mission.configuration.geofence?.clamp(
                            g.position, margin: mission.configuration.fenceMargin,
                            altitudeMargin: mission.configuration.fenceAltitudeMargin) ?? g.position
                    if d.sim.truePosition.distance(to: dest) <= 1.0 {
                        if arrivedSince == nil { arrivedSince = t }
                    } else {
                        arrivedSince = nil
                    }
                } else {
                    arrivedSince = nil
                }
            }
            return (hadGoal ? arrivedSince.map { $0 - measureFrom } : nil, d.sim.distanceFlown - distance0)
        }
    }
}
