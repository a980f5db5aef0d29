import Determinism
import Flight
import Geodesy

/// Runs an ``AvoidanceMission`` offline, faster than real time and deterministically: every drone is a
/// ``Flight/MultirotorSimulator`` flown by a ``Flight/Navigator`` whose adjustment comes from its own
/// ``AvoidanceCore``, deciding every ``AvoidanceMission/decisionInterval`` from the predictions that have reached it.
/// Predictions are published every ``CommunicationModel/publishInterval`` and at once when a plan changes, and each
/// copy is lost or delayed as the ``CommunicationModel`` says. Separation, the geofence and arrival are measured on
/// the true positions every step.
public struct AvoidanceSimulation: Sendable {
    /// The mission.
    public let mission: AvoidanceMission
    /// Simulated time, seconds.
    public private(set) var time = 0.0

    struct DroneRun: Sendable {
        var spec: Scenario.Drone
        var settings: AvoidanceMission.Drone
        var sim: MultirotorSimulator
        var navigator: Navigator
        var core: AvoidanceCore
        var followTarget: Int?
        var pendingStart: Trajectory?
        /// Latest track received from each other drone, by drone index.
        var picture: [AirspaceTrack?]
        var avoiding = false
        var lostLink = false
        var arrivedSince: Double?
        var distanceAtStart = 0.0
        var unsafeDecisions = 0
        var planChanges = 0
        /// A command arrived: decide in this step rather than at the next regular decision.
        var decideNow = false
    }

    struct Delivery: Sendable {
        var receiver: Int
        var sender: Int
        var track: AirspaceTrack
    }

    var drones: [DroneRun]
    var events: [Scenario.Event]
    var nextEvent = 0
    var stepIndex = 0
    let decisionEvery: Int
    let publishEvery: Int
    var buckets: [[Delivery]]
    var random: SeededRandom
    var monitor: SeparationMonitor
    var soloStart: [DroneRun]?
    var soloEvents: [Scenario.Event] = []
    var published = 0, delivered = 0, lost = 0, decisions = 0, unsafe = 0
    let measureFrom: Double
    /// Messages about refused commands: "t=12.0 d3 goto: not airborne".
    public private(set) var log: [String] = []

    /// Prepares the mission.
    /// - Throws: ``Flight/ScenarioError`` for a scenario that does not make sense or avoidance settings that do not
    ///   match its drones.
    public init(mission: AvoidanceMission) throws(ScenarioError) {
        _ = try ScenarioRunner(scenario: mission.scenario)
        let s = mission.scenario
        guard mission.drones.count == s.drones.count else {
            throw ScenarioError(
                key: "drones", problem: "\(mission.drones.count) avoidance settings for \(s.drones.count) drones")
        }
        guard mission.decisionInterval > 0, mission.communication.publishInterval > 0 else {
            throw ScenarioError(key: "avoidance", problem: "decision and publication intervals must be positive")
        }
        self.mission = mission
        let n = s.drones.count
        drones = zip(s.drones, mission.drones).map { spec, settings in
            var sim = MultirotorSimulator(
                origin: s.origin, home: spec.home, configuration: spec.simulator,
                batteryPercent: spec.batteryPercent, heading: spec.heading)
            var navigator = Navigator(origin: s.origin, configuration: spec.navigator)
            if let altitude = settings.startAltitude {
                sim = MultirotorSimulator(
                    origin: s.origin, home: spec.home, hoveringAt: altitude, configuration: spec.simulator,
                    batteryPercent: spec.batteryPercent, heading: spec.heading)
                try? navigator.handle(.hold, state: sim.state, now: 0)
            }
            return DroneRun(
                spec: spec, settings: settings, sim: sim, navigator: navigator,
                core: AvoidanceCore(configuration: mission.configuration),
                picture: [AirspaceTrack?](repeating: nil, count: n))
        }
        events = s.events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
            \.element)
        decisionEvery = max(1, Int((mission.decisionInterval / s.step).rounded()))
        publishEvery = max(1, Int((mission.communication.publishInterval / s.step).rounded()))
        let c = mission.communication
        let longest = c.maximumLatency + (c.lateProbability > 0 ? c.lateDelay.upperBound : 0)
        buckets = [[Delivery]](repeating: [], count: Int((longest / s.step).rounded(.up)) + 3)
        random = SeededRandom(seed: c.seed)
        monitor = SeparationMonitor(count: n, configuration: mission.configuration)
        measureFrom =
            mission.measureFrom ?? events.first(where: { e in
                switch e.action {
                case .command(.goto), .follow, .trajectory: return true
                default: return false
                }
            })?.time ?? 0
    }

    /// Number of drones.
    public var count: Int { drones.count }
    /// True position of drone `i` (local ENU).
    public func position(_ i: Int) -> Vector3 { drones[i].sim.truePosition }
    /// Whether drone `i` is avoiding now.
    public func isAvoiding(_ i: Int) -> Bool { drones[i].avoiding }
    /// Drone `i`'s latest avoidance decision.
    public func decision(_ i: Int) -> AvoidanceDecision { drones[i].core.decision }
    /// Drone `i`'s navigator.
    public func navigator(_ i: Int) -> Navigator { drones[i].navigator }
    /// Drone `i`'s simulator.
    public func simulator(_ i: Int) -> MultirotorSimulator { drones[i].sim }
    /// A summary of the moment, for progress output.
    public struct Status: Sendable, Hashable {
        /// Simulated time, seconds.
        public var time: Double
        /// Drones avoiding now.
        public var avoiding: Int
        /// Drones flying something other than their mission's own plan.
        public var yielding: Int
        /// Smallest separation between avoiding drones so far (as ``AvoidanceReport/minimumSeparation``).
        public var minimumSeparation: Double?
        /// Losses of separation between avoiding drones so far.
        public var violations: Int
    }

    /// Where the simulation stands.
    public var status: Status {
        Status(
            time: time, avoiding: drones.filter(\.avoiding).count,
            yielding: drones.filter {
                $0.avoiding && ($0.core.decision.maneuver != .nominal || $0.core.decision.parked)
            }.count,
            minimumSeparation: monitor.minimumSeparation.isFinite ? monitor.minimumSeparation : nil,
            violations: monitor.violations)
    }

    /// Whether the simulation has reached the scenario's duration.
    public var finished: Bool { time >= mission.scenario.duration - 1e-9 }

    /// Runs to the scenario's duration and reports.
    public mutating func run() -> AvoidanceReport {
        while !finished { step() }
        return report()
    }

    /// Whether every event has fired and every avoiding drone with a destination has been there for `for` seconds.
    public func settled(for seconds: Double = 3) -> Bool {
        guard nextEvent >= events.count else { return false }
        return drones.allSatisfy { d in
            guard d.avoiding, d.core.decision.destination != nil else { return true }
            return d.arrivedSince.map { time - $0 >= seconds } ?? false
        }
    }

    /// Runs until ``settled(for:)`` holds (checked every `checkEvery` simulated seconds) or the scenario's duration,
    /// and reports.
    public mutating func runUntilSettled(for seconds: Double = 3, checkEvery: Double = 1) -> AvoidanceReport {
        let every = max(1, Int((checkEvery / mission.scenario.step).rounded()))
        while !finished {
            step()
            if stepIndex % every == 0 && time > measureFrom && settled(for: seconds) { break }
        }
        return report()
    }

    /// Advances one scenario step.
    public mutating func step() {
        let s = mission.scenario
        let dt = s.step
        let now = Double(stepIndex) * dt
        if soloStart == nil && now >= measureFrom - 1e-9 && mission.compareSolo {
            soloStart = drones
            soloEvents = Array(events[nextEvent...])
        }
        if now >= measureFrom - 1e-9 && stepIndex == Int((measureFrom / dt).rounded()) {
            for i in drones.indices { drones[i].distanceAtStart = drones[i].sim.distanceFlown }
        }
        while nextEvent < events.count && events[nextEvent].time <= now + 1e-9 {
            let e = events[nextEvent]
            nextEvent += 1
            guard let i = drones.firstIndex(where: { $0.spec.id == e.drone }) else { continue }
            if let message = Self.apply(e.action, to: &drones[i], targets: s.targets, now: now) {
                log.append("t=\(formatFixed(now, 1)) \(e.drone) \(e.action.name): \(message)")
            }
            drones[i].decideNow = true
        }
        // Deliveries due now.
        let slot = stepIndex % buckets.count
        for d in buckets[slot] {
            if let old = drones[d.receiver].picture[d.sender], old.prediction.time >= d.track.prediction.time {
                continue
            }
            drones[d.receiver].picture[d.sender] = d.track
            delivered += 1
        }
        buckets[slot].removeAll(keepingCapacity: true)

        for i in drones.indices {
            if let lost = drones[i].settings.lostLinkAt, now >= lost - 1e-9 { drones[i].lostLink = true }
            if let t = drones[i].followTarget { drones[i].navigator.updateTarget(s.targets[t].observation(at: now)) }
            let state = drones[i].sim.state
            if let trajectory = drones[i].pendingStart, state.activity == .hovering,
                state.position.distance(to: trajectory.start.position) <= drones[i].navigator.configuration
                    .trajectoryStartTolerance / 4
            {
                drones[i].pendingStart = nil
                do { try drones[i].navigator.handle(.startTrajectory(trajectory), state: state, now: now) } catch {
                    log.append("t=\(formatFixed(now, 1)) \(drones[i].spec.id) start-trajectory: \(error)")
                }
            }
            var publish = (stepIndex + i) % publishEvery == 0
            if (stepIndex + i) % decisionEvery == 0 || drones[i].decideNow {
                drones[i].decideNow = false
                let own = AvoidanceOwnship(
                    uavNumber: drones[i].settings.uavNumber, tiebreak: UInt64(i), navigator: drones[i].navigator,
                    state: state, now: now, avoiding: drones[i].settings.avoids && !drones[i].lostLink)
                let airspace = drones[i].picture.compactMap { $0 }
                let decision = drones[i].core.decide(own: own, airspace: airspace, now: now)
                drones[i].avoiding = own.avoiding
                drones[i].navigator.adjustment = decision.adjustment
                decisions += 1
                if own.avoiding && !decision.safe {
                    unsafe += 1
                    drones[i].unsafeDecisions += 1
                }
                if decision.changed {
                    publish = true
                    drones[i].planChanges += 1
                }
            }
            drones[i].sim.setpoint = drones[i].navigator.setpoint(state: state, now: now)
            if publish { self.publish(i, state: state, now: now) }
        }
        for i in drones.indices { drones[i].sim.step(dt: dt) }
        stepIndex += 1
        time = Double(stepIndex) * dt
        observe()
    }

    /// Publishes drone `i`'s prediction to every other drone through the communication model.
    mutating func publish(_ i: Int, state: VehicleState, now: Double) {
        let d = drones[i]
        let prediction: PredictedTrajectory
        if mission.predictionSource == .model, d.avoiding, let p = modelPrediction(i, state: state, now: now) {
            prediction = p
        } else {
            prediction = d.navigator.predictedTrajectory(state: state, now: now)
        }
        let track = AirspaceTrack(
            uavNumber: d.settings.uavNumber, tiebreak: UInt64(i), avoiding: d.avoiding, prediction: prediction)
        published += 1
        let c = mission.communication
        let dt = mission.scenario.step
        for j in drones.indices where j != i {
            if c.loss > 0 && Double.random(in: 0..<1, using: &random) < c.loss {
                lost += 1
                continue
            }
            var latency =
                c.maximumLatency > c.minimumLatency
                ? Double.random(in: c.minimumLatency...c.maximumLatency, using: &random) : c.minimumLatency
            if c.lateProbability > 0 && Double.random(in: 0..<1, using: &random) < c.lateProbability {
                latency += Double.random(in: c.lateDelay, using: &random)
            }
            let due = stepIndex + max(1, Int((latency / dt).rounded(.up)))
            buckets[due % buckets.count].append(Delivery(receiver: j, sender: i, track: track))
        }
    }

    /// The prediction of drone `i`'s current plan from the avoidance motion model.
    func modelPrediction(_ i: Int, state: VehicleState, now: Double) -> PredictedTrajectory? {
        let d = drones[i]
        let own = AvoidanceOwnship(uavNumber: d.settings.uavNumber, navigator: d.navigator, state: state, now: now)
        guard let goal = own.goal else { return nil }
        let c = mission.configuration
        var plan: MotionPlan
        var a = d.navigator.adjustment ?? NavigatorAdjustment()
        if let until = a.until, until <= now { a = NavigatorAdjustment() }
        if let until = a.until {
            // A timed adjustment: its flight until `until`, then the intent unadjusted.
            var first = MotionPlan(
                target: Vector3(
                    goal.position.x + a.offset.x, goal.position.y + a.offset.y, a.altitude ?? goal.position.z),
                targetVelocity: .zero, speed: min(goal.speed, a.maxSpeed ?? goal.speed))
            if let h = a.hold {
                first = MotionPlan(target: h, targetVelocity: .zero, speed: c.limits.maxHorizontalSpeed)
            }
            plan = MotionPlan(
                target: goal.position, targetVelocity: goal.velocity, speed: goal.speed, wait: first.target,
                waitFor: until - now, waitSpeed: first.speed)
        } else if let h = a.hold, a.holdUntil == nil {
            plan = MotionPlan(target: h, targetVelocity: .zero, speed: c.limits.maxHorizontalSpeed)
        } else {
            var v = goal.velocity
            if a.altitude != nil { v.z = 0 }
            plan = MotionPlan(
                target: Vector3(
                    goal.position.x + a.offset.x, goal.position.y + a.offset.y, a.altitude ?? goal.position.z),
                targetVelocity: v, speed: min(goal.speed, a.maxSpeed ?? goal.speed))
            if let h = a.hold, let until = a.holdUntil, until > now {
                plan.wait = h
                plan.waitFor = until - now
            }
        }
        let k = c.steps + 1
        var xs = [Double](repeating: 0, count: k), ys = xs, zs = xs
        d.core.model.rollout(
            position: state.position, velocity: state.velocity, plan: plan, gridStep: c.step, count: k, xs: &xs,
            ys: &ys, zs: &zs)
        let points = (1..<k).map {
            PredictedTrajectory.Point(offset: Double($0) * c.step, position: Vector3(xs[$0], ys[$0], zs[$0]))
        }
        return PredictedTrajectory(time: now, origin: state.position, points: points)
    }

    /// Separation, geofence and arrival on the true positions.
    mutating func observe() {
        let positions = drones.map { $0.sim.truePosition }
        let airborne = drones.map { $0.sim.model.armed && !$0.sim.model.onGround }
        monitor.observe(
            positions: positions, avoiding: drones.map(\.avoiding), airborne: airborne, time: time,
            dt: mission.scenario.step,
            fence: mission.configuration.geofence)
        guard time >= measureFrom - 1e-9 else { return }
        for i in drones.indices {
            guard drones[i].avoiding, let dest = drones[i].core.decision.destination,
                positions[i].distance(to: dest) <= 1.0
            else {
                drones[i].arrivedSince = nil
                continue
            }
            if drones[i].arrivedSince == nil { drones[i].arrivedSince = time }
        }
    }

    /// Applies a scenario action to a drone, as ``Flight/ScenarioRunner`` does; returns the refusal, if any.
    static func apply(_ action: Scenario.Action, to d: inout DroneRun, targets: [Scenario.Target], now: Double)
        -> String?
    {
        let state = d.sim.state
        var follow: Int?
        var pending: Trajectory?
        let command: FlightCommand
        switch action {
        case .command(let c):
            command = c
        case .follow(let id, let offset):
            guard let t = targets.firstIndex(where: { $0.id == id }) else { return "no target with id '\(id)'" }
            d.navigator.updateTarget(targets[t].observation(at: now))
            command = .follow(offset: offset)
            follow = t
        case .trajectory(let waypoints, let limits):
            guard let trajectory = try? TrajectoryPlanner(limits: limits).plan(waypoints) else {
                return "trajectory could not be planned"
            }
            command = .goToStart(trajectory)
            pending = trajectory
        }
        do { try d.navigator.handle(command, state: state, now: now) } catch { return error.description }
        d.followTarget = follow
        d.pendingStart = pending
        return nil
    }
}
