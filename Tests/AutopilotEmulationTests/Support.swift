import AutopilotEmulation
import Flight
import Geodesy
import MAVLink
import Testing

/// A companion computer on a clock, driving an emulator with real frames both ways: it encodes as the bridge does
/// (system 255, component 190) and parses every frame the emulator sends.
struct Bench {
    var emulator: AutopilotEmulator
    var encoder = MAVLinkEncoder(systemID: 255, componentID: 190)
    var now = 0.0
    /// Every frame the emulator sent, with the time.
    var frames: [(time: Double, frame: MAVLinkFrame)] = []
    /// The latest of each telemetry message, as parsed.
    var heartbeat: Heartbeat?
    var position: GlobalPositionInt?
    var landedState: MAVLandedState?

    init(_ configuration: AutopilotEmulator.Configuration = .init()) {
        emulator = AutopilotEmulator(configuration: configuration)
        take(emulator.advance(to: now))
    }

    /// Parses frames from the emulator: each must be exactly one valid MAVLink 2 frame from system 1 / component 1.
    @discardableResult
    mutating func take(_ sent: [[UInt8]]) -> [MAVLinkFrame] {
        var out: [MAVLinkFrame] = []
        for bytes in sent {
            var parser = MAVLinkParser()
            let events = parser.feed(bytes) + parser.finish()
            guard events.count == 1, case .frame(let f) = events[0], f.version == .v2 else {
                Issue.record("not one valid frame: \(events)")
                continue
            }
            #expect(
                f.systemID == emulator.configuration.systemID && f.componentID == emulator.configuration.componentID)
            out.append(f)
            frames.append((now, f))
            switch f.message {
            case .heartbeat(let m): heartbeat = m
            case .globalPositionInt(let m): position = m
            case .extendedSysState(let m): landedState = m.landedState
            default: break
            }
        }
        return out
    }

    /// Sends a message (one UDP datagram) and returns the frames answered.
    @discardableResult
    mutating func send(_ message: some MAVLinkMessageType) -> [MAVLinkFrame] {
        take(
            emulator.receive(encoder.encode(message, now: MAVLinkTimestamp(rawValue: 0)), endOfDatagram: true, now: now)
        )
    }

    /// Sends COMMAND_LONG to system 1 and returns the COMMAND_ACK's result (nil: no ACK).
    @discardableResult
    mutating func command(
        _ cmd: MAVCmd, _ p1: Float = 0, _ p2: Float = 0, _ p3: Float = 0, _ p4: Float = 0, _ p5: Float = 0,
        _ p6: Float = 0, _ p7: Float = 0, target: UInt8 = 1
    ) -> MAVResult? {
        let answer = send(
            CommandLong(
                targetSystem: target, targetComponent: 1, command: cmd, param1: p1, param2: p2, param3: p3,
                param4: p4, param5: p5, param6: p6, param7: p7))
        return Self.ack(answer, for: cmd)
    }

    static func ack(_ frames: [MAVLinkFrame], for cmd: MAVCmd) -> MAVResult? {
        for f in frames {
            if case .commandAck(let a) = f.message, a.command == cmd {
                #expect(a.targetSystem == 255 && a.targetComponent == 190, "the ACK goes back to the sender")
                return a.result
            }
        }
        return nil
    }

    /// ArduPilot DO_SET_MODE with the mode number.
    @discardableResult
    mutating func setMode(_ mode: UInt32) -> MAVResult? {
        command(.doSetMode, Float(MAVModeFlag.customModeEnabled.rawValue), Float(mode))
    }

    /// Runs the clock in `step` increments for up to `seconds`, taking telemetry; stops early (returning the time)
    /// when `until` holds.
    @discardableResult
    mutating func run(for seconds: Double, step: Double = 0.01, until: ((Bench) -> Bool)? = nil) -> Double? {
        let end = now + seconds
        while now < end - 1e-9 {
            now = min(end, now + step)
            take(emulator.advance(to: now))
            if let until, until(self) { return now }
        }
        return nil
    }

    /// Relative altitude (m) from the latest GLOBAL_POSITION_INT.
    var altitude: Double { Double(position?.relativeAlt ?? 0) / 1000 }
    /// Whether the latest HEARTBEAT says armed.
    var armed: Bool { heartbeat?.baseMode.contains(.safetyArmed) ?? false }
    /// Horizontal speed (m/s) from the latest GLOBAL_POSITION_INT.
    var groundSpeed: Double {
        guard let p = position else { return 0 }
        return (Double(p.vx) * Double(p.vx) + Double(p.vy) * Double(p.vy)).squareRoot() / 100
    }

    /// Messages of one kind the emulator sent since `time`.
    func sent<M>(since time: Double = -1, _ pick: (MAVLinkMessage) -> M?) -> [M] {
        frames.filter { $0.time >= time }.compactMap { pick($0.frame.message) }
    }

    /// Asks for every stream at the default rates (as the bridge does on connecting to ArduPilot).
    mutating func requestStreams() {
        for id in [GlobalPositionInt.id, Attitude.id, SysStatus.id, ExtendedSysState.id, HomePosition.id] {
            #expect(command(.setMessageInterval, Float(id), 0) == .accepted)
        }
    }

    /// Streams on, GUIDED, armed, taken off to `altitude` m above home and settled.
    mutating func airborne(altitude: Double = 10) {
        requestStreams()
        #expect(setMode(4) == .accepted)
        #expect(command(.componentArmDisarm, 1) == .accepted)
        #expect(command(.navTakeoff, 0, 0, 0, 0, 0, 0, Float(altitude)) == .accepted)
        run(for: 30) { $0.landedState == .inAir && abs($0.altitude - altitude) < 0.1 }
        #expect(landedState == .inAir)
    }
}

/// The tangent plane at the default home, to place targets.
let homePlane = TangentPlane(origin: GeodeticCoordinate(latitude: 50.0901, longitude: 14.4101, altitude: 300))

/// Latitude and longitude (× 1e7) of a point `east`, `north` metres from the default home.
func targetE7(east: Double, north: Double) -> (lat: Int32, lon: Int32) {
    let g = homePlane.geodetic(LocalPosition(east: east, north: north, up: 0))
    return (Int32((g.latitude * 1e7).rounded()), Int32((g.longitude * 1e7).rounded()))
}

/// SET_POSITION_TARGET_GLOBAL_INT as the bridge sends it: position only, altitude above home.
func positionTarget(east: Double, north: Double, up: Double, target: UInt8 = 1) -> SetPositionTargetGlobalInt {
    let (lat, lon) = targetE7(east: east, north: north)
    return SetPositionTargetGlobalInt(
        targetSystem: target, targetComponent: 1, coordinateFrame: .globalRelativeAltInt,
        typeMask: [.vxIgnore, .vyIgnore, .vzIgnore, .axIgnore, .ayIgnore, .azIgnore, .yawIgnore, .yawRateIgnore],
        latInt: lat, lonInt: lon, alt: Float(up))
}
