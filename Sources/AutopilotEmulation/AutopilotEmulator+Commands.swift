import Flight
import MAVLink

extension AutopilotEmulator {
    // MARK: - COMMAND_LONG / COMMAND_INT

    /// Whether a message with these target fields is for this autopilot (its ids, or 0 = broadcast).
    func isAddressed(system: UInt8, component: UInt8) -> Bool {
        (system == configuration.systemID || system == 0)
            && (component == configuration.componentID || component == 0)
    }

    mutating func handle(_ c: CommandLong, from frame: MAVLinkFrame, now: Double) -> [[UInt8]] {
        guard isAddressed(system: c.targetSystem, component: c.targetComponent) else { return [] }
        return handle(
            ReceivedCommand(
                command: c.command, params: [c.param1, c.param2, c.param3, c.param4, c.param5, c.param6, c.param7],
                confirmation: c.confirmation, sourceSystem: frame.systemID, sourceComponent: frame.componentID),
            now: now)
    }

    mutating func handle(_ c: CommandInt, from frame: MAVLinkFrame, now: Double) -> [[UInt8]] {
        guard isAddressed(system: c.targetSystem, component: c.targetComponent) else { return [] }
        return handle(
            ReceivedCommand(
                command: c.command, params: [c.param1, c.param2, c.param3, c.param4, .nan, .nan, c.z], x: c.x, y: c.y,
                frame: c.frame, confirmation: 0, sourceSystem: frame.systemID, sourceComponent: frame.componentID),
            now: now)
    }

    /// Executes a command (or a configured fault) and answers with COMMAND_ACK to the sender, after any frame the
    /// command itself sends (STATUSTEXT, a requested message).
    mutating func handle(_ received: ReceivedCommand, now: Double) -> [[UInt8]] {
        var c = received
        if ignore.remove(c.command) != nil {
            record(.command(c), at: now)
            return []
        }
        var out: [[UInt8]] = []
        let result = refuse.removeValue(forKey: c.command) ?? execute(c, now: now, out: &out)
        c.result = result
        record(.command(c), at: now)
        out.append(
            frame(
                CommandAck(
                    command: c.command, result: result, progress: 0, resultParam2: 0, targetSystem: c.sourceSystem,
                    targetComponent: c.sourceComponent)))
        return out
    }

    mutating func execute(_ c: ReceivedCommand, now: Double, out: inout [[UInt8]]) -> MAVResult {
        let p = c.params
        switch c.command {
        case .setMessageInterval:
            return setMessageInterval(p[0], p[1], now: now, out: &out)
        case .requestMessage:
            guard let id = wholeNumber(p[0]), let message = streamFrame(id, now: now) else { return .unsupported }
            out.append(message)
            return .accepted
        case .doSetMode:
            return setMode(p, now: now)
        case .componentArmDisarm:
            return p[0] >= 0.5 ? arm(now: now, out: &out) : disarmCommand(now: now, out: &out)
        case .navTakeoff:
            return takeoff(altitude: p[6], now: now)
        case .navLand:
            guard !onGround else { return .denied }
            enter(flavour.landMode, reason: "NAV_LAND", now: now)
            return .accepted
        case .navReturnToLaunch:
            guard !onGround else { return .denied }
            enter(flavour.returnMode, reason: "NAV_RETURN_TO_LAUNCH", now: now)
            return .accepted
        case .doChangeSpeed:
            // param2: m/s; −1 no change, −2 back to the default (MAVLink's reading).
            if p[1] > 0 { speed = min(Double(p[1]), configuration.limits.maxHorizontalSpeed) }
            if p[1] == -2 { speed = configuration.cruiseSpeed }
            return .accepted
        case .doReposition:
            return reposition(c, now: now)
        default:
            return .unsupported
        }
    }

    /// MAV_CMD_DO_SET_MODE: ArduPilot's mode number in param2; PX4's main mode in param2, sub mode in param3. PX4
    /// refuses OFFBOARD unless position targets have been streaming (no gap over 0.5 s, i.e. at least 2 Hz, the last
    /// within 0.5 s) for ``Configuration/offboardPrestream``.
    mutating func setMode(_ p: [Float], now: Double) -> MAVResult {
        guard let p2 = wholeNumber(p[1]), p2 <= 255 else { return .denied }
        let mode: UInt32
        if flavour == .px4 {
            guard let p3 = wholeNumber(p[2]), p3 <= 255 else { return .denied }
            mode = Flavour.px4Mode(p2, p3)
            if mode == flavour.guidedMode && mode != customMode {
                let streaming = now - lastSetpointAt <= Self.offboardLossTimeout
                guard streaming, now - setpointStreamStart >= configuration.offboardPrestream - 1e-6 else {
                    return .denied
                }
            }
        } else {
            mode = p2
        }
        guard flavour.modes[mode] != nil else { return .denied }
        enter(mode, reason: "DO_SET_MODE", now: now)
        return .accepted
    }

    /// Arming: on the ground only (in the air it is accepted if already armed), and for ArduPilot only in GUIDED,
    /// LOITER, STABILIZE, ALT_HOLD or POSHOLD.
    mutating func arm(now: Double, out: inout [[UInt8]]) -> MAVResult {
        guard onGround else { return armed ? .accepted : .denied }
        guard flavour.allowsArming(in: customMode) else { return .denied }
        if !armed {
            armed = true
            armedOnGroundSince = now
            record(.armed, at: now)
            out.append(frame(Statustext(severity: .info, text: "Arming motors")))
        }
        return .accepted
    }

    /// Disarming: on the ground only.
    mutating func disarmCommand(now: Double, out: inout [[UInt8]]) -> MAVResult {
        guard onGround else { return .denied }
        if armed { out += disarm(reason: "command", now: now) }
        return .accepted
    }

    /// Disarms and forgets the flight (target, takeoff, landing).
    mutating func disarm(reason: String, now: Double) -> [[UInt8]] {
        armed = false
        landing = false
        target = nil
        targetVelocity = nil
        takeoffAltitude = nil
        landedSince = nil
        armedOnGroundSince = nil
        record(.disarmed(reason: reason), at: now)
        return [frame(Statustext(severity: .info, text: "Disarming motors"))]
    }

    /// MAV_CMD_NAV_TAKEOFF: armed and on the ground. ArduPilot: only in GUIDED, param7 metres above home. PX4: param7
    /// metres above mean sea level (NaN: 2.5 m above home), switching to AUTO.TAKEOFF.
    mutating func takeoff(altitude p7: Float, now: Double) -> MAVResult {
        guard armed, onGround else { return .denied }
        let altitude: Double
        if flavour == .px4 {
            altitude = p7.isNaN ? 2.5 : Double(p7) - configuration.homeAltitude
        } else {
            guard behaviour == .guided else { return .denied }
            altitude = Double(p7)
        }
        guard altitude > 0, altitude.isFinite else { return .denied }
        if flavour == .px4 { enter(flavour.takeoffMode, reason: "takeoff", now: now) }
        startTakeoff(altitude: altitude)
        return .accepted
    }

    /// MAV_CMD_DO_REPOSITION (COMMAND_INT only; airborne): fly to x, y, z (AMSL in the global frames, else above home)
    /// at param1 m/s (negative: the default cruise speed; 0: unchanged); ArduPilot in GUIDED, PX4 in AUTO.LOITER.
    mutating func reposition(_ c: ReceivedCommand, now: Double) -> MAVResult {
        guard !onGround, let x = c.x, let y = c.y, let frame = c.frame, c.params[6].isFinite else { return .denied }
        guard !ignoresSetpoints(at: now) else { return .accepted }  // acknowledged, not flown
        if c.params[0] > 0 { speed = min(Double(c.params[0]), configuration.limits.maxHorizontalSpeed) }
        if c.params[0] < 0 { speed = configuration.cruiseSpeed }
        enter(flavour.holdMode, reason: "DO_REPOSITION", now: now)
        target = local(latitudeE7: x, longitudeE7: y, up: relativeAltitude(c.params[6], frame: frame))
        targetVelocity = nil
        return .accepted
    }

    /// MAV_CMD_SET_MESSAGE_INTERVAL as ArduPilot reads it: −1 stops the message, 0 restores its default rate,
    /// otherwise microseconds (clamped to 1 ms … 60 s). Messages it cannot stream are denied.
    mutating func setMessageInterval(_ p1: Float, _ p2: Float, now: Double, out: inout [[UInt8]]) -> MAVResult {
        guard let id = wholeNumber(p1), Self.streams.contains(where: { $0.id == id }) else {
            if flavour == .ardupilot, let id = wholeNumber(p1) {
                out.append(frame(Statustext(severity: .info, text: "No ap_message for mavlink id (\(id))")))
            }
            return .denied
        }
        guard p2.isFinite else { return .denied }
        let micros = Double(p2)
        if micros == 0 {
            intervals[id] = nil
        } else if micros < 0 {
            intervals[id] = -1
        } else {
            intervals[id] = min(max(micros / 1e6, 0.001), 60)
        }
        // The Python emulator's reading of ArduPilot: once anything is asked for, the default streams flow too.
        streaming = true
        nextDue[id] = lastSent[id].flatMap { last in streamInterval(id).map { last + $0 } }
        return .accepted
    }
}
