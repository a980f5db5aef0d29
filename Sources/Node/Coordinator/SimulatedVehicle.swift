import Avoidance
import Coordinator
import Flight
import Geodesy
import MeshTypes

/// A drone node's vehicle: a `MultirotorSimulator` flown by a `Navigator`, stepped in real time by the coordinator
/// shell. A value type with time passed in; it maps the coordinator's commands, targets, manual control and failsafe
/// actions onto flight commands and reports when the commands it accepted are done.
struct SimulatedVehicle {
    /// How a command the vehicle accepted finishes.
    enum Completion: Equatable {
        /// Done when the navigator holds position after the climb.
        case airborneHold
        /// Done when on the ground and disarmed.
        case landed
        /// Done when the navigator holds position at the goto target.
        case arrived
    }

    /// Something the coordinator must be told after a step.
    enum Event: Equatable {
        case flyingChanged(Bool)
        case completed(CommandID)
        case failed(CommandID, String)
    }

    let origin: MapOrigin
    let home: Vector3
    private(set) var simulator: MultirotorSimulator
    private(set) var navigator: Navigator
    private(set) var time: Double = 0
    private(set) var flying = false
    private var pending: [(id: CommandID, completion: Completion)] = []
    /// Collision avoidance (nil: off); run by `avoid(tracks:uavNumber:tiebreak:)` every control cycle.
    var avoidance: AvoidanceCore?
    /// The latest avoidance decision.
    private(set) var decision: AvoidanceDecision = .notAvoiding
    /// Manual control suspends avoidance (the pilot flies) until this time, seconds.
    private var manualUntil = -Double.infinity

    /// A landed vehicle `offset` metres (east, north) from `homeLocation`, which is the map origin.
    init(home homeLocation: HomeLocation, offset: (east: Double, north: Double)) throws(GeodesyError) {
        origin = try MapOrigin(latitude: homeLocation.latitude, longitude: homeLocation.longitude)
        home = Vector3(offset.east, offset.north, 0)
        simulator = MultirotorSimulator(origin: origin, home: home)
        navigator = Navigator(origin: origin)
    }

    /// A small per-node start offset (−40…40 m east and north in 2 m steps), so drones do not start stacked.
    static func startOffset(for node: NodeID) -> (east: Double, north: Double) {
        let v = node.low ^ (node.high &* 0x9E37_79B9_7F4A_7C15)
        return (Double(Int(v % 41) - 20) * 2, Double(Int((v / 41) % 41) - 20) * 2)
    }

    // MARK: - Time

    /// Advances to `now` (seconds on the shell's clock): one navigator setpoint, then the simulator in ≤ 20 ms substeps.
    mutating func advance(to now: Double) -> [Event] {
        let dt = min(max(0, now - time), 0.5)
        guard dt > 0 else { return [] }
        simulator.setpoint = navigator.setpoint(state: simulator.state, now: time)
        simulator.step(dt: dt)
        time = now
        var events: [Event] = []
        let state = simulator.state
        if state.isAirborne != flying {
            flying = state.isAirborne
            events.append(.flyingChanged(flying))
        }
        if let f = simulator.failsafe {
            for p in pending { events.append(.failed(p.id, "battery failsafe (\(f.rawValue))")) }
            pending.removeAll()
        }
        pending.removeAll { p in
            let done: Bool
            switch p.completion {
            case .airborneHold:
                if case .hold = navigator.intent { done = state.isAirborne } else { done = false }
            case .landed:
                done = state.activity == .landed && !state.armed
            case .arrived:
                if case .hold = navigator.intent { done = true } else { done = false }
            }
            if done { events.append(.completed(p.id)) }
            return done
        }
        return events
    }

    // MARK: - Commands

    /// Validates and starts a command. Accepted commands that finish at once are reported in `immediate`; a command
    /// that replaces one still running fails the older one ("superseded by …").
    mutating func execute(_ id: CommandID, _ command: Command) -> (verdict: VehicleVerdict, events: [Event]) {
        let flight: FlightCommand
        let completion: Completion?
        switch command {
        case .takeoff(let mm):
            flight = .takeoff(altitude: Double(mm) / 1000)
            completion = .airborneHold
        case .land:
            flight = .land
            completion = .landed
        case .hover:
            flight = .hold
            completion = nil
        case .goto(let p, let speed):
            flight = .goto(
                .geodetic(GeodeticCoordinate(latitude: p.latitude, longitude: p.longitude, altitude: p.altitude)),
                speed: speed == 0 ? nil : Double(speed) / 100)
            completion = .arrived
        case .returnToLaunch:
            flight = .returnHome
            completion = .landed
        case .followTarget(true):
            flight = .follow(offset: .zero)
            completion = nil
        case .followTarget(false):
            flight = .hold
            completion = nil
        case .trajectory(let waypoints):
            switch planTrajectory(through: waypoints) {
            case .success(let trajectory):
                flight = .startTrajectory(trajectory)
                completion = .arrived
            case .failure(let reason): return (.rejected(reason.description), [])
            }
        }
        do {
            try navigator.handle(flight, state: simulator.state, now: time)
        } catch {
            return (.rejected(error.description), [])
        }
        var events = pending.map { Event.failed($0.id, "superseded by \(FleetCommandParser.describe(command))") }
        pending.removeAll()
        if let completion { pending.append((id, completion)) } else { events.append(.completed(id)) }
        return (.accepted, events)
    }

    /// A trajectory from where the vehicle is now through `waypoints` (planned with the navigator's default speed),
    /// or the reason it cannot be flown.
    func planTrajectory(through waypoints: [GeoPoint]) -> Result<Trajectory, RejectionText> {
        guard simulator.state.isAirborne else { return .failure(RejectionText("not airborne")) }
        guard !waypoints.isEmpty else { return .failure(RejectionText("trajectory has no waypoints")) }
        var local = [simulator.state.position]
        for (i, w) in waypoints.enumerated() {
            do {
                local.append(
                    Vector3(
                        try origin.local(
                            GeodeticCoordinate(latitude: w.latitude, longitude: w.longitude, altitude: w.altitude))))
            } catch {
                return .failure(RejectionText("trajectory waypoint \(i + 1) is not on the map: \(error)"))
            }
        }
        var limits = TrajectoryPlanner.Limits()
        limits.maxSpeed = navigator.configuration.defaultSpeed
        do {
            return .success(try TrajectoryPlanner(limits: limits).plan(local, initialHeading: simulator.state.heading))
        } catch {
            return .failure(RejectionText("trajectory cannot be planned: \(error)"))
        }
    }

    /// A rejection reason as an error value.
    struct RejectionText: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A target for this drone: followed if the navigator is following, else flown to when airborne.
    mutating func applyTarget(_ target: Target) -> [Event] {
        guard
            let local = try? origin.local(
                GeodeticCoordinate(
                    latitude: target.location.latitude,
                    longitude: target.location.longitude,
                    altitude: target.location.altitude))
        else { return [] }
        navigator.updateTarget(TargetObservation(time: time, position: Vector3(local)))
        if case .follow = navigator.intent { return [] }
        return interrupt(with: .goto(.local(Vector3(local)), speed: nil), reason: "superseded by a target")
    }

    /// One avoidance cycle against the other drones' tracks (in this vehicle's local frame and clock): the decision
    /// becomes the navigator's adjustment. Returns true when the plan changed, so the new prediction is published at
    /// once.
    mutating func avoid(tracks: [AirspaceTrack], uavNumber: Int, tiebreak: UInt64) -> Bool {
        guard var core = avoidance else { return false }
        let own = AvoidanceOwnship(
            uavNumber: uavNumber, tiebreak: tiebreak, navigator: navigator, state: simulator.state,
            now: time, avoiding: time >= manualUntil)
        decision = core.decide(own: own, airspace: tracks, now: time)
        avoidance = core
        navigator.adjustment = decision.adjustment
        return decision.changed
    }

    /// Whether the vehicle avoids others right now (what its prediction tells them).
    var isAvoiding: Bool {
        if case .notAvoiding = decision.maneuver { return false }
        return avoidance != nil
    }

    /// Manual control: a small velocity nudge (up to 2 m per sample along each axis) when airborne, ignored on the ground.
    mutating func applyManualControl(_ sample: ManualControl) -> [Event] {
        let s = simulator.state
        guard s.isAirborne else { return [] }
        // The pilot flies: avoidance stands aside for a second after each sample, and other drones are told so.
        manualUntil = time + 1
        navigator.adjustment = nil
        decision = .notAvoiding
        let nudge = Vector3(Double(sample.y), Double(sample.x), Double(sample.z)) * (2.0 / 1000)
        if nudge.length < 0.05 { return interrupt(with: .hold, reason: "superseded by manual control") }
        return interrupt(with: .goto(.local(s.position + nudge), speed: 2), reason: "superseded by manual control")
    }

    /// The coordinator's failsafe action.
    mutating func failsafe(_ action: FailsafeAction) -> [Event] {
        switch action {
        case .hover: return interrupt(with: .hold, reason: "failsafe: hover")
        case .returnHome: return interrupt(with: .returnHome, reason: "failsafe: return home")
        case .land: return interrupt(with: .land, reason: "failsafe: land")
        }
    }

    private mutating func interrupt(with command: FlightCommand, reason: String) -> [Event] {
        guard (try? navigator.handle(command, state: simulator.state, now: time)) != nil else { return [] }
        let events = pending.map { Event.failed($0.id, reason) }
        pending.removeAll()
        return events
    }

    // MARK: - Reports

    /// The state as published in telemetry.
    var coordinatorState: Coordinator.VehicleState {
        let s = simulator.state
        let g = origin.geodetic(s.position.localPosition)
        let heading = ((Int((s.heading * 100).rounded()) % 36000) + 36000) % 36000
        return Coordinator.VehicleState(
            position: GeoPoint(latitude: g.latitude, longitude: g.longitude, altitude: s.position.z),
            velocityNorthCmS: Int16(clamping: Int((s.velocity.y * 100).rounded())),
            velocityEastCmS: Int16(clamping: Int((s.velocity.x * 100).rounded())),
            velocityDownCmS: Int16(clamping: Int((-s.velocity.z * 100).rounded())),
            headingCentidegrees: UInt16(heading),
            batteryPercent: UInt8(max(0, min(100, s.batteryPercent.rounded()))),
            activity: Self.activity(s.activity), armed: s.armed, linkQuality: 100)
    }

    /// The navigator's predicted trajectory, as published to the airspace picture.
    var prediction: TrajectoryPrediction {
        let p = navigator.predictedTrajectory(state: simulator.state, now: time)
        let step = UInt16(max(1, min(65_535, (navigator.configuration.predictionStep * 1000).rounded())))
        let points = p.points.prefix(255).map { point -> GeoPoint in
            let g = origin.geodetic(point.position.localPosition)
            return GeoPoint(latitude: g.latitude, longitude: g.longitude, altitude: point.position.z)
        }
        return TrajectoryPrediction(stepMilliseconds: step, points: points, avoiding: isAvoiding)
    }

    static func activity(_ a: Activity) -> VehicleActivity {
        switch a {
        case .landed: return .landed
        case .takingOff: return .takingOff
        case .hovering: return .hovering
        case .flyingToTarget: return .flyingToTarget
        case .following: return .following
        case .followingTrajectory: return .followingTrajectory
        case .landing: return .landing
        case .returning: return .returning
        }
    }
}
