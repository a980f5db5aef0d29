import Coordinator
import MAVLink
import MeshTypes

extension GroundControlBridge {
    // MARK: - From ground-control software

    /// One datagram from `address`.
    public mutating func receive(_ bytes: [UInt8], from address: Address, now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        var events = parser.feed(bytes)
        events += parser.finish()
        for case .frame(let f) in events { out += handle(f, from: address, now: now) }
        return out
    }

    /// One frame from `address`.
    public mutating func handle(_ frame: MAVLinkFrame, from address: Address, now: MeshInstant) -> [Directive] {
        // Our own vehicles' frames coming back (a router or a GCS forwarding everything): never act on them.
        if fleet[frame.systemID] != nil, frame.componentID == configuration.vehicleComponentID { return [] }
        var out = notePeer(frame, from: address, now: now)
        let gcs = (address: address, system: frame.systemID, component: frame.componentID)
        switch frame.message {
        case .commandLong(let c):
            let params = [c.param1, c.param2, c.param3, c.param4, c.param5, c.param6, c.param7]
            out += onCommand(
                c.command, target: c.targetSystem, params: params, intCommand: nil, confirmation: c.confirmation,
                gcs: gcs, now: now)
        case .commandInt(let c):
            out += onCommand(
                c.command, target: c.targetSystem, params: [c.param1, c.param2, c.param3, c.param4],
                intCommand: c, confirmation: 0, gcs: gcs, now: now)
        case .setMode(let m):
            out += onSetMode(m, gcs: gcs, now: now)
        case .setPositionTargetGlobalInt(let m):
            out += onPositionTarget(m, gcs: gcs, now: now)
        case .manualControl(let m):
            out += onManualControl(m, gcs: gcs, now: now)
        case .paramRequestList(let m):
            if fleet[m.targetSystem] != nil {
                out += send(parameter(m.targetSystem), as: m.targetSystem, to: [address])
            }
        case .paramRequestRead(let m):
            if fleet[m.targetSystem] != nil, m.paramIndex == 0 || m.paramId == Self.parameterName {
                out += send(parameter(m.targetSystem), as: m.targetSystem, to: [address])
            }
        case .paramSet(let m):
            if fleet[m.targetSystem] != nil {
                out += send(parameter(m.targetSystem), as: m.targetSystem, to: [address])
                out += statusText(
                    "\(m.paramId): FleetMesh vehicles have no settable parameters", severity: .warning,
                    as: m.targetSystem, to: [address], id: 0)
            }
        case .missionRequestList(let m):
            if fleet[m.targetSystem] != nil {
                out += send(
                    MissionCount(
                        targetSystem: frame.systemID, targetComponent: frame.componentID, count: 0,
                        missionType: m.missionType), as: m.targetSystem, to: [address])
            }
        case .missionClearAll(let m):
            if fleet[m.targetSystem] != nil {
                out += send(
                    MissionAck(
                        targetSystem: frame.systemID, targetComponent: frame.componentID, type: .mavMissionAccepted,
                        missionType: m.missionType), as: m.targetSystem, to: [address])
            }
        case .missionCount(let m):
            out += onMissionCount(m, gcs: gcs, now: now)
        case .missionItemInt(let m):
            out += onMissionItem(m, gcs: gcs, now: now)
        default:
            break
        }
        return out
    }

    mutating func notePeer(_ frame: MAVLinkFrame, from address: Address, now: MeshInstant) -> [Directive] {
        var isHeartbeat = false
        if case .heartbeat = frame.message { isHeartbeat = true }
        if var p = peers[address] {
            p.lastHeard = now
            p.systemID = frame.systemID
            p.componentID = frame.componentID
            p.sendsHeartbeats = p.sendsHeartbeats || isHeartbeat
            peers[address] = p
            return []
        }
        let p = Peer(
            address: address, systemID: frame.systemID, componentID: frame.componentID, sendsHeartbeats: isHeartbeat,
            lastHeard: now)
        peers[address] = p
        // A new peer gets every vehicle's heartbeat and home at once rather than within the next second.
        for n in schedules.keys {
            schedules[n]?.heartbeat = now
            schedules[n]?.home = now
        }
        return [.peerJoined(p)]
    }

    typealias GCS = (address: Address, system: UInt8, component: UInt8)

    /// The one parameter each vehicle has (ground-control software asks for the list before anything else).
    static var parameterName: String { "FM_UAV_NUMBER" }

    func parameter(_ n: UInt8) -> ParamValue {
        ParamValue(paramId: Self.parameterName, paramValue: Float(n), paramType: .real32, paramCount: 1, paramIndex: 0)
    }

    // MARK: - Commands

    /// COMMAND_LONG and COMMAND_INT. `params` are param1…7 (LONG) or param1…4 (INT, whose x, y, z are in `intCommand`).
    mutating func onCommand(
        _ cmd: MAVCmd, target: UInt8, params p: [Float], intCommand: CommandInt?, confirmation: UInt8,
        gcs: GCS, now: MeshInstant
    ) -> [Directive] {
        let ackAs = (1...255).contains(target) ? target : configuration.stationSystemID
        func ack(_ result: MAVResult, _ text: String? = nil) -> [Directive] {
            var out = send(
                CommandAck(
                    command: cmd, result: result, progress: 0, resultParam2: 0, targetSystem: gcs.system,
                    targetComponent: gcs.component), as: ackAs, to: [gcs.address])
            if let text {
                out += statusText(
                    text, severity: result == .accepted ? .info : .warning, as: ackAs, to: [gcs.address], id: 0)
            }
            return out
        }
        guard (1...250).contains(target) else {
            let why =
                target == 0
                ? "broadcast commands are not supported: address one UAV number"
                : "\(target) is not a FleetMesh UAV number (1–250)"
            return ack(.denied, why) + [
                .note("ground control \(gcs.system) sent \(Self.name(cmd)) to system \(target): \(why)")
            ]
        }
        let vehicle = fleet[target]
        // Local answers: requests for messages, capabilities, arming (FleetMesh arms as part of takeoff).
        switch cmd {
        case .requestMessage, .getHomePosition:
            guard vehicle != nil else { return ack(.denied, "UAV \(target) is not in the mesh") }
            let id =
                cmd == .getHomePosition ? HomePosition.id : Self.wholeNumber(p[0]).map { UInt32(clamping: $0) } ?? 0
            switch id {
            case HomePosition.id:
                guard let h = homePosition(target, now: now) else { return ack(.failed, "home not known yet") }
                return ack(.accepted) + send(h, as: target, to: [gcs.address])
            case AutopilotVersion.id:
                return ack(.accepted) + send(autopilotVersion(target), as: target, to: [gcs.address])
            case Heartbeat.id, GlobalPositionInt.id, Attitude.id, SysStatus.id, BatteryStatus.id, ExtendedSysState.id,
                VfrHud.id:
                schedules[target] = Schedule(heartbeat: now, position: now, hud: now, home: now)
                return ack(.accepted)
            default:
                return ack(.unsupported)
            }
        case .requestAutopilotCapabilities:
            guard vehicle != nil else { return ack(.denied, "UAV \(target) is not in the mesh") }
            return ack(.accepted) + send(autopilotVersion(target), as: target, to: [gcs.address])
        case .setMessageInterval:
            // Streams have fixed rates (see the documentation); the request is acknowledged so GCS software carries on.
            return vehicle == nil ? ack(.denied, "UAV \(target) is not in the mesh") : ack(.accepted)
        case .componentArmDisarm:
            guard let v = vehicle else { return ack(.denied, "UAV \(target) is not in the mesh") }
            if p[0] >= 0.5 {
                return v.state.armed
                    ? ack(.accepted)
                    : ack(.denied, "FleetMesh arms as part of takeoff; send MAV_CMD_NAV_TAKEOFF")
            }
            return v.state.armed ? ack(.denied, "to disarm, land (MAV_CMD_NAV_LAND)") : ack(.accepted)
        default:
            break
        }
        // A FleetMesh command.
        let command: Command
        switch commandFor(cmd, params: p, intCommand: intCommand, vehicle: vehicle) {
        case .success(let c): command = c
        case .failure(let refusal): return ack(refusal.result, refusal.text)
        }
        let key = CommandKey(
            address: gcs.address, systemID: gcs.system, componentID: gcs.component, target: target,
            command: UInt32(cmd.rawValue),
            parameters: p.map(\.bitPattern) + [intCommand?.x, intCommand?.y].map { UInt32(bitPattern: $0 ?? 0) }
                + [intCommand.map { $0.z.bitPattern } ?? 0, UInt32(intCommand?.frame.rawValue ?? 0)])
        return submit(
            command, key: key, uav: target, ackCommand: cmd.rawValue,
            repeated: intCommand == nil ? .confirmation(confirmation) : .window,
            gcs: gcs, now: now)
    }

    /// How a repeated request is told from a new one.
    enum Repeat {
        /// COMMAND_LONG: `confirmation` > 0 marks a retransmission.
        case confirmation(UInt8)
        /// COMMAND_INT and SET_MODE (no confirmation field): the same request while it is pending, or within 1 s of
        /// its answer, is a retransmission.
        case window
        /// Unacknowledged messages: the same request while it is pending is dropped.
        case whilePending
    }

    /// Sends `command` into the mesh, unless it is a retransmission of one already sent: then the same answer (or
    /// IN_PROGRESS while there is none yet) goes back, and nothing runs twice.
    mutating func submit(
        _ command: Command, key: CommandKey, uav: UInt8, ackCommand: UInt16?, repeated: Repeat,
        gcs: GCS, now: MeshInstant
    ) -> [Directive] {
        if let t = byKey[key], let p = pending[t] {
            let isRetransmission: Bool
            switch repeated {
            case .confirmation(let c): isRetransmission = c > 0
            case .window: isRetransmission = p.finishedAt.map { now - $0 <= .seconds(1) } ?? true
            case .whilePending: isRetransmission = p.finishedAt == nil
            }
            if isRetransmission {
                guard let c = ackCommand else { return [] }
                return send(
                    CommandAck(
                        command: MAVCmd(rawValue: c), result: p.acked ?? .inProgress,
                        progress: p.acked == nil ? UInt8.max : 0, resultParam2: 0,
                        targetSystem: gcs.system, targetComponent: gcs.component), as: uav, to: [gcs.address])
            }
        }
        let ticket = nextTicket
        nextTicket += 1
        pending[ticket] = Pending(
            key: key, label: command.summary, uav: uav, ackCommand: ackCommand,
            acked: nil, finishedAt: nil, receivedAt: now)
        byKey[key] = ticket
        return [.command(command, uav: uav, ticket: ticket)]
    }

    mutating func onSetMode(_ m: SetMode, gcs: GCS, now: MeshInstant) -> [Directive] {
        let target = m.targetSystem
        func ack(_ result: MAVResult, _ text: String) -> [Directive] {
            send(
                CommandAck(
                    command: MAVCmd(rawValue: 11), result: result, targetSystem: gcs.system,
                    targetComponent: gcs.component),
                as: (1...255).contains(target) ? target : configuration.stationSystemID, to: [gcs.address])
                + statusText(
                    text, severity: .warning, as: (1...255).contains(target) ? target : configuration.stationSystemID,
                    to: [gcs.address], id: 0)
        }
        guard (1...250).contains(target) else { return ack(.denied, "\(target) is not a FleetMesh UAV number (1–250)") }
        switch modeCommand(baseMode: Float(m.baseMode.rawValue), customMode: Float(m.customMode)) {
        case .failure(let r): return ack(r.result, r.text)
        case .success(let command):
            let key = CommandKey(
                address: gcs.address, systemID: gcs.system, componentID: gcs.component, target: target,
                command: 0x1_000B, parameters: [UInt32(m.baseMode.rawValue), m.customMode])
            return submit(command, key: key, uav: target, ackCommand: 11, repeated: .window, gcs: gcs, now: now)
        }
    }

    /// SET_POSITION_TARGET_GLOBAL_INT: a goto (position only; velocities and accelerations are not supported).
    /// Not acknowledged in MAVLink: a refusal comes back as STATUSTEXT. The same target again within 2 s is sent once.
    mutating func onPositionTarget(_ m: SetPositionTargetGlobalInt, gcs: GCS, now: MeshInstant) -> [Directive] {
        let target = m.targetSystem
        guard (1...250).contains(target) else { return [] }
        guard fleet[target] != nil else {
            return unknownTarget(target, gcs: gcs, what: "SET_POSITION_TARGET_GLOBAL_INT", now: now)
        }
        guard !m.typeMask.contains(.xIgnore), !m.typeMask.contains(.yIgnore), !m.typeMask.contains(.zIgnore) else {
            return statusText(
                "only position targets are supported", severity: .warning, as: target, to: [gcs.address], id: 0)
        }
        guard m.alt.isFinite, abs(m.alt) <= 20_000 else {
            return statusText(
                "altitude \(m.alt) is out of range", severity: .warning, as: target, to: [gcs.address], id: 0)
        }
        guard let alt = relativeAltitude(Double(m.alt), frame: m.coordinateFrame) else {
            return statusText(
                "altitude frame \(m.coordinateFrame.rawValue) is not supported", severity: .warning,
                as: target, to: [gcs.address], id: 0)
        }
        let point = GeoPoint(
            latitudeE7: m.latInt, longitudeE7: m.lonInt,
            altitudeMillimetres: Int32(clamping: Int64((alt * 1000).rounded())))
        if let last = lastGoto[target], last.point == point, now - last.at < .seconds(2) { return [] }
        lastGoto[target] = (point, now)
        let key = CommandKey(
            address: gcs.address, systemID: gcs.system, componentID: gcs.component, target: target,
            command: 0x1_0056,
            parameters: [
                UInt32(bitPattern: point.latitudeE7), UInt32(bitPattern: point.longitudeE7),
                UInt32(bitPattern: point.altitudeMillimetres),
            ])
        return submit(
            .goto(point, speedCmS: 0), key: key, uav: target, ackCommand: nil, repeated: .whilePending, gcs: gcs,
            now: now)
    }

    /// MANUAL_CONTROL: x, y, r pass through; z from the ground-control 0…1000 scale (500 = centre) to FleetMesh's
    /// −1000…1000 (0 = hold altitude). Unanswered, latest wins, subject to the control lease like any command.
    mutating func onManualControl(_ m: MAVLink.ManualControl, gcs: GCS, now: MeshInstant) -> [Directive] {
        let target = m.target
        guard (1...250).contains(target) else { return [] }
        guard fleet[target] != nil else { return unknownTarget(target, gcs: gcs, what: "MANUAL_CONTROL", now: now) }
        func axis(_ v: Int16) -> Int16 { v == Int16.max ? 0 : max(-1000, min(1000, v)) }
        let z: Int16 = m.z == Int16.max ? 0 : Int16(max(-1000, min(1000, (Int(m.z) - 500) * 2)))
        let sample = Coordinator.ManualControl(
            x: axis(m.x), y: axis(m.y), z: z, r: axis(m.r),
            buttons: UInt32(m.buttons) | UInt32(m.buttons2) << 16)
        return [.manualControl(sample, uav: target)]
    }

    /// An unanswered message for a UAV number the station does not see: one STATUSTEXT and one log line per UAV
    /// number every 5 s.
    mutating func unknownTarget(_ target: UInt8, gcs: GCS, what: String, now: MeshInstant) -> [Directive] {
        if let at = unknownReported[target], now - at < .seconds(5) { return [] }
        unknownReported[target] = now
        return statusText("UAV \(target) is not in the mesh", severity: .warning, as: target, to: [gcs.address], id: 0)
            + [.note("ground control \(gcs.system) sent \(what) to UAV \(target), which is not in the mesh")]
    }

    func autopilotVersion(_ n: UInt8) -> AutopilotVersion {
        AutopilotVersion(
            capabilities: [.mavlink2, .commandInt, .missionInt, .setPositionTargetGlobalInt, .paramFloat],
            flightSwVersion: 0, middlewareSwVersion: 0, osSwVersion: 0, boardVersion: 0,
            flightCustomVersion: Array(repeating: 0, count: 8), middlewareCustomVersion: Array(repeating: 0, count: 8),
            osCustomVersion: Array(repeating: 0, count: 8), vendorId: 0, productId: 0, uid: UInt64(n),
            uid2: Array(repeating: 0, count: 18))
    }

    static func name(_ cmd: MAVCmd) -> String { cmd.entryName ?? "MAV_CMD \(cmd.rawValue)" }

    /// A float parameter that carries a whole number (a message id, a mode): nil for NaN, infinities and values
    /// beyond ±2³¹, which would trap on conversion.
    static func wholeNumber(_ v: Float) -> Int? {
        guard v.isFinite, abs(v) < 2_147_483_648 else { return nil }
        return Int(v.rounded())
    }

    // MARK: - Answers from the mesh

    /// The mesh's answer to a command this bridge asked for: the COMMAND_ACK (on the first answer), and STATUSTEXT
    /// for refusals, failures and completions.
    public mutating func onAnswer(ticket: UInt64, _ answer: CommandAnswer, now: MeshInstant) -> [Directive] {
        guard var p = pending[ticket] else { return [] }
        let gcs = (address: p.key.address, system: p.key.systemID, component: p.key.componentID)
        var out: [Directive] = []
        func ack(_ result: MAVResult) {
            guard p.acked == nil else { return }
            p.acked = result
            if let target = missionTickets.removeValue(forKey: ticket) {
                let type: MAVMissionResult =
                    result == .accepted ? .mavMissionAccepted : result == .failed ? .mavMissionError : .mavMissionDenied
                out += send(
                    MissionAck(
                        targetSystem: gcs.system, targetComponent: gcs.component, type: type, missionType: .mission),
                    as: target, to: [gcs.address])
            }
            if let c = p.ackCommand {
                out += send(
                    CommandAck(
                        command: MAVCmd(rawValue: c), result: result, progress: 0, resultParam2: 0,
                        targetSystem: gcs.system, targetComponent: gcs.component), as: p.uav, to: [gcs.address])
            }
        }
        /// Tells the station how the command ended (a STATUSTEXT) and marks it finished.
        func finish(_ outcome: String, severity: MAVSeverity) {
            out += statusText(
                "\(p.label) \(outcome)", severity: severity, as: p.uav, to: [gcs.address],
                id: UInt16(truncatingIfNeeded: ticket))
            p.finishedAt = now
        }
        switch answer {
        case .accepted:
            ack(.accepted)
        case .completed:
            ack(.accepted)
            finish("completed", severity: .info)
        case .failed(let why):
            ack(.failed)
            finish("failed: \(why)", severity: .warning)
        case .rejected(let why):
            ack(Self.result(for: why))
            finish("rejected: \(why)", severity: .warning)
            out.append(.note("ground control \(gcs.system): \(p.label) for UAV \(p.uav) rejected: \(why)"))
        }
        pending[ticket] = p
        return out
    }

    /// The MAV_RESULT for a refusal: DENIED when asking again will not help (no such UAV, another station in
    /// control, the vehicle or its autopilot refused); TEMPORARILY_REJECTED when it will, by itself (a number being
    /// resolved, a restarted drone, an autopilot not connected or not heard right now).
    public static func result(for rejection: CommandRejection) -> MAVResult {
        switch rejection {
        case .unknownUAVNumber, .controlledBy: return .denied
        case .contestedNumber, .targetRestarted, .startTime: return .temporarilyRejected
        case .vehicle(let reason):
            if reason.hasPrefix("autopilot silent") || reason.hasPrefix("autopilot not connected")
                || reason.hasPrefix("no position") || reason.hasPrefix("no home")
                || reason.hasSuffix("MAV_RESULT_TEMPORARILY_REJECTED")
            {
                return .temporarilyRejected
            }
            if reason.hasSuffix("MAV_RESULT_UNSUPPORTED") { return .unsupported }
            if reason.hasPrefix("autopilot did not acknowledge") { return .failed }
            return .denied
        }
    }

}
