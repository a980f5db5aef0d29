import Coordinator
import Flight
import MAVLink
import MeshTypes

/// The station side of the MAVLink bridge: shows every drone of the mesh to ground-control software (QGroundControl,
/// MAVProxy, pymavlink, MAVSDK) under its UAV number as MAVLink system id, and turns what the ground-control
/// software sends into FleetMesh commands. A sans-IO value type, generic over the shell's address type.
///
/// Inputs: datagrams from ground-control software (`receive`), the coordinator's fleet picture and a tick (`tick`),
/// and the mesh's answers to the commands it asked for (`onAnswer`). Outputs: directives, carried out in order.
///
/// Each vehicle speaks as system id = its UAV number, component 1 (MAV_COMP_ID_AUTOPILOT1), `MAV_AUTOPILOT_GENERIC`,
/// with its own sequence numbers. Streams go to every peer heard in the last `peerTimeout` (whoever sends MAVLink
/// to the endpoint; their heartbeats keep them) and to the configured fixed destinations.
public struct GroundControlBridge<Address: Hashable & Sendable>: Sendable {
    /// Rates and defaults.
    public struct Configuration: Sendable, Hashable {
        /// A peer not heard for this long gets no more streams.
        public var peerTimeout: Duration = .seconds(10)
        /// HEARTBEAT, SYS_STATUS, BATTERY_STATUS, EXTENDED_SYS_STATE.
        public var heartbeatInterval: Duration = .seconds(1)
        /// GLOBAL_POSITION_INT and ATTITUDE (the mesh's telemetry comes at 10 Hz).
        public var positionInterval: Duration = .milliseconds(200)
        /// VFR_HUD.
        public var hudInterval: Duration = .milliseconds(500)
        /// HOME_POSITION, when known.
        public var homeInterval: Duration = .seconds(5)
        /// How long a finished command is remembered, so that a retransmission is answered again, not run again.
        public var answerMemory: Duration = .seconds(5)
        /// NAV_TAKEOFF without an altitude (NaN or ≤ 0) climbs to this many metres.
        public var defaultTakeoffAltitude = 10.0
        /// The system id of the station itself, for answers that no vehicle can give (broadcast or out-of-range
        /// targets). 251: above the UAV numbers 1–250, below the GCS ids 252–255.
        public var stationSystemID: UInt8 = 251
        /// The component id vehicles speak as.
        public var vehicleComponentID: UInt8 = 1

        public init() {}
    }

    /// One vehicle of the fleet picture.
    public struct Vehicle: Sendable, Hashable {
        public var uavNumber: UInt8
        public var state: Coordinator.VehicleState
        /// Telemetry older than the mesh's stale limit: no streams (ground-control software reports comm lost).
        public var isStale: Bool

        public init(uavNumber: UInt8, state: Coordinator.VehicleState, isStale: Bool) {
            self.uavNumber = uavNumber
            self.state = state
            self.isStale = isStale
        }
    }

    /// Someone who sends MAVLink to the endpoint.
    public struct Peer: Sendable, Hashable {
        public var address: Address
        public var systemID: UInt8
        public var componentID: UInt8
        /// Whether it sent a HEARTBEAT (ground-control software does, once a second).
        public var sendsHeartbeats: Bool
        public var lastHeard: MeshInstant
    }

    /// What the shell must do.
    public enum Directive: Sendable, Hashable {
        /// Send one frame to one peer.
        case send([UInt8], to: Address)
        /// Route this command to the drone with this UAV number, like `fleetmesh send`; answer with `onAnswer(ticket:)`.
        case command(Command, uav: UInt8, ticket: UInt64)
        /// Route a manual-control sample (unanswered).
        case manualControl(Coordinator.ManualControl, uav: UInt8)
        /// A new peer (address, system id).
        case peerJoined(Peer)
        /// A peer fell silent.
        case peerLeft(Peer)
        /// Something worth a log line (refusals, unknown targets).
        case note(String)
    }

    /// A command from ground-control software waiting for (or remembered after) its answer.
    struct Pending: Sendable, Hashable {
        var key: CommandKey
        var label: String
        var uav: UInt8
        /// The MAV_CMD the ACK names (11 for SET_MODE); nil for messages without an ACK (SET_POSITION_TARGET_*).
        var ackCommand: UInt16?
        var acked: MAVResult?
        var finishedAt: MeshInstant?
        var receivedAt: MeshInstant
    }

    /// What makes two requests the same request (a retransmission).
    struct CommandKey: Sendable, Hashable {
        var address: Address
        var systemID: UInt8
        var componentID: UInt8
        var target: UInt8
        var command: UInt32
        var parameters: [UInt32]
    }

    struct Schedule: Sendable, Hashable {
        var heartbeat = MeshInstant.zero
        var position = MeshInstant.zero
        var hud = MeshInstant.zero
        var home = MeshInstant.zero
    }

    public let configuration: Configuration
    /// Fixed destinations that get the streams whether or not they send anything (`[ground_control] targets`).
    public let fixedDestinations: [Address]
    public internal(set) var peers: [Address: Peer] = [:]
    var parser = MAVLinkParser()
    var encoders: [UInt8: MAVLinkEncoder] = [:]
    var schedules: [UInt8: Schedule] = [:]
    public internal(set) var fleet: [UInt8: Vehicle] = [:]
    /// Home of each vehicle: where it was last seen on the ground (altitude 0 above home).
    public internal(set) var homes: [UInt8: GeoPoint] = [:]
    /// The map origin's altitude above mean sea level (metres), from the station's `[mission] origin`: GLOBAL_*
    /// altitudes are this plus the altitude above home. 0 when no origin is known.
    public internal(set) var originAltitude = 0.0
    var pending: [UInt64: Pending] = [:]
    var byKey: [CommandKey: UInt64] = [:]
    var nextTicket: UInt64 = 1
    var lastGoto: [UInt8: (point: GeoPoint, at: MeshInstant)] = [:]
    var unknownReported: [UInt8: MeshInstant] = [:]
    /// Missions being uploaded by ground-control software, per UAV number.
    var uploads: [UInt8: Upload] = [:]
    /// Commands that came as a mission upload: their first answer becomes the MISSION_ACK.
    var missionTickets: [UInt64: UInt8] = [:]

    struct Upload: Sendable, Hashable {
        var address: Address
        var system: UInt8
        var component: UInt8
        var count: UInt16
        var items: [MissionItemInt]
        var deadline: MeshInstant
    }

    public init(configuration: Configuration = Configuration(), fixedDestinations: [Address] = []) {
        self.configuration = configuration
        self.fixedDestinations = fixedDestinations
    }

    /// Where streams go now: the fixed destinations and every live peer.
    public var destinations: [Address] {
        var seen = Set(fixedDestinations)
        var out = fixedDestinations
        for p in peers.values.sorted(by: { $0.lastHeard < $1.lastHeard }) where seen.insert(p.address).inserted {
            out.append(p.address)
        }
        return out
    }

    // MARK: - Encoding

    mutating func encode(_ message: some MAVLinkMessageType, as system: UInt8) -> [UInt8] {
        var e = encoders[system] ?? MAVLinkEncoder(systemID: system, componentID: configuration.vehicleComponentID)
        let bytes = e.encode(message, now: MAVLinkTimestamp(rawValue: 0))
        encoders[system] = e
        return bytes
    }

    mutating func send(_ message: some MAVLinkMessageType, as system: UInt8, to addresses: [Address]) -> [Directive] {
        guard !addresses.isEmpty else { return [] }
        let bytes = encode(message, as: system)
        return addresses.map { .send(bytes, to: $0) }
    }

    /// STATUSTEXT, split into 50-byte chunks with an id when longer.
    mutating func statusText(
        _ text: String, severity: MAVSeverity, as system: UInt8, to addresses: [Address],
        id: UInt16
    ) -> [Directive] {
        let chunks = Self.chunks(text)
        var out: [Directive] = []
        for (i, chunk) in chunks.enumerated() {
            let m = Statustext(
                severity: severity, text: chunk, id: chunks.count > 1 ? id : 0, chunkSeq: UInt8(truncatingIfNeeded: i))
            out += send(m, as: system, to: addresses)
        }
        return out
    }

    /// Splits text into pieces of at most 50 UTF-8 bytes, on character boundaries; a chunked text whose last piece
    /// is exactly 50 bytes gets an empty last piece (the terminator a receiver waits for).
    static func chunks(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        for ch in text {
            if current.utf8.count + String(ch).utf8.count > 50 {
                out.append(current)
                current = ""
            }
            current.append(ch)
        }
        out.append(current)
        if out.count > 1, current.utf8.count == 50 { out.append("") }
        return out
    }

    // MARK: - Fleet picture and streams

    /// The coordinator's fleet picture (drones with UAV numbers) and the map origin's altitude; then the streams
    /// that are due, peer expiry, and forgetting old answers.
    public mutating func tick(vehicles: [Vehicle], originAltitude: Double?, now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        self.originAltitude = originAltitude ?? 0
        // Two drones announcing one number (a clash being resolved): the freshest sample speaks for it.
        var picture: [UInt8: Vehicle] = [:]
        for v in vehicles where (1...250).contains(v.uavNumber) {
            if let old = picture[v.uavNumber], !old.isStale, v.isStale { continue }
            picture[v.uavNumber] = v
        }
        fleet = picture
        for (n, v) in picture where !v.isStale && v.state.activity == .landed {
            homes[n] = GeoPoint(
                latitudeE7: v.state.position.latitudeE7, longitudeE7: v.state.position.longitudeE7,
                altitudeMillimetres: 0)
        }
        for (address, peer) in peers where now - peer.lastHeard > configuration.peerTimeout {
            peers[address] = nil
            out.append(.peerLeft(peer))
        }
        for (id, p) in pending {
            if let f = p.finishedAt, now - f > configuration.answerMemory {
                forget(id)
            } else if p.finishedAt == nil, now - p.receivedAt > .seconds(900) {
                forget(id)
            }
        }
        out += expireUploads(now: now)
        let to = destinations
        guard !to.isEmpty else { return out }
        for n in picture.keys.sorted() {
            guard let v = picture[n], !v.isStale else { continue }
            var s = schedules[n] ?? Schedule()
            if now >= s.heartbeat {
                s.heartbeat = Self.nextDeadline(after: s.heartbeat, every: configuration.heartbeatInterval, now: now)
                out += heartbeatGroup(v, now: now, to: to)
            }
            if now >= s.position {
                s.position = Self.nextDeadline(after: s.position, every: configuration.positionInterval, now: now)
                out += send(globalPosition(v, now: now), as: n, to: to)
                out += send(attitude(v, now: now), as: n, to: to)
            }
            if now >= s.hud {
                s.hud = Self.nextDeadline(after: s.hud, every: configuration.hudInterval, now: now)
                out += send(hud(v), as: n, to: to)
            }
            if now >= s.home, let h = homePosition(n, now: now) {
                s.home = Self.nextDeadline(after: s.home, every: configuration.homeInterval, now: now)
                out += send(h, as: n, to: to)
            }
            schedules[n] = s
        }
        return out
    }

    /// The next deadline of a stream on a fixed grid: the previous deadline plus one interval, so a late tick does not
    /// push every later send back (the rate holds on average); when even that is already past (far behind, or the
    /// first send), whole periods are skipped rather than sent in a burst.
    static func nextDeadline(after deadline: MeshInstant, every interval: Duration, now: MeshInstant) -> MeshInstant {
        let next = deadline + interval
        guard next <= now else { return next }
        let behind = now - deadline
        let periods = Int64(behind / interval) + 1
        return deadline + interval * periods
    }

    mutating func forget(_ ticket: UInt64) {
        guard let p = pending.removeValue(forKey: ticket) else { return }
        if byKey[p.key] == ticket { byKey[p.key] = nil }
    }

    static func timeBootMs(_ now: MeshInstant) -> UInt32 { UInt32(truncatingIfNeeded: now.nanoseconds / 1_000_000) }

    /// HEARTBEAT with SYS_STATUS, BATTERY_STATUS and EXTENDED_SYS_STATE, once a second.
    mutating func heartbeatGroup(_ v: Vehicle, now: MeshInstant, to: [Address]) -> [Directive] {
        let s = v.state
        var mode: MAVModeFlag = [.customModeEnabled, .guidedEnabled]
        if s.armed { mode.insert(.safetyArmed) }
        let status: MAVState = s.linkQuality == 0 ? .critical : (s.activity == .landed ? .standby : .active)
        var out = send(
            Heartbeat(
                type: .quadrotor, autopilot: .generic, baseMode: mode, customMode: UInt32(s.activity.wireValue),
                systemStatus: status), as: v.uavNumber, to: to)
        out += send(
            SysStatus(
                voltageBattery: UInt16.max, currentBattery: -1, batteryRemaining: Int8(min(100, s.batteryPercent)),
                dropRateComm: UInt16(100 - min(100, s.linkQuality)) * 100), as: v.uavNumber, to: to)
        out += send(
            BatteryStatus(
                id: 0, batteryFunction: .all, type: .unknown, temperature: Int16.max,
                voltages: Array(repeating: UInt16.max, count: 10), currentBattery: -1, currentConsumed: -1,
                energyConsumed: -1, batteryRemaining: Int8(min(100, s.batteryPercent))),
            as: v.uavNumber, to: to)
        let landed: MAVLandedState
        switch s.activity {
        case .landed: landed = .onGround
        case .takingOff: landed = .takeoff
        case .landing: landed = .landing
        default: landed = .inAir
        }
        out += send(ExtendedSysState(vtolState: .undefined, landedState: landed), as: v.uavNumber, to: to)
        return out
    }

    func globalPosition(_ v: Vehicle, now: MeshInstant) -> GlobalPositionInt {
        let s = v.state
        return GlobalPositionInt(
            timeBootMs: Self.timeBootMs(now), lat: s.position.latitudeE7, lon: s.position.longitudeE7,
            alt: Int32(clamping: Int64((originAltitude * 1000).rounded()) + Int64(s.position.altitudeMillimetres)),
            relativeAlt: s.position.altitudeMillimetres, vx: s.velocityNorthCmS, vy: s.velocityEastCmS,
            vz: s.velocityDownCmS, hdg: s.headingCentidegrees % 36000)
    }

    func attitude(_ v: Vehicle, now: MeshInstant) -> Attitude {
        var yaw = Double(v.state.headingCentidegrees) / 100 * .pi / 180
        if yaw > .pi { yaw -= 2 * .pi }
        return Attitude(timeBootMs: Self.timeBootMs(now), roll: 0, pitch: 0, yaw: Float(yaw))
    }

    func hud(_ v: Vehicle) -> VfrHud {
        let s = v.state
        let vn = Double(s.velocityNorthCmS) / 100, ve = Double(s.velocityEastCmS) / 100
        let speed = Float((vn * vn + ve * ve).squareRoot())
        return VfrHud(
            airspeed: speed, groundspeed: speed, heading: Int16(s.headingCentidegrees / 100), throttle: 0,
            alt: Float(originAltitude + s.position.altitude), climb: Float(-Double(s.velocityDownCmS) / 100))
    }

    func homePosition(_ n: UInt8, now: MeshInstant) -> HomePosition? {
        guard let h = homes[n] else { return nil }
        return HomePosition(
            latitude: h.latitudeE7, longitude: h.longitudeE7, altitude: Int32((originAltitude * 1000).rounded()),
            x: 0, y: 0, z: 0, q: [1, 0, 0, 0], approachX: 0, approachY: 0, approachZ: 0,
            timeUsec: now.nanoseconds / 1000)
    }
}
