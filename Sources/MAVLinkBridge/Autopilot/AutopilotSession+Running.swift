import Coordinator
import MAVLink
import MeshTypes

extension AutopilotSession {
    // MARK: - Running a plan

    /// Starts `new`, superseding a plan still being set up.
    mutating func start(_ new: Plan, now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        if let old = plan {
            plan = nil
            out += failPlan(old, "superseded by \(new.label)")
        }
        plan = new
        out += advancePlan(now: now)
        return out
    }

    /// A plan that did not get through: its command is refused (it never ran), or for an internal plan, a note.
    mutating func failPlan(_ p: Plan, _ reason: String) -> [Directive] {
        if p.steps.contains(where: { if case .startSetpointStream = $0 { return true } else { return false } }),
            !following
        {
            setpoint = nil
        }
        if let id = p.id { return [.verdict(id, .rejected(reason))] }
        return [.note("\(p.label): \(reason)")]
    }

    /// Sends the plan's next steps until one needs an answer; on the last step, accepts the command.
    mutating func advancePlan(now: MeshInstant) -> [Directive] {
        guard var p = plan else { return [] }
        var out: [Directive] = []
        if let wait = p.wait {
            switch wait {
            case .ack(let cmd, let attempt, let deadline, let inProgress):
                guard now >= deadline else { return [] }
                if inProgress || attempt >= configuration.attempts {
                    plan = nil
                    return failPlan(
                        p, "autopilot did not acknowledge \(Self.name(cmd))\(inProgress ? " (still in progress)" : "")")
                }
                // Retransmit with the confirmation count raised, as the command protocol asks.
                p.wait = .ack(cmd, attempt: attempt + 1, deadline: now + configuration.ackTimeout, inProgress: false)
                plan = p
                out.append(
                    .note("\(p.label): no COMMAND_ACK for \(Self.name(cmd)), sending again (attempt \(attempt + 1))"))
                switch p.steps[p.index] {
                case .command(var c):
                    c.confirmation = UInt8(min(255, attempt))
                    out.append(frame(c))
                case .commandInt(let c):
                    out.append(frame(c))
                default: break
                }
                return out
            case .mission(let last, let attempt, let deadline):
                guard now >= deadline else { return [] }
                if attempt >= configuration.attempts {
                    plan = nil
                    return failPlan(p, "autopilot did not complete the mission upload")
                }
                p.wait = .mission(lastSent: last, attempt: attempt + 1, deadline: now + configuration.ackTimeout)
                plan = p
                return [frame(last)]
            case .prestream(let until):
                guard now >= until else { return [] }
                p.wait = nil
                plan = p
            }
        }
        while p.index < p.steps.count {
            switch p.steps[p.index] {
            case .command(let c):
                p.wait = .ack(c.command, attempt: 1, deadline: now + configuration.ackTimeout, inProgress: false)
                plan = p
                out.append(frame(c))
                return out
            case .commandInt(let c):
                p.wait = .ack(c.command, attempt: 1, deadline: now + configuration.ackTimeout, inProgress: false)
                plan = p
                out.append(frame(c))
                return out
            case .mission(let items):
                let count = MissionCount(
                    targetSystem: items.first?.targetSystem ?? 0, targetComponent: items.first?.targetComponent ?? 1,
                    count: UInt16(items.count), missionType: .mission)
                p.wait = .mission(lastSent: count.wrapped, attempt: 1, deadline: now + configuration.ackTimeout)
                plan = p
                out.append(frame(count))
                return out
            case .message(let m):
                out.append(frame(m))
                p.index += 1
            case .startSetpointStream(let at):
                setpoint = at
                nextSetpointAt = now + configuration.setpointInterval
                if let target = targetSystemID { out.append(frame(positionTarget(at, target: target, now: now))) }
                p.index += 1
                if configuration.offboardPrestream > .zero, p.index < p.steps.count {
                    // The stream (sent by `tick`) runs before the mode switch.
                    p.wait = .prestream(until: now + configuration.offboardPrestream)
                    plan = p
                    return out
                }
            }
        }
        // Every step went through: the command is accepted.
        plan = nil
        out += accept(p, now: now)
        return out
    }

    mutating func accept(_ p: Plan, now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        if let id = p.id { out.append(.verdict(id, .accepted)) }
        out += finishRunning(.failed(p.label.hasPrefix("failsafe:") ? p.label : "superseded by \(p.label)"))
        intent = p.intent
        heldGoal = p.goal
        recordMission(of: p)
        controlModes = p.modes
        steering = nil
        if case .goto(_, let speed)? = p.goal { speedOverridden = speed != nil }
        if p.follows {
            following = true
        } else {
            stopFollowing()
        }
        if case .immediately = p.completion {
            if let id = p.id { out.append(.completion(id, .completed)) }
        } else {
            running = Running(id: p.id, label: p.label, completion: p.completion, modes: p.modes)
            out += checkRunning(now: now)
        }
        return out
    }

    mutating func stopFollowing() {
        following = false
        setpoint = steering?.point
    }

    mutating func onAck(_ ack: CommandAck, now: MeshInstant) -> [Directive] {
        // The answer to steering's mode switch (a plan waiting for its own DO_SET_MODE takes that ACK first).
        var planWaitsForMode = false
        if case .ack(.doSetMode, _, _, _)? = plan?.wait { planWaitsForMode = true }
        if ack.command == .doSetMode, steeringModeAsked, !planWaitsForMode {
            steeringModeAsked = false
            guard ack.result != .accepted, ack.result != .inProgress, let flavour = identity?.flavour else { return [] }
            let result = ack.result.entryName ?? "MAV_RESULT \(ack.result.rawValue)"
            return release(
                "the autopilot refused \(flavour.modeName(flavour.customMode(for: .guided))) for avoidance's steering (\(result))"
            )
        }
        guard var p = plan, case .ack(let cmd, let attempt, _, _) = p.wait, ack.command == cmd else { return [] }
        switch ack.result {
        case .accepted:
            p.wait = nil
            p.index += 1
            plan = p
            return advancePlan(now: now)
        case .inProgress:
            p.wait = .ack(cmd, attempt: attempt, deadline: now + configuration.inProgressTimeout, inProgress: true)
            plan = p
            return []
        default:
            plan = nil
            let result = ack.result.entryName ?? "MAV_RESULT \(ack.result.rawValue)"
            return failPlan(p, "autopilot refused \(Self.name(cmd)): \(result)")
        }
    }

    mutating func onMissionRequest(_ seq: UInt16, now: MeshInstant) -> [Directive] {
        guard var p = plan, case .mission = p.wait, case .mission(let items) = p.steps[p.index] else { return [] }
        guard Int(seq) < items.count else {
            plan = nil
            return failPlan(p, "autopilot asked for mission item \(seq) of \(items.count)")
        }
        let item = items[Int(seq)]
        p.wait = .mission(lastSent: item.wrapped, attempt: 1, deadline: now + configuration.ackTimeout)
        plan = p
        return [frame(item)]
    }

    mutating func onMissionAck(_ result: MAVMissionResult, now: MeshInstant) -> [Directive] {
        guard var p = plan, case .mission = p.wait else { return [] }
        guard result == .mavMissionAccepted else {
            plan = nil
            return failPlan(
                p, "autopilot refused the mission: \(result.entryName ?? "MAV_MISSION_RESULT \(result.rawValue)")")
        }
        p.wait = nil
        p.index += 1
        plan = p
        return advancePlan(now: now)
    }

    // MARK: - Completion

    mutating func finishRunning(_ how: VehicleCompletion) -> [Directive] {
        guard let r = running else { return [] }
        running = nil
        if case .failed = how, intent != .following {
            intent = flying ? .hovering : .idle
            heldGoal = nil
        }
        guard let id = r.id else {
            if case .failed(let why) = how { return [.note("\(r.label) ended: \(why)")] }
            return []
        }
        return [.completion(id, how)]
    }

    mutating func checkRunning(now: MeshInstant) -> [Directive] {
        guard let r = running, let p = telemetry.position else { return [] }
        switch r.completion {
        case .immediately:
            return finishRunning(.completed)
        case .altitude(let mm):
            let tolerance = max(configuration.altitudeTolerance, 0.05 * Double(mm) / 1000)
            // Near the altitude, and (when the autopilot reports it) out of its takeoff state.
            if Double(p.altitudeMillimetres - mm) / 1000 > -tolerance && flying && telemetry.landedState != .takeoff {
                intent = .hovering
                heldGoal = .hold(
                    GeoPoint(latitudeE7: p.latitudeE7, longitudeE7: p.longitudeE7, altitudeMillimetres: mm))
                return finishRunning(.completed)
            }
        case .landed:
            if !telemetry.armed && !flying { return finishRunning(.completed) }
        case .arrived(let target):
            if Self.distance(p, target) <= configuration.arrivalRadius
                && abs(p.altitude - target.altitude) <= configuration.altitudeTolerance
            {
                intent = .hovering
                heldGoal = .hold(target)
                return finishRunning(.completed)
            }
        case .missionEnd:
            break
        }
        return []
    }

    /// A duration in seconds with one decimal, "3.2".
    static func seconds(_ d: Duration) -> String {
        let tenths = (d.components.seconds * 10) + d.components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// `MAV_CMD_NAV_TAKEOFF`, or the number for commands without a name here.
    static func name(_ cmd: MAVCmd) -> String {
        cmd.entryName ?? "MAV_CMD \(cmd.rawValue)"
    }
}
