import Avoidance
import ControlProtocol
import Coordinator
import Flight
import Geodesy
import MeshTypes

/// The built-in simulator as a ``Vehicle``: a `MultirotorSimulator` flown by a `Navigator`. A value type with time
/// passed in; it maps the coordinator's commands, targets, manual control and failsafe actions onto flight commands
/// and reports when the commands it accepted are done.
public struct SimulatedVehicle: Vehicle {
    /// How a command the vehicle accepted finishes.
    enum Completion: Equatable {
        /// Done when the navigator holds position after the climb.
        case airborneHold
        /// Done when on the ground and disarmed.
        case landed
        /// Done when the navigator holds position at the goto target.
        case arrived
    }

    public let origin: MapOrigin
    public let home: Vector3
    public private(set) var simulator: MultirotorSimulator
    public private(set) var navigator: Navigator
    public private(set) var time: Double = 0
    public private(set) var flying = false
    private var pending: [(id: CommandID, completion: Completion)] = []

    /// A landed vehicle `offset` metres (east, north) from the home at `latitude`, `longitude`, which is the map
    /// origin.
    public init(latitude: Double, longitude: Double, offset: (east: Double, north: Double)) throws(GeodesyError) {
        origin = try MapOrigin(latitude: latitude, longitude: longitude)
        home = Vector3(offset.east, offset.north, 0)
        simulator = MultirotorSimulator(origin: origin, home: home)
        navigator = Navigator(origin: origin)
    }

    /// A small per-node start offset (−40…40 m east and north in 2 m steps), so drones do not start stacked.
    public static func startOffset(for node: NodeID) -> (east: Double, north: Double) {
        let v = node.low ^ (node.high &* 0x9E37_79B9_7F4A_7C15)
        return (Double(Int(v % 41) - 20) * 2, Double(Int((v / 41) % 41) - 20) * 2)
    }

    // MARK: - Time

    public var capabilities: VehicleCapabilities { [.avoidance, .trajectories, .manualControl] }
    public var frame: MapOrigin? { origin }

    /// Advances to `now`: one navigator setpoint, then the simulator in ≤ 20 ms substeps.
    public mutating func advance(to instant: MeshInstant) -> [VehicleEvent] {
        let now = instant.seconds
        let dt = min(max(0, now - time), 0.5)
        guard dt > 0 else { return [] }
        simulator.setpoint = navigator.setpoint(state: simulator.state, now: time)
        simulator.step(dt: dt)
        time = now
        var events: [VehicleEvent] = []
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
    public mutating func execute(_ id: CommandID, _ command: Command, now: MeshInstant) -> [VehicleEvent] {
        let (verdict, events) = start(id, command)
        // The verdict leaves before any completion the vehicle reported at once (hover, follow).
        return [.verdict(id, verdict, label: command.summary)] + events
    }

    public mutating func receive(_ bytes: [UInt8], endOfDatagram: Bool, now: MeshInstant) -> [VehicleEvent] { [] }

    public mutating func setUAVNumber(_ number: UInt8?) -> [VehicleEvent] { [] }

    public func linkStatus(now: MeshInstant) -> AutopilotReport? { nil }

    mutating func start(_ id: CommandID, _ command: Command) -> (verdict: VehicleVerdict, events: [VehicleEvent]) {
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
                .geodetic(p.geodetic),
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
        case .trajectory(let waypoints, let stops):
            switch planTrajectory(through: waypoints, stops: stops) {
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
        var events = pending.map { VehicleEvent.failed($0.id, "superseded by \(command.summary)") }
        pending.removeAll()
        if let completion { pending.append((id, completion)) } else { events.append(.completed(id)) }
        return (.accepted, events)
    }

    /// A trajectory from where the vehicle is now through `waypoints` (planned with the navigator's default speed, by
    /// `TrajectoryPlanner.commandedFlight`, as the station's preview plans it), or the reason it cannot be flown.
    public func planTrajectory(through waypoints: [GeoPoint], stops: [TrajectoryStop] = []) -> Result<
        Trajectory, RejectionText
    > {
        guard simulator.state.isAirborne else { return .failure(RejectionText("not airborne")) }
        var at: [Int: TrajectoryPlanner.Stop] = [:]
        for s in stops { at[Int(s.index)] = .init(heading: s.heading, hold: s.hold) }
        do {
            return .success(
                try TrajectoryPlanner.commandedFlight(
                    from: simulator.state.position, heading: simulator.state.heading,
                    through: waypoints.map(\.geodetic), on: origin, stops: at, navigation: navigator.configuration))
        } catch {
            return .failure(RejectionText("\(error)"))
        }
    }

    /// A rejection reason as an error value.
    public struct RejectionText: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// A target for this drone: followed if the navigator is following, else flown to when airborne.
    public mutating func applyTarget(_ location: GeoPoint, now: MeshInstant) -> [VehicleEvent] {
        guard
            let local = try? origin.local(
                GeodeticCoordinate(
                    latitude: location.latitude, longitude: location.longitude, altitude: location.altitude))
        else { return [] }
        navigator.updateTarget(TargetObservation(time: time, position: Vector3(local)))
        if case .follow = navigator.intent { return [] }
        return interrupt(with: .goto(.local(Vector3(local)), speed: nil), reason: "superseded by a target")
    }

    public func ownship(uavNumber: Int, tiebreak: UInt64, now: MeshInstant, avoiding: Bool) -> AvoidanceOwnship? {
        AvoidanceOwnship(
            uavNumber: uavNumber, tiebreak: tiebreak, navigator: navigator, state: simulator.state, now: time,
            avoiding: avoiding)
    }

    public mutating func adjust(_ adjustment: NavigatorAdjustment?, now: MeshInstant) -> [VehicleEvent] {
        navigator.adjustment = adjustment
        return []
    }

    /// Manual control: a small velocity nudge (up to 2 m per sample along each axis) when airborne, ignored on the ground.
    public mutating func applyManualControl(_ sample: ManualControl, now: MeshInstant) -> [VehicleEvent] {
        let s = simulator.state
        guard s.isAirborne else { return [] }
        let nudge = Vector3(Double(sample.y), Double(sample.x), Double(sample.z)) * (2.0 / 1000)
        if nudge.length < 0.05 { return interrupt(with: .hold, reason: "superseded by manual control") }
        return interrupt(with: .goto(.local(s.position + nudge), speed: 2), reason: "superseded by manual control")
    }

    /// The coordinator's failsafe action.
    public mutating func failsafe(_ action: FailsafeAction, now: MeshInstant) -> [VehicleEvent] {
        switch action {
        case .hover: return interrupt(with: .hold, reason: "failsafe: hover")
        case .returnHome: return interrupt(with: .returnHome, reason: "failsafe: return home")
        case .land: return interrupt(with: .land, reason: "failsafe: land")
        }
    }

    private mutating func interrupt(with command: FlightCommand, reason: String) -> [VehicleEvent] {
        guard (try? navigator.handle(command, state: simulator.state, now: time)) != nil else { return [] }
        let events = pending.map { VehicleEvent.failed($0.id, reason) }
        pending.removeAll()
        return events
    }

    // MARK: - Reports

    /// The state as published in telemetry.
    public var telemetry: Coordinator.VehicleState? {
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
            activity: s.activity, armed: s.armed, linkQuality: 100)
    }

    /// The navigator's predicted trajectory, as published to the airspace picture.
    public func prediction(avoiding: Bool, now: MeshInstant) -> TrajectoryPrediction? {
        TrajectoryPrediction(navigator, state: simulator.state, now: time, avoiding: avoiding)
    }
}

extension MeshInstant {
    /// Seconds since the clock's zero: the time vehicles and avoidance reason in.
    var seconds: Double { Double(nanoseconds) / 1e9 }
}
