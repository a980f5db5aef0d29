import Coordinator
import MAVLink
import MeshTypes

extension AutopilotSession {
    // MARK: - Commands from the mesh

    /// A command from the mesh: refused at once (not connected, silent, not airborne, …) or turned into a plan of
    /// autopilot messages. The verdict follows when the autopilot has acknowledged every step (or refused one).
    public mutating func execute(_ id: CommandID, _ command: Command, now: MeshInstant) -> [Directive] {
        if let why = refusal(for: command, now: now) { return [.verdict(id, .rejected(why))] }
        let plan = makePlan(for: command, id: id, label: command.summary)
        return start(plan, now: now)
    }

    /// A target from the mesh: the new setpoint while following; otherwise an airborne vehicle flies to it.
    public mutating func applyTarget(_ location: GeoPoint, now: MeshInstant) -> [Directive] {
        lastTarget = location
        guard let target = targetSystemID, !isSilent, flying else { return [] }
        if following {
            if steering != nil { return [] }  // avoidance steers; the target is the goal it steers around
            if setpoint != nil {
                setpoint = location  // PX4 OFFBOARD: the stream carries it from the next tick
                return []
            }
            return [frame(positionTarget(location, target: target, now: now))]
        }
        if let p = plan, p.id != nil { return [] }  // a mesh command is being set up: it wins
        return start(makePlan(for: .goto(location, speedCmS: 0), id: nil, label: "a target"), now: now)
    }

    /// Manual control from the mesh (MANUAL_CONTROL scale; z −1000…1000 with 0 = hold altitude): sent as
    /// MANUAL_CONTROL with z on the autopilots' 0…1000 scale (500 = hold), after switching an airborne vehicle to the
    /// firmware's position-hold stick mode (ArduPilot LOITER, PX4 POSCTL). Ignored on the ground, as in the simulator.
    public mutating func applyManualControl(_ sample: Coordinator.ManualControl, now: MeshInstant) -> [Directive] {
        guard let target = targetSystemID, let flavour = identity?.flavour, !isSilent, flying else { return [] }
        let z = Int16(clamping: 500 + Int(sample.z) / 2)
        var out = [
            frame(
                MAVLink.ManualControl(
                    target: target, x: sample.x, y: sample.y, z: z, r: sample.r,
                    buttons: UInt16(truncatingIfNeeded: sample.buttons),
                    buttons2: UInt16(truncatingIfNeeded: sample.buttons >> 16)))
        ]
        let inManualMode = flavour.isMode(telemetry.customMode, .manual) && intent == .manual
        let switching = plan?.label == "manual control"
        if !inManualMode && !switching {
            var p = Plan(
                id: nil, label: "manual control",
                steps: [.command(flavour.setModeCommand(for: .manual, target: target))],
                completion: .immediately, intent: .manual)
            p.modes = []
            out += start(p, now: now)
        }
        return out
    }

    /// The coordinator's failsafe: hold, return home or land (nothing on the ground).
    public mutating func failsafe(_ action: FailsafeAction, now: MeshInstant) -> [Directive] {
        guard identity != nil, !isSilent, flying else { return [] }
        let command: Command
        switch action {
        case .hover: command = .hover
        case .returnHome: command = .returnToLaunch
        case .land: command = .land
        }
        return start(makePlan(for: command, id: nil, label: "failsafe: \(Self.describe(action))"), now: now)
    }

    static func describe(_ a: FailsafeAction) -> String {
        switch a {
        case .hover: return "hover"
        case .returnHome: return "return home"
        case .land: return "land"
        }
    }

    /// Why a command cannot even be tried, or nil.
    func refusal(for command: Command, now: MeshInstant) -> String? {
        guard identity != nil else { return "autopilot not connected (no HEARTBEAT yet)" }
        if isSilent, let last = lastHeartbeatAt {
            return "autopilot silent (no HEARTBEAT for \(Self.seconds(now - last)) s)"
        }
        guard telemetry.position != nil else { return "no position from the autopilot yet" }
        switch command {
        case .takeoff(let mm):
            if flying { return "already airborne" }
            if mm <= 0 { return "takeoff altitude must be above 0 m" }
        case .trajectory(let points, _):
            if !flying { return "not airborne" }
            if points.isEmpty { return "empty trajectory" }
            if points.count > 1000 { return "trajectory too long (\(points.count) points, at most 1000)" }
        case .land, .hover, .goto, .returnToLaunch, .followTarget:
            if !flying { return "not airborne" }
        }
        if case .followTarget(true) = command, lastTarget == nil { return "no target to follow" }
        if identity?.flavour == .px4, telemetry.homeAMSLMillimetres == nil {
            switch command {
            case .takeoff, .goto: return "no home altitude from the autopilot yet"
            default: break
            }
        }
        return nil
    }

    // MARK: - Plans per firmware

    func makePlan(for command: Command, id: CommandID?, label: String) -> Plan {
        let identity = self.identity!
        let flavour = identity.flavour
        let target = identity.systemID
        let comp = identity.componentID
        let mode = telemetry.customMode
        let here = telemetry.position!
        let homeAMSL = Double(telemetry.homeAMSLMillimetres ?? 0) / 1000
        func long(
            _ cmd: MAVCmd, _ p1: Float = 0, _ p2: Float = 0, _ p3: Float = 0, _ p4: Float = 0,
            _ p5: Float = 0, _ p6: Float = 0, _ p7: Float = 0
        ) -> Step {
            .command(
                CommandLong(
                    targetSystem: target, targetComponent: comp, command: cmd, confirmation: 0,
                    param1: p1, param2: p2, param3: p3, param4: p4, param5: p5, param6: p6, param7: p7))
        }
        func setMode(_ intent: AutopilotFlavour.ModeIntent) -> Step {
            var c = flavour.setModeCommand(for: intent, target: target)
            c.targetComponent = comp
            return .command(c)
        }
        func ensure(_ intent: AutopilotFlavour.ModeIntent) -> [Step] {
            flavour.isMode(mode, intent) ? [] : [setMode(intent)]
        }
        let arm: [Step] = telemetry.armed ? [] : [long(.componentArmDisarm, 1)]
        func modes(_ intents: AutopilotFlavour.ModeIntent...) -> Set<UInt32> {
            Set(intents.map { flavour.customMode(for: $0) })
        }
        let positionOnly = Step.message(positionTarget(here, target: target, now: .zero).wrapped)
        /// Uploads `items` and flies them in the mission mode from item `first`, done at item `last`.
        func mission(_ items: [MissionItemInt], first: UInt16, last: UInt16) -> Plan {
            Plan(
                id: id, label: label,
                steps: [
                    .mission(items),
                    .message(MissionSetCurrent(targetSystem: target, targetComponent: comp, seq: first).wrapped),
                    setMode(.mission),
                ],
                completion: .missionEnd(last), intent: .trajectory, modes: modes(.mission))
        }

        switch (flavour, command) {
        // ArduPilot (and unknown firmwares): GUIDED for everything the companion drives.
        case (_, .takeoff(let mm)) where flavour != .px4:
            var p = Plan(
                id: id, label: label,
                steps: ensure(.guided) + arm + [long(.navTakeoff, 0, 0, 0, 0, 0, 0, Float(mm) / 1000)],
                completion: .altitude(mm), intent: .takingOff)
            p.modes = modes(.guided)
            return p
        case (_, .land) where flavour != .px4:
            return Plan(
                id: id, label: label, steps: [setMode(.land)], completion: .landed, intent: .landing,
                modes: modes(.land))
        case (_, .returnToLaunch) where flavour != .px4:
            return Plan(
                id: id, label: label, steps: [setMode(.returnToLaunch)], completion: .landed, intent: .returning,
                modes: modes(.returnToLaunch, .land).union([21, 27]))
        case (_, .hover) where flavour != .px4, (_, .followTarget(false)) where flavour != .px4:
            return Plan(
                id: id, label: label, steps: ensure(.guided) + [positionOnly], completion: .immediately,
                intent: .hovering, modes: modes(.guided), goal: .hold(here))
        case (_, .goto(let point, let speed)) where flavour != .px4:
            // A goto without a speed flies at the autopilot's default (−2), not at a speed an earlier one set.
            let changeSpeed: [Step] =
                speed > 0
                ? [long(.doChangeSpeed, 1, Float(speed) / 100, -1)]
                : speedOverridden ? [long(.doChangeSpeed, 1, -2, -1)] : []
            let go = Step.message(positionTarget(point, target: target, now: .zero).wrapped)
            return Plan(
                id: id, label: label, steps: ensure(.guided) + changeSpeed + [go], completion: .arrived(point),
                intent: .flyingToTarget, modes: modes(.guided), goal: .goto(point, speed: Self.speed(speed)))
        case (_, .followTarget(true)) where flavour != .px4:
            let go = Step.message(positionTarget(lastTarget ?? here, target: target, now: .zero).wrapped)
            return Plan(
                id: id, label: label, steps: ensure(.guided) + [go], completion: .immediately, intent: .following,
                modes: modes(.guided), follows: true)
        case (_, .trajectory(let points, let stops)) where flavour != .px4:
            // ArduPilot's mission item 0 is home; the waypoints follow from 1.
            let home = MissionItemInt(
                targetSystem: target, targetComponent: comp, seq: 0, frame: .global, command: .navWaypoint,
                current: 0, autocontinue: 1, x: here.latitudeE7, y: here.longitudeE7, z: Float(homeAMSL))
            let at = Dictionary(stops.map { (Int($0.index), $0) }, uniquingKeysWith: { a, _ in a })
            let items =
                [home]
                + points.enumerated().map {
                    missionItem($1, seq: UInt16($0 + 1), target: target, comp: comp, stop: at[$0])
                }
            return mission(items, first: 1, last: UInt16(points.count))

        // PX4: AUTO modes for takeoff, hold, reposition, land and return; OFFBOARD for following.
        case (_, .takeoff(let mm)):
            let amsl = Float(homeAMSL + Double(mm) / 1000)
            return Plan(
                id: id, label: label, steps: arm + [long(.navTakeoff, -1, 0, 0, .nan, .nan, .nan, amsl)],
                completion: .altitude(mm), intent: .takingOff,
                modes: [AutopilotFlavour.px4CustomMode(main: 4, sub: 2), flavour.customMode(for: .hold)])
        case (_, .land):
            return Plan(
                id: id, label: label, steps: [long(.navLand, 0, 0, 0, .nan, .nan, .nan, .nan)], completion: .landed,
                intent: .landing, modes: modes(.land))
        case (_, .returnToLaunch):
            return Plan(
                id: id, label: label, steps: [long(.navReturnToLaunch)], completion: .landed, intent: .returning,
                modes: modes(.returnToLaunch, .land))
        case (_, .hover), (_, .followTarget(false)):
            // AUTO.LOITER alone does not stop a vehicle already repositioning in it: reposition here as well.
            let stop = Step.message(reposition(here, speed: -1, target: target).wrapped)
            return Plan(
                id: id, label: label, steps: [setMode(.hold), stop], completion: .immediately, intent: .hovering,
                modes: modes(.hold), goal: .hold(here))
        case (_, .goto(let point, let speed)):
            let go = reposition(point, speed: Self.speed(speed) ?? -1, target: target)
            return Plan(
                id: id, label: label, steps: [.commandInt(go)], completion: .arrived(point),
                intent: .flyingToTarget, modes: modes(.hold), goal: .goto(point, speed: Self.speed(speed)))
        case (_, .followTarget(true)):
            return Plan(
                id: id, label: label, steps: [.startSetpointStream(lastTarget ?? here), setMode(.guided)],
                completion: .immediately,
                intent: .following, modes: modes(.guided), follows: true)
        case (_, .trajectory(let points, let stops)):
            let at = Dictionary(stops.map { (Int($0.index), $0) }, uniquingKeysWith: { a, _ in a })
            let items = points.enumerated().map {
                missionItem($1, seq: UInt16($0), target: target, comp: comp, stop: at[$0])
            }
            return mission(items, first: 0, last: UInt16(points.count - 1))
        }
    }

    /// A NAV_WAYPOINT at `p`; with a stop, param 1 holds there (seconds) and param 4 faces its heading (degrees;
    /// NaN keeps the autopilot's own yaw behaviour).
    func missionItem(_ p: GeoPoint, seq: UInt16, target: UInt8, comp: UInt8, stop: TrajectoryStop? = nil)
        -> MissionItemInt
    {
        MissionItemInt(
            targetSystem: target, targetComponent: comp, seq: seq, frame: .globalRelativeAlt, command: .navWaypoint,
            current: 0, autocontinue: 1, param1: Float(stop?.hold ?? 0), param4: Float(stop?.heading ?? .nan),
            x: p.latitudeE7, y: p.longitudeE7, z: Float(p.altitude))
    }

    /// SET_POSITION_TARGET_GLOBAL_INT, position only, altitude relative to home.
    func positionTarget(_ p: GeoPoint, target: UInt8, now: MeshInstant) -> SetPositionTargetGlobalInt {
        let mask: PositionTargetTypemask = [
            .vxIgnore, .vyIgnore, .vzIgnore, .axIgnore, .ayIgnore, .azIgnore, .yawIgnore, .yawRateIgnore,
        ]
        return SetPositionTargetGlobalInt(
            timeBootMs: UInt32(truncatingIfNeeded: now.nanoseconds / 1_000_000), targetSystem: target,
            targetComponent: identity?.componentID ?? 1, coordinateFrame: .globalRelativeAltInt,
            typeMask: mask, latInt: p.latitudeE7, lonInt: p.longitudeE7, alt: Float(p.altitude))
    }
}
