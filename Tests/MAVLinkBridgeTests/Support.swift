import Coordinator
import MAVLink
import MeshTypes

@testable import MAVLinkBridge

/// A test stand-in for an autopilot: builds its frames and reads the bridge's.
struct FakeAutopilot {
    var encoder: MAVLinkEncoder
    var flavour: AutopilotFlavour

    init(systemID: UInt8 = 1, flavour: AutopilotFlavour = .ardupilot) {
        encoder = MAVLinkEncoder(systemID: systemID, componentID: 1)
        self.flavour = flavour
    }

    mutating func bytes(_ m: some MAVLinkMessageType) -> [UInt8] {
        encoder.encode(m, now: MAVLinkTimestamp(rawValue: 0))
    }

    mutating func heartbeat(mode: UInt32 = 0, armed: Bool = false) -> [UInt8] {
        bytes(
            Heartbeat(
                type: .quadrotor, autopilot: flavour == .px4 ? .px4 : .ardupilotmega,
                baseMode: armed ? [.customModeEnabled, .safetyArmed] : [.customModeEnabled],
                customMode: mode, systemStatus: armed ? .active : .standby))
    }

    mutating func position(
        lat: Double = 50.1, lon: Double = 14.4, rel: Double = 0, amsl: Double = 300,
        vn: Int16 = 0, ve: Int16 = 0, vd: Int16 = 0, hdg: UInt16 = 9000
    ) -> [UInt8] {
        bytes(
            GlobalPositionInt(
                timeBootMs: 1, lat: Int32((lat * 1e7).rounded()), lon: Int32((lon * 1e7).rounded()),
                alt: Int32(((amsl + rel) * 1000).rounded()), relativeAlt: Int32((rel * 1000).rounded()),
                vx: vn, vy: ve, vz: vd, hdg: hdg))
    }

    mutating func landed(_ state: MAVLandedState) -> [UInt8] {
        bytes(ExtendedSysState(vtolState: .undefined, landedState: state))
    }

    mutating func ack(_ cmd: MAVCmd, _ result: MAVResult = .accepted) -> [UInt8] {
        bytes(
            CommandAck(
                command: cmd, result: result, progress: 0, resultParam2: 0, targetSystem: 255, targetComponent: 190))
    }
}

/// Every frame in `directives`' sends, decoded.
func sentMessages(_ directives: [AutopilotSession.Directive]) -> [MAVLinkMessage] {
    var parser = MAVLinkParser()
    var out: [MAVLinkMessage] = []
    for case .send(let bytes) in directives {
        for case .frame(let f) in parser.feed(bytes) { out.append(f.message) }
    }
    return out
}

func sentFrames(_ directives: [AutopilotSession.Directive]) -> [MAVLinkFrame] {
    var parser = MAVLinkParser()
    var out: [MAVLinkFrame] = []
    for case .send(let bytes) in directives {
        for case .frame(let f) in parser.feed(bytes) { out.append(f) }
    }
    return out
}

func commands(_ directives: [AutopilotSession.Directive]) -> [CommandLong] {
    sentMessages(directives).compactMap { if case .commandLong(let c) = $0 { return c } else { return nil } }
}

/// The SET_POSITION_TARGET_GLOBAL_INT messages sent.
func positionTargets(_ directives: [AutopilotSession.Directive]) -> [SetPositionTargetGlobalInt] {
    sentMessages(directives).compactMap {
        if case .setPositionTargetGlobalInt(let m) = $0 { return m } else { return nil }
    }
}

/// The directives other than sends (verdicts, completions, reports).
func reports(_ directives: [AutopilotSession.Directive]) -> [AutopilotSession.Directive] {
    directives.filter { if case .send = $0 { return false } else { return true } }
}

let testID = CommandID(origin: NodeID(high: 1, low: 2), originIncarnation: 3, counter: 1)
func commandID(_ n: UInt64) -> CommandID {
    CommandID(origin: NodeID(high: 1, low: 2), originIncarnation: 3, counter: n)
}

func at(_ ms: Int) -> MeshInstant { MeshInstant(nanoseconds: UInt64(ms) * 1_000_000) }

/// A session connected to `autopilot` with a position (landed unless `flying`), at time 0…100 ms.
func connected(
    _ autopilot: inout FakeAutopilot, mode: UInt32 = 0, armed: Bool = false, flying: Bool = false,
    configuration: AutopilotSession.Configuration = .init()
) -> AutopilotSession {
    var s = AutopilotSession(configuration: configuration)
    _ = s.receive(autopilot.heartbeat(mode: mode, armed: armed), endOfDatagram: true, now: at(0))
    _ = s.receive(autopilot.position(rel: flying ? 10 : 0), endOfDatagram: true, now: at(10))
    _ = s.receive(autopilot.landed(flying ? .inAir : .onGround), endOfDatagram: true, now: at(20))
    _ = s.tick(now: at(100))
    return s
}

/// An autopilot flying, armed, in the mode that takes commands (ArduPilot GUIDED, PX4 AUTO.LOITER), and a session
/// connected to it.
func flying(_ flavour: AutopilotFlavour = .ardupilot) -> (FakeAutopilot, AutopilotSession) {
    var autopilot = FakeAutopilot(flavour: flavour)
    let mode = flavour == .px4 ? AutopilotFlavour.px4CustomMode(main: 4, sub: 3) : 4
    let session = connected(&autopilot, mode: mode, armed: true, flying: true)
    return (autopilot, session)
}
