import Coordinator
import MAVLink
import MeshTypes

/// The drone side of the MAVLink bridge: one autopilot (PX4 or ArduPilot) on one link, as a sans-IO value type.
///
/// Fed the autopilot's bytes (`receive`), the coordinator's commands, targets, manual control and failsafe actions,
/// and a tick; answers with directives the shell carries out in order: frames to send to the autopilot, the
/// vehicle's verdict and completion for each command, and reports (connected, silent, mode changes, the
/// autopilot's STATUSTEXT). The autopilot's telemetry is read into `vehicleState` for the mesh.
///
/// Identity: the bridge talks to the autopilot's own system id, learned from its first HEARTBEAT (or pinned in the
/// configuration), and speaks as `configuration.systemID` (255, the ground-control id ArduPilot accepts
/// MANUAL_CONTROL and GCS heartbeats from). It never changes the autopilot's parameters: if the autopilot's system id
/// differs from the drone's UAV number, the mesh and ground-control software still see the UAV number, and the
/// bridge maps it to the autopilot's id on this link.
public struct AutopilotSession: Sendable {
    /// Timings and identities.
    public struct Configuration: Sendable, Hashable {
        /// The system id the bridge sends with (ArduPilot's SYSID_MYGCS default).
        public var systemID: UInt8 = 255
        /// The component id the bridge sends with (MAV_COMP_ID_MISSIONPLANNER).
        public var componentID: UInt8 = 190
        /// The autopilot's system id; nil = learn it from the first autopilot HEARTBEAT.
        public var autopilotSystemID: UInt8?
        /// No HEARTBEAT from the autopilot for this long: it is reported silent and commands are refused.
        public var silenceTimeout: Duration = .seconds(3)
        /// How long to wait for a COMMAND_ACK (or a mission request) before sending again.
        public var ackTimeout: Duration = .seconds(1)
        /// Transmissions of one COMMAND_LONG before giving up (the first plus retries).
        public var attempts = 3
        /// How long to keep waiting after MAV_RESULT_IN_PROGRESS.
        public var inProgressTimeout: Duration = .seconds(10)
        /// The bridge's own HEARTBEAT to the autopilot.
        public var heartbeatInterval: Duration = .seconds(1)
        /// PX4 OFFBOARD needs a setpoint stream of at least 2 Hz; the bridge sends 10 Hz.
        public var setpointInterval: Duration = .milliseconds(100)
        /// PX4: how long the setpoint stream runs before the switch to OFFBOARD (real PX4 refuses OFFBOARD without a
        /// stream already running; the emulators want 0.5 s). 0: switch with the first setpoint.
        public var offboardPrestream: Duration = .milliseconds(600)
        /// PX4: while the node commands a held point or a goto that nothing steers, the goal point is streamed this
        /// often (ignored outside OFFBOARD), so that avoidance's steering finds the stream running and switches to
        /// OFFBOARD at once instead of after `offboardPrestream`. nil: no such stream.
        public var warmStreamInterval: Duration? = .milliseconds(250)
        /// A goto is complete within this horizontal distance (metres) …
        public var arrivalRadius = 1.0
        /// … and this vertical distance (metres). Takeoff is complete within it (or 5 % of the altitude).
        public var altitudeTolerance = 0.7
        /// Message intervals asked for with MAV_CMD_SET_MESSAGE_INTERVAL once connected (message id → µs).
        public var streamIntervals: [UInt32: Int32] = [
            GlobalPositionInt.id: 100_000, Attitude.id: 100_000, SysStatus.id: 1_000_000,
            ExtendedSysState.id: 1_000_000, BatteryStatus.id: 1_000_000, HomePosition.id: 5_000_000,
        ]

        public init() {}
    }

    /// Who is on the other end, from its HEARTBEAT.
    public struct Identity: Sendable, Hashable, CustomStringConvertible {
        public var systemID: UInt8
        public var componentID: UInt8
        public var flavour: AutopilotFlavour
        public var type: MAVType

        public var description: String {
            "\(flavour.rawValue) autopilot, system id \(systemID), component \(componentID)"
        }
    }

    /// What the shell must do.
    public enum Directive: Sendable, Hashable {
        /// Send these bytes (one frame) to the autopilot.
        case send([UInt8])
        /// The vehicle's verdict on a command from the mesh.
        case verdict(CommandID, VehicleVerdict)
        /// How an accepted command ended.
        case completion(CommandID, VehicleCompletion)
        /// The vehicle took off or landed.
        case flyingChanged(Bool)
        /// An autopilot was heard (first HEARTBEAT, or back after silence, or a different one).
        case connected(Identity)
        /// No HEARTBEAT for this long: commands are refused and running ones failed.
        case silent(Duration)
        /// The autopilot's flight mode changed (readable name).
        case modeChanged(String)
        /// The autopilot's own STATUSTEXT.
        case statusText(MAVSeverity, String)
        /// Something worth a log line (a retry, an internal step refused).
        case note(String)
        /// The node stopped commanding the vehicle without a command from the mesh: the pilot or the firmware took
        /// it (a mode the node did not ask for), or it fell silent. Nothing is sent to it, and it does not avoid, until
        /// the next command.
        case released(String)
    }

    /// The autopilot's latest reports.
    public struct Telemetry: Sendable, Hashable {
        public var position: GeoPoint?
        public var velocityNorthCmS: Int16 = 0
        public var velocityEastCmS: Int16 = 0
        public var velocityDownCmS: Int16 = 0
        public var headingCentidegrees: UInt16?
        public var yawCentidegrees: UInt16?
        public var batteryPercent: UInt8?
        public var baseMode: MAVModeFlag = []
        public var customMode: UInt32 = 0
        public var systemStatus: MAVState = .uninit
        public var landedState: MAVLandedState?
        /// Home (takeoff point) above mean sea level, mm: HOME_POSITION, else GLOBAL_POSITION_INT alt − relative_alt.
        public var homeAMSLMillimetres: Int32?
        public var homeFromHomePosition = false
        public var armed: Bool { baseMode.contains(.safetyArmed) }
    }

    public let configuration: Configuration
    var parser = MAVLinkParser()
    var encoder: MAVLinkEncoder
    /// The autopilot, once heard.
    public private(set) var identity: Identity?
    public private(set) var telemetry = Telemetry()
    var lastHeartbeatAt: MeshInstant?
    var connectedAt: MeshInstant?
    public private(set) var isSilent = false
    var nextHeartbeatAt = MeshInstant.zero
    var nextStreamRequestAt: MeshInstant?
    var streamRequestsSent = false
    var plan: Plan?
    var running: Running?
    var intent: Intent = .idle
    var following = false
    var setpoint: GeoPoint?
    /// The latest target from the mesh: where following starts.
    var lastTarget: GeoPoint?
    var nextSetpointAt = MeshInstant.zero
    /// PX4, while avoidance caps the speed: the point streamed now, moving toward the steering point at the cap.
    var carrot: GeoPoint?
    /// Steering asked for GUIDED / OFFBOARD and waits for the COMMAND_ACK (a refusal lets the vehicle go).
    var steeringModeAsked = false
    /// PX4: steering's setpoint stream runs first; OFFBOARD is asked for at this time (see `offboardPrestream`).
    var steeringModeDueAt: MeshInstant?
    /// PX4: when the position-target stream now running began, and when its last target left (see
    /// `warmStreamInterval`).
    var streamSince: MeshInstant?
    var lastStreamedAt: MeshInstant?
    var nextWarmAt = MeshInstant.zero
    /// The autopilot has been seen in GUIDED / OFFBOARD since the steering began (leaving it then lets the vehicle go).
    var steeringReachedMode = false
    /// What the last accepted hover, goto or takeoff left the vehicle flying (see `goal`).
    var heldGoal: Goal?
    /// The waypoints of the trajectory flown as a mission, with their mission sequence numbers (see `plannedFlight`).
    var missionWaypoints: [(seq: UInt16, point: GeoPoint)] = []
    /// The mission item being flown to (MISSION_CURRENT, or the one after the last MISSION_ITEM_REACHED).
    var missionCurrentSeq: UInt16 = 0
    /// The modes the vehicle may be in while the node commands it (those of the last accepted command, and GUIDED or
    /// OFFBOARD while avoidance steers it); another one while airborne means the pilot or the firmware took it.
    var controlModes: Set<UInt32> = []
    /// ArduPilot's speed was set by a goto or by steering (DO_CHANGE_SPEED), so a goto without a speed restores it.
    var speedOverridden = false
    /// Collision avoidance is steering the vehicle (see `steer(to:speed:now:)`).
    public internal(set) var steering: Steering?
    public private(set) var flying = false
    var sawHeartbeatMode = false
    /// Sequence tracking for link quality: frames received and lost (decayed).
    var lastSequence: UInt8?
    var received = 0.0
    var lost = 0.0
    var bootTime = MeshInstant.zero

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        encoder = MAVLinkEncoder(systemID: configuration.systemID, componentID: configuration.componentID)
    }

    /// The system id the bridge addresses (the autopilot's, once known).
    public var targetSystemID: UInt8? { identity?.systemID ?? configuration.autopilotSystemID }

    /// How long ago the autopilot's last HEARTBEAT arrived; nil if none has.
    public func heartbeatAge(now: MeshInstant) -> Duration? { lastHeartbeatAt.map { now - $0 } }

    /// The readable name of the autopilot's current mode.
    public var modeName: String? { identity.map { $0.flavour.modeName(telemetry.customMode) } }

    // MARK: - Encoding

    mutating func frame(_ message: some MAVLinkMessageType) -> Directive {
        .send(encoder.encode(message, now: MAVLinkTimestamp(rawValue: 0)))
    }

    mutating func frame(_ message: MAVLinkMessage) -> Directive {
        guard let f = try? encoder.frame(for: message, now: MAVLinkTimestamp(rawValue: 0)) else {
            return .note("cannot encode message \(message.id)")
        }
        return .send(f.bytes)
    }

    // MARK: - Inputs

    /// Bytes from the link. `endOfDatagram`: a UDP datagram ends here (an incomplete frame is dropped); false for a
    /// serial stream.
    public mutating func receive(_ bytes: [UInt8], endOfDatagram: Bool, now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        var events = parser.feed(bytes)
        if endOfDatagram { events += parser.finish() }
        for e in events {
            if case .frame(let f) = e { out += handle(f, now: now) }
        }
        return out
    }

    /// One frame from the link.
    public mutating func handle(_ frame: MAVLinkFrame, now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        if case .heartbeat(let hb) = frame.message, isAutopilotHeartbeat(hb, frame) {
            out += onHeartbeat(hb, frame, now: now)
        }
        guard let identity, frame.systemID == identity.systemID else { return out }
        if frame.componentID == identity.componentID { countSequence(frame.sequence) }
        switch frame.message {
        case .globalPositionInt(let m):
            telemetry.position = GeoPoint(latitudeE7: m.lat, longitudeE7: m.lon, altitudeMillimetres: m.relativeAlt)
            telemetry.velocityNorthCmS = m.vx
            telemetry.velocityEastCmS = m.vy
            telemetry.velocityDownCmS = m.vz
            telemetry.headingCentidegrees = m.hdg == UInt16.max ? nil : m.hdg % 36000
            if !telemetry.homeFromHomePosition { telemetry.homeAMSLMillimetres = m.alt &- m.relativeAlt }
            if streamRequestsSent { nextStreamRequestAt = nil }  // the streams flow: no need to ask again
            out += updateFlying(now: now)
            out += checkRunning(now: now)
        case .attitude(let m) where m.yaw.isFinite:
            var deg = Double(m.yaw) * 180 / .pi
            deg = deg.truncatingRemainder(dividingBy: 360)
            if deg < 0 { deg += 360 }
            telemetry.yawCentidegrees = UInt16(min(35999, max(0, (deg * 100).rounded())))
        case .sysStatus(let m):
            if m.batteryRemaining >= 0 { telemetry.batteryPercent = UInt8(min(100, m.batteryRemaining)) }
        case .batteryStatus(let m):
            if m.id == 0, m.batteryRemaining >= 0 { telemetry.batteryPercent = UInt8(min(100, m.batteryRemaining)) }
        case .extendedSysState(let m):
            telemetry.landedState = m.landedState == .undefined ? nil : m.landedState
            out += updateFlying(now: now)
        case .homePosition(let m):
            telemetry.homeAMSLMillimetres = m.altitude
            telemetry.homeFromHomePosition = true
        case .commandAck(let m):
            if m.targetSystem == 0 || m.targetSystem == configuration.systemID { out += onAck(m, now: now) }
        case .missionRequestInt(let m):
            if m.targetSystem == configuration.systemID { out += onMissionRequest(m.seq, now: now) }
        case .missionRequest(let m):
            if m.targetSystem == configuration.systemID { out += onMissionRequest(m.seq, now: now) }
        case .missionAck(let m):
            if m.targetSystem == configuration.systemID { out += onMissionAck(m.type, now: now) }
        case .missionCurrent(let m):
            missionCurrentSeq = m.seq
        case .missionItemReached(let m):
            missionCurrentSeq = max(missionCurrentSeq, m.seq &+ 1)
            if let r = running, case .missionEnd(let last) = r.completion, m.seq >= last {
                out += finishRunning(.completed)
            }
        case .statustext(let m):
            out.append(.statusText(m.severity, m.text))
        default:
            break
        }
        return out
    }

    /// A HEARTBEAT from a flight controller (not a GCS, camera or another companion), of the pinned system if any.
    func isAutopilotHeartbeat(_ hb: Heartbeat, _ frame: MAVLinkFrame) -> Bool {
        guard hb.autopilot != .invalid, hb.type != .gcs else { return false }
        if let pinned = configuration.autopilotSystemID { return frame.systemID == pinned }
        if let identity, !isSilent {
            return frame.systemID == identity.systemID && frame.componentID == identity.componentID
        }
        return true
    }

    mutating func onHeartbeat(_ hb: Heartbeat, _ frame: MAVLinkFrame, now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        let id = Identity(
            systemID: frame.systemID, componentID: frame.componentID, flavour: AutopilotFlavour(hb.autopilot),
            type: hb.type)
        let wasSilent = isSilent
        if identity != id || isSilent {
            if identity?.systemID != id.systemID { resetLink() }
            identity = id
            isSilent = false
            connectedAt = now
            nextStreamRequestAt = now
            streamRequestsSent = false
            out.append(.connected(id))
            if wasSilent { lastSequence = nil }
        }
        lastHeartbeatAt = now
        let armedBefore = telemetry.armed
        let modeBefore = telemetry.customMode
        telemetry.baseMode = hb.baseMode
        telemetry.customMode = hb.customMode
        telemetry.systemStatus = hb.systemStatus
        if !sawHeartbeatMode || modeBefore != hb.customMode {
            out.append(.modeChanged(id.flavour.modeName(hb.customMode)))
            // Taken by the pilot or the firmware? Asked before the running command fails (failing it drops its goal,
            // which would hide the takeover), acted on after.
            let taken =
                sawHeartbeatMode && hb.customMode != modeBefore ? takenBy(hb.customMode, flavour: id.flavour) : nil
            if sawHeartbeatMode, var r = running, !r.modes.isEmpty, !r.modes.contains(hb.customMode) {
                r.modes = []
                running = r
                out += finishRunning(.failed("autopilot switched to \(id.flavour.modeName(hb.customMode))"))
            }
            if let taken { out += release(taken, evenWithoutGoal: true) }
            if hb.customMode != modeBefore, intent == .manual, !id.flavour.isMode(hb.customMode, .manual) {
                intent = .idle
            }
        }
        if steering != nil, id.flavour.isMode(hb.customMode, .guided) { steeringReachedMode = true }
        sawHeartbeatMode = true
        if armedBefore && !telemetry.armed, let r = running {
            switch r.completion {
            case .landed: break
            default: out += finishRunning(.failed("autopilot disarmed"))
            }
        }
        out += updateFlying(now: now)
        out += checkRunning(now: now)
        return out
    }

    mutating func resetLink() {
        telemetry = Telemetry()
        lastSequence = nil
        received = 0
        lost = 0
        sawHeartbeatMode = false
    }

    mutating func countSequence(_ seq: UInt8) {
        if let last = lastSequence {
            let gap = Int(seq &- last &- 1)
            if gap < 128 { lost += Double(gap) }  // a larger jump is a reorder or a restart, not loss
        }
        lastSequence = seq
        received += 1
        if received + lost > 200 {
            received /= 2
            lost /= 2
        }
    }

    /// 0…100: the share of the autopilot's frames that arrived (by sequence numbers); 0 while it is silent.
    public var linkQuality: UInt8 {
        guard identity != nil, !isSilent else { return 0 }
        guard received + lost > 0 else { return 100 }
        return UInt8((100 * received / (received + lost)).rounded())
    }

    mutating func updateFlying(now: MeshInstant) -> [Directive] {
        let airborne: Bool
        if let landed = telemetry.landedState {
            airborne = landed == .inAir || landed == .landing || (landed == .takeoff && telemetry.armed)
        } else {
            airborne = telemetry.armed && (telemetry.position?.altitudeMillimetres ?? 0) > 500
        }
        guard airborne != flying else { return [] }
        flying = airborne
        if !airborne, intent != .idle, running == nil { intent = .idle }
        return [.flyingChanged(airborne)]
    }

    // MARK: - Tick

    /// Timers: the bridge's heartbeat, silence detection, retries, the PX4 setpoint stream, completion checks.
    public mutating func tick(now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        if now >= nextHeartbeatAt {
            nextHeartbeatAt = now + configuration.heartbeatInterval
            out.append(
                frame(Heartbeat(type: .gcs, autopilot: .invalid, baseMode: [], customMode: 0, systemStatus: .active)))
        }
        if let last = lastHeartbeatAt, !isSilent, now - last > configuration.silenceTimeout {
            isSilent = true
            out.append(.silent(now - last))
            if let p = plan {
                plan = nil
                out += failPlan(p, "autopilot silent")
            }
            out += finishRunning(.failed("autopilot silent"))
            stopFollowing()
            out += release("the autopilot fell silent")
        }
        if let at = nextStreamRequestAt, now >= at, let target = targetSystemID, !isSilent {
            // Ask for the telemetry streams; again every 5 s until positions arrive.
            nextStreamRequestAt = now + .seconds(5)
            streamRequestsSent = true
            for (id, interval) in configuration.streamIntervals.sorted(by: { $0.key < $1.key }) {
                out.append(
                    frame(
                        CommandLong(
                            targetSystem: target, targetComponent: identity?.componentID ?? 1,
                            command: .setMessageInterval, param1: Float(id), param2: Float(interval))))
            }
            out.append(
                frame(
                    CommandLong(
                        targetSystem: target, targetComponent: identity?.componentID ?? 1,
                        command: .requestMessage, param1: Float(HomePosition.id))))
        }
        out += advancePlan(now: now)
        if let sp = setpoint, now >= nextSetpointAt, let target = targetSystemID, !isSilent {
            nextSetpointAt = now + configuration.setpointInterval
            out.append(frame(positionTarget(streamed(sp), target: target, now: now)))
            noteStreamed(now: now)
        }
        out += warmOffboardStream(now: now)
        out += askSteeringMode(now: now)
        out += checkRunning(now: now)
        return out
    }
}
