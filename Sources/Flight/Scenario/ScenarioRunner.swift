import Geodesy

/// Progress of a running scenario, reported every ``Scenario/progressInterval`` simulated seconds.
public struct ScenarioProgress: Sendable {
    /// Simulated time, seconds.
    public var time: Double
    /// Each drone's telemetry, in scenario order.
    public var drones: [(id: String, telemetry: Telemetry)]
    /// Events and command rejections since the last progress report.
    public var log: [String]
}

/// Outcome of a scenario for one drone.
public struct DroneReport: Sendable, Codable, Hashable {
    /// Drone identifier.
    public var id: String
    /// Distance flown (true path), metres.
    public var distanceFlown: Double
    /// Time airborne, seconds.
    public var flightTime: Double
    /// Final position, local ENU.
    public var finalPosition: Vector3
    /// Final latitude/longitude/altitude.
    public var finalCoordinate: GeodeticCoordinate
    /// Where the last accepted command should have left the drone (nil before any command).
    public var expectedPosition: Vector3?
    /// Distance between final and expected positions, metres.
    public var finalPositionError: Double?
    /// Battery left, percent.
    public var batteryPercent: Double
    /// Final activity.
    public var activity: Activity
    /// Commands the navigator refused: "t=12.0 goto: not airborne".
    public var rejections: [String]
}

/// The outcome of a scenario.
public struct ScenarioReport: Sendable, Codable, Hashable {
    /// Scenario name.
    public var name: String
    /// Simulated seconds.
    public var simulatedTime: Double
    /// Per-drone outcomes, in scenario order.
    public var drones: [DroneReport]
}

/// Runs a ``Scenario`` faster than real time: every step each drone's navigator produces a setpoint and its
/// simulator advances; events fire at their times; followed targets report every step.
public struct ScenarioRunner: Sendable {
    /// The scenario run.
    public let scenario: Scenario

    struct DroneRun: Sendable {
        var spec: Scenario.Drone
        var sim: MultirotorSimulator
        var navigator: Navigator
        var followTarget: Int?
        var followOffset: Vector3 = .zero
        var pendingStart: Trajectory?
        var expected: Vector3?
        var rejections: [String] = []
    }

    /// Checks the scenario (unique ids, known drones and targets, sensible times) and prepares it.
    public init(scenario: Scenario) throws(ScenarioError) {
        guard scenario.duration > 0, scenario.duration.isFinite else {
            throw ScenarioError(key: "duration", problem: "must be a positive number of seconds")
        }
        guard scenario.step > 0, scenario.step <= 1 else {
            throw ScenarioError(key: "step", problem: "must be in (0, 1] seconds, found \(scenario.step)")
        }
        guard !scenario.drones.isEmpty else {
            throw ScenarioError(key: "drones", problem: "at least one drone is needed")
        }
        var ids = Set<String>()
        for (i, d) in scenario.drones.enumerated() where !ids.insert(d.id).inserted {
            throw ScenarioError(key: "drones[\(i)].id", problem: "duplicate drone id '\(d.id)'")
        }
        let targetIDs = Set(scenario.targets.map(\.id))
        for (i, e) in scenario.events.enumerated() {
            guard ids.contains(e.drone) else {
                throw ScenarioError(key: "events[\(i)].drone", problem: "no drone with id '\(e.drone)'")
            }
            guard e.time >= 0, e.time.isFinite else {
                throw ScenarioError(key: "events[\(i)].at", problem: "time must be ≥ 0")
            }
            if case .follow(let t, _) = e.action, !targetIDs.contains(t) {
                throw ScenarioError(key: "events[\(i)].target", problem: "no target with id '\(t)'")
            }
            if case .trajectory(let w, let limits) = e.action {
                do { _ = try TrajectoryPlanner(limits: limits).plan(w) } catch {
                    throw ScenarioError(key: "events[\(i)].waypoints", problem: error.description)
                }
            }
        }
        self.scenario = scenario
    }

    /// Runs to the end, calling `progress` every progress interval and at the end.
    public func run(progress: (ScenarioProgress) -> Void = { _ in }) -> ScenarioReport {
        let s = scenario
        var drones = s.drones.map { d in
            DroneRun(
                spec: d,
                sim: MultirotorSimulator(
                    origin: s.origin, home: d.home, configuration: d.simulator, batteryPercent: d.batteryPercent,
                    heading: d.heading),
                navigator: Navigator(origin: s.origin, configuration: d.navigator))
        }
        let index = Dictionary(uniqueKeysWithValues: s.drones.enumerated().map { ($1.id, $0) })
        let events = s.events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
            \.element)
        var nextEvent = 0
        var log: [String] = []
        let steps = Int((s.duration / s.step).rounded())
        let progressEvery = max(1, Int((s.progressInterval / s.step).rounded()))
        for k in 0...steps {
            let now = Double(k) * s.step
            while nextEvent < events.count && events[nextEvent].time <= now + 1e-9 {
                let e = events[nextEvent]
                nextEvent += 1
                let i = index[e.drone]!
                if let message = Self.apply(e.action, to: &drones[i], targets: s.targets, now: now) {
                    drones[i].rejections.append("t=\(fmt1(now)) \(e.action.name): \(message)")
                    log.append("t=\(fmt1(now)) \(e.drone) \(e.action.name) rejected: \(message)")
                } else {
                    log.append("t=\(fmt1(now)) \(e.drone) \(e.action.name)")
                }
            }
            if k % progressEvery == 0 || k == steps {
                progress(ScenarioProgress(time: now, drones: drones.map { ($0.spec.id, $0.sim.telemetry) }, log: log))
                log.removeAll()
            }
            if k == steps { break }
            for i in drones.indices {
                if let t = drones[i].followTarget {
                    drones[i].navigator.updateTarget(s.targets[t].observation(at: now))
                }
                let state = drones[i].sim.state
                if let trajectory = drones[i].pendingStart, state.activity == .hovering,
                    state.position.distance(to: trajectory.start.position) <= drones[i].navigator.configuration
                        .trajectoryStartTolerance / 4
                {
                    drones[i].pendingStart = nil
                    do {
                        try drones[i].navigator.handle(.startTrajectory(trajectory), state: state, now: now)
                        log.append("t=\(fmt1(now)) \(drones[i].spec.id) trajectory started")
                    } catch {
                        drones[i].rejections.append("t=\(fmt1(now)) start-trajectory: \(error)")
                    }
                }
                drones[i].sim.setpoint = drones[i].navigator.setpoint(state: state, now: now)
                if case .returnHome(lowBattery: true) = drones[i].navigator.intent, drones[i].expected != state.home {
                    // The battery failsafe took over: the drone should end at home.
                    drones[i].expected = state.home
                    drones[i].followTarget = nil
                    drones[i].pendingStart = nil
                    log.append(
                        "t=\(fmt1(now)) \(drones[i].spec.id) low battery (\(formatFixed(state.batteryPercent, 1)) %): returning home"
                    )
                }
                drones[i].sim.step(dt: s.step)
            }
        }
        let end = Double(steps) * s.step
        let reports = drones.map { d -> DroneReport in
            var expected = d.expected
            if let t = d.followTarget { expected = s.targets[t].observation(at: end).position + d.followOffset }
            let position = d.sim.truePosition
            return DroneReport(
                id: d.spec.id, distanceFlown: d.sim.distanceFlown, flightTime: d.sim.airborneTime,
                finalPosition: position, finalCoordinate: s.origin.geodetic(position.localPosition),
                expectedPosition: expected, finalPositionError: expected.map { position.distance(to: $0) },
                batteryPercent: d.sim.batteryPercent, activity: d.sim.state.activity, rejections: d.rejections)
        }
        return ScenarioReport(name: s.name, simulatedTime: end, drones: reports)
    }

    /// Applies an action; returns the rejection text, or nil when accepted.
    static func apply(_ action: Scenario.Action, to d: inout DroneRun, targets: [Scenario.Target], now: Double)
        -> String?
    {
        let state = d.sim.state
        let command: FlightCommand
        var expected: Vector3?
        var follow: (Int, Vector3)?
        var pending: Trajectory?
        switch action {
        case .command(let c):
            command = c
            switch c {
            case .takeoff(let alt): expected = Vector3(state.position.x, state.position.y, state.home.z + alt)
            case .land: expected = Vector3(state.position.x, state.position.y, state.home.z)
            case .hold: expected = state.position
            case .goto(let loc, _):
                switch loc {
                case .local(let v): expected = v
                case .geodetic(let g): expected = (try? d.navigator.origin.local(g)).map { Vector3($0) }
                }
            case .goToStart(let t): expected = t.start.position
            case .startTrajectory(let t): expected = t.end.position
            case .returnHome: expected = state.home
            case .follow: expected = nil
            }
        case .follow(let id, let offset):
            let t = targets.firstIndex { $0.id == id }!
            d.navigator.updateTarget(targets[t].observation(at: now))
            command = .follow(offset: offset)
            follow = (t, offset)
        case .trajectory(let waypoints, let limits):
            guard let trajectory = try? TrajectoryPlanner(limits: limits).plan(waypoints) else {
                return "trajectory could not be planned"
            }
            command = .goToStart(trajectory)
            expected = trajectory.end.position
            pending = trajectory
        }
        do {
            try d.navigator.handle(command, state: state, now: now)
        } catch {
            return error.description
        }
        d.followTarget = follow?.0
        d.followOffset = follow?.1 ?? .zero
        d.pendingStart = pending
        if follow == nil { d.expected = expected }
        return nil
    }
}

func fmt1(_ v: Double) -> String { formatFixed(v, 1) }
