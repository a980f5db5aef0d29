import Avoidance
import ControlProtocol
import Coordinator
import Flight
import Geodesy
import MAVLink
import MAVLinkBridge
import MeshTypes

/// A real autopilot (PX4 or ArduPilot) as a ``Vehicle``: the `AutopilotSession` core, with a navigator that mirrors
/// what the autopilot flies in a local frame (placed at its first reported position, altitudes above home) so that
/// prediction and collision avoidance treat it as any other vehicle. Frames for the autopilot leave as `send` events;
/// the session's reports become verdicts, completions and log lines.
public struct AutopilotVehicle: Vehicle {
    /// The MAVLink session with the autopilot.
    public private(set) var session: AutopilotSession
    /// How the link is named in log lines ("udpin:14601").
    public let linkName: String
    /// Mirrors the autopilot's goal in the local frame; nil until the autopilot reports a position.
    public private(set) var navigator: Navigator?
    /// Compares what was predicted with where the autopilot then was: which model is published, how uncertain.
    public internal(set) var monitor = PredictionMonitor()
    var navigation: NavigatorConfiguration
    /// What the plan was mirrored from last (a new one resets the monitor's view of the plan).
    var planKey: PlanKey = .none
    /// The mission's waypoints still ahead, in the local frame (empty: no mission).
    var missionAhead: [Vector3] = []
    /// The position of the last observation given to the monitor (a new report is observed once).
    var observed: GeoPoint?
    private var adjustment: NavigatorAdjustment?
    private var uavNumber: UInt8?
    /// Command descriptions, for the verdict's log line.
    private var labels: [CommandID: String] = [:]
    var time = 0.0

    /// A vehicle on the autopilot behind `linkName`; `autopilotSystemID` pins the autopilot's system id (nil: learn
    /// it). `navigation` describes the autopilot's flight for prediction (its cruise speed is `defaultSpeed`).
    public init(
        linkName: String, autopilotSystemID: UInt8?, navigation: NavigatorConfiguration = Self.defaultNavigation
    ) {
        var configuration = AutopilotSession.Configuration()
        configuration.autopilotSystemID = autopilotSystemID
        session = AutopilotSession(configuration: configuration)
        self.linkName = linkName
        self.navigation = navigation
    }

    /// A multirotor autopilot's defaults: 5 m/s cruise (ArduPilot's WPNAV_SPEED, PX4's MPC_XY_CRUISE), which the
    /// prediction's speed limit must allow (the simulator's 4 m/s would predict a default-speed goto 20 % short).
    public static var defaultNavigation: NavigatorConfiguration {
        var c = NavigatorConfiguration()
        c.defaultSpeed = 5
        c.limits.maxHorizontalSpeed = max(c.limits.maxHorizontalSpeed, c.defaultSpeed)
        return c
    }

    public var capabilities: VehicleCapabilities { [.link, .avoidance, .trajectories, .manualControl] }
    public var frame: MapOrigin? { navigator?.origin }
    public var telemetry: Coordinator.VehicleState? { session.vehicleState }

    // MARK: - Inputs

    public mutating func receive(_ bytes: [UInt8], endOfDatagram: Bool, now: MeshInstant) -> [VehicleEvent] {
        carry(session.receive(bytes, endOfDatagram: endOfDatagram, now: now), now: now)
    }

    public mutating func advance(to now: MeshInstant) -> [VehicleEvent] {
        time = Double(now.nanoseconds) / 1e9
        let events = carry(session.tick(now: now), now: now)
        monitorPrediction(now: time)
        return events
    }

    public mutating func execute(_ id: CommandID, _ command: Command, now: MeshInstant) -> [VehicleEvent] {
        labels[id] = command.summary
        return carry(session.execute(id, command, now: now), now: now)
    }

    public mutating func applyTarget(_ location: GeoPoint, now: MeshInstant) -> [VehicleEvent] {
        if let local = local(location) {
            navigator?.updateTarget(TargetObservation(time: Double(now.nanoseconds) / 1e9, position: local))
        }
        return carry(session.applyTarget(location, now: now), now: now)
    }

    public mutating func applyManualControl(_ sample: Coordinator.ManualControl, now: MeshInstant) -> [VehicleEvent] {
        carry(session.applyManualControl(sample, now: now), now: now)
    }

    public mutating func failsafe(_ action: FailsafeAction, now: MeshInstant) -> [VehicleEvent] {
        carry(session.failsafe(action, now: now), now: now)
    }

    public mutating func adjust(_ adjustment: NavigatorAdjustment?, now: MeshInstant) -> [VehicleEvent] {
        if adjustment != self.adjustment { monitor.planAdjusted() }
        self.adjustment = adjustment
        navigator?.adjustment = adjustment
        return carry([], now: now)
    }

    public mutating func setUAVNumber(_ number: UInt8?) -> [VehicleEvent] {
        uavNumber = number
        guard let number, let id = session.identity else { return [] }
        return [mapping(number, id)]
    }

    // MARK: - Reports

    /// The mirrored plan predicted (the goal, takeoff, landing, return or mission at the autopilot's speeds) while
    /// the monitor finds the autopilot flying it; otherwise the measured velocity extrapolated. Either carries the
    /// monitor's uncertainty.
    public func prediction(avoiding: Bool, now: MeshInstant) -> TrajectoryPrediction? {
        if monitor.trustsPlan, let navigator, let state = localState(),
            let plan = planPrediction(state: state, now: Double(now.nanoseconds) / 1e9)
        {
            return TrajectoryPrediction(
                plan, step: navigation.predictionStep, origin: navigator.origin, avoiding: avoiding,
                uncertainty: monitor.uncertainty)
        }
        guard var p = session.prediction() else { return nil }
        p.avoiding = avoiding
        p.uncertainty = monitor.uncertainty
        return p
    }

    public func ownship(uavNumber: Int, tiebreak: UInt64, now: MeshInstant, avoiding: Bool) -> AvoidanceOwnship? {
        guard let navigator, let state = localState() else { return nil }
        return AvoidanceOwnship(
            uavNumber: uavNumber, tiebreak: tiebreak, navigator: navigator, state: state,
            now: Double(now.nanoseconds) / 1e9, avoiding: avoiding)
    }

    public func linkStatus(now: MeshInstant) -> AutopilotReport? {
        let s = session
        return AutopilotReport(
            link: linkName, connected: s.identity != nil && !s.isSilent, silent: s.isSilent,
            autopilot: s.identity?.flavour.rawValue, systemID: s.identity.map { Int($0.systemID) },
            componentID: s.identity.map { Int($0.componentID) }, mode: s.modeName,
            armed: s.identity == nil ? nil : s.telemetry.armed, linkQuality: Int(s.linkQuality),
            lastHeartbeatMsAgo: s.heartbeatAge(now: now).map {
                Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)
            },
            framesSent: 0, framesDropped: 0)
    }

    /// The autopilot's state in the local frame (altitudes above home); nil before its first position.
    public func localState() -> Flight.VehicleState? {
        guard let navigator, let t = session.vehicleState, let position = local(t.position, in: navigator.origin)
        else { return nil }
        return Flight.VehicleState(
            position: position,
            velocity: Vector3(
                east: Double(t.velocityEastCmS) / 100, north: Double(t.velocityNorthCmS) / 100,
                up: -Double(t.velocityDownCmS) / 100),
            heading: Double(t.headingCentidegrees) / 100, armed: t.armed, activity: t.activity,
            batteryPercent: Double(t.batteryPercent), home: .zero)
    }

    // MARK: - Mirroring and steering

    /// Brings the navigator in line with the session's goal, then steers the autopilot by the adjustment.
    private mutating func mirrorAndSteer(now: MeshInstant) -> [AutopilotSession.Directive] {
        if navigator == nil, let p = session.telemetry.position,
            let origin = try? MapOrigin(latitude: p.latitude, longitude: p.longitude)
        {
            // The firmwares' default return altitudes (ArduPilot RTL_ALT 15 m, PX4 RTL_RETURN_ALT 60 m).
            navigation.returnAltitude = session.identity?.flavour == .px4 ? 60 : 15
            navigator = Navigator(origin: origin, configuration: navigation)
            navigator?.adjustment = adjustment
        }
        guard var nav = navigator else { return [] }
        mirror(session.plannedFlight, into: &nav)
        navigator = nav
        guard let adjustment, !adjustment.isNeutral, nav.acceptsAdjustment, let state = localState() else {
            return session.steer(to: nil, speed: nil, now: now)
        }
        var copy = nav
        switch copy.setpoint(state: state, now: Double(now.nanoseconds) / 1e9) {
        case .hold(let p):
            return session.steer(to: GeoPoint(p, origin: nav.origin), speed: nil, now: now)
        case .position(let target, _, let speed, _, _):
            return session.steer(
                to: GeoPoint(target, origin: nav.origin), speed: adjustment.maxSpeed == nil ? nil : speed, now: now)
        default:
            return session.steer(to: nil, speed: nil, now: now)
        }
    }

    func local(_ p: GeoPoint) -> Vector3? { navigator.flatMap { local(p, in: $0.origin) } }

    // MARK: - Directives to events

    private func mapping(_ n: UInt8, _ id: AutopilotSession.Identity) -> VehicleEvent {
        if id.systemID == n { return .log(.info, "autopilot system id \(id.systemID) is the UAV number") }
        return .log(
            .notice,
            "autopilot system id \(id.systemID) differs from UAV number \(n): the mesh and ground-control software see UAV \(n); the bridge addresses system \(id.systemID) on the autopilot link"
        )
    }

    private mutating func carry(_ directives: [AutopilotSession.Directive], now: MeshInstant) -> [VehicleEvent] {
        var events: [VehicleEvent] = []
        for d in directives + mirrorAndSteer(now: now) {
            switch d {
            case .send(let bytes):
                events.append(.send(bytes))
            case .verdict(let id, let verdict):
                events.append(.verdict(id, verdict, label: labels.removeValue(forKey: id) ?? "command"))
            case .completion(let id, .completed):
                events.append(.completed(id))
            case .completion(let id, .failed(let why)):
                events.append(.failed(id, why))
            case .flyingChanged(let flying):
                events.append(.flyingChanged(flying))
            case .connected(let identity):
                events.append(.log(.notice, "autopilot connected: \(identity) on \(linkName)"))
                if let n = uavNumber { events.append(mapping(n, identity)) }
            case .silent(let since):
                events.append(
                    .log(
                        .warning,
                        "autopilot silent: no HEARTBEAT for \(since); commands are refused until it is heard again"))
            case .modeChanged(let mode):
                events.append(.log(.info, "autopilot mode \(mode)"))
            case .statusText(let severity, let text):
                let level: VehicleLogLevel
                switch severity.rawValue {
                case 0...3: level = .error
                case 4: level = .warning
                case 5: level = .notice
                default: level = .info
                }
                events.append(.log(level, "autopilot says: \(text)"))
            case .note(let text):
                events.append(.log(.notice, "autopilot: \(text)"))
            case .released(let why):
                events.append(
                    .log(
                        .warning,
                        "\(why): the node stops commanding the autopilot and this drone does not avoid others (they keep away from it) until the next command"
                    ))
            }
        }
        return events
    }
}
