import AutopilotEmulation
import MAVLink
import Testing

@Suite("Autopilot emulator: ArduPilot commands")
struct ArduPilotCommandTests {
    @Test("HEARTBEAT: quadrotor, ArduPilot, LOITER (5), standby at 1 Hz; armed: safety flag and active")
    func heartbeat() {
        var b = Bench()
        b.run(for: 3.5)
        let beats = b.sent { if case .heartbeat(let h) = $0 { h } else { nil } }
        #expect(beats.count == 4)  // t = 0, 1, 2, 3
        let h = try! #require(beats.first)
        #expect(h.type == .quadrotor && h.autopilot == .ardupilotmega && h.customMode == 5)
        #expect(h.baseMode == [.customModeEnabled] && h.systemStatus == .standby && h.mavlinkVersion == 3)
        #expect(b.emulator.modeName == "LOITER")
        // ArduPilot on a new link: nothing streams until asked (only the landed state, once).
        #expect(b.sent { if case .globalPositionInt(let m) = $0 { m } else { nil } }.isEmpty)
        let landed: [MAVLandedState] = b.sent { if case .extendedSysState(let m) = $0 { m.landedState } else { nil } }
        #expect(landed == [.onGround])

        #expect(b.command(.componentArmDisarm, 1) == .accepted)
        b.run(for: 1)
        #expect(b.heartbeat?.baseMode == [.customModeEnabled, .safetyArmed] && b.heartbeat?.systemStatus == .active)
        let statusTexts = b.sent { if case .statustext(let s) = $0 { s.text } else { nil } }
        #expect(statusTexts == ["Arming motors"])
    }

    @Test("arming: accepted in LOITER and GUIDED, refused in AUTO, RTL and LAND; disarm refused in the air")
    func arming() {
        var b = Bench()
        for mode: UInt32 in [3, 6, 9] {
            #expect(b.setMode(mode) == .accepted)
            #expect(b.command(.componentArmDisarm, 1) == .denied, "mode \(mode)")
            #expect(!b.emulator.armed)
        }
        #expect(b.setMode(5) == .accepted)
        #expect(b.command(.componentArmDisarm, 1) == .accepted)
        #expect(b.command(.componentArmDisarm, 0) == .accepted)  // on the ground
        #expect(!b.emulator.armed)
        b.airborne()
        #expect(b.command(.componentArmDisarm, 0) == .denied)  // in the air
        #expect(b.command(.componentArmDisarm, 1) == .accepted)  // already armed
        #expect(b.emulator.armed)
        // The flight log records each command with its result.
        let arms = b.emulator.commandsReceived.filter { $0.command == .componentArmDisarm }
        #expect(arms.map(\.result) == [.denied, .denied, .denied, .accepted, .accepted, .accepted, .denied, .accepted])
        #expect(arms.allSatisfy { $0.sourceSystem == 255 && $0.sourceComponent == 190 && !$0.isCommandInt })
    }

    @Test("NAV_TAKEOFF: refused disarmed, outside GUIDED, at 0 m and in the air")
    func takeoffRules() {
        var b = Bench()
        #expect(b.setMode(4) == .accepted)
        #expect(b.command(.navTakeoff, 0, 0, 0, 0, 0, 0, 10) == .denied)  // disarmed
        #expect(b.setMode(5) == .accepted)
        #expect(b.command(.componentArmDisarm, 1) == .accepted)
        #expect(b.command(.navTakeoff, 0, 0, 0, 0, 0, 0, 10) == .denied)  // LOITER: ArduPilot takes off only in GUIDED
        #expect(b.setMode(4) == .accepted)
        #expect(b.command(.navTakeoff, 0, 0, 0, 0, 0, 0, 0) == .denied)
        #expect(b.command(.navTakeoff, 0, 0, 0, 0, 0, 0, 5) == .accepted)
        #expect(b.emulator.landedState == .takeoff)
        b.run(for: 1)
        #expect(b.command(.navTakeoff, 0, 0, 0, 0, 0, 0, 5) == .denied)  // no longer on the ground
        // LAND and RTL are refused on the ground.
        var ground = Bench()
        #expect(ground.command(.navLand) == .denied && ground.command(.navReturnToLaunch) == .denied)
    }

    @Test("DO_SET_MODE: unknown modes denied; unsupported commands; other systems' commands unanswered")
    func modesAndAddressing() {
        var b = Bench()
        #expect(b.setMode(7) == .denied)  // CIRCLE: not emulated
        #expect(b.emulator.customMode == 5)
        #expect(b.setMode(4) == .accepted && b.emulator.modeName == "GUIDED")
        b.run(for: 1.01)
        #expect(b.heartbeat?.customMode == 4)
        #expect(b.command(.doSetMode, 1, .nan) == .denied)
        #expect(b.command(.doSetCamTriggInterval) == .unsupported)
        #expect(b.command(.componentArmDisarm, 1, target: 2) == nil)
        #expect(!b.emulator.armed)
        #expect(b.command(.componentArmDisarm, 1, target: 0) == .accepted)  // broadcast
    }

    @Test("fault injection: refuse once with a result, ignore the first transmission")
    func faults() {
        var configuration = AutopilotEmulator.Configuration()
        configuration.refuseOnce = [.componentArmDisarm: .temporarilyRejected]
        configuration.ignoreFirst = [.doSetMode]
        var b = Bench(configuration)
        #expect(b.setMode(4) == nil)
        #expect(b.emulator.modeName == "LOITER")
        #expect(b.setMode(4) == .accepted)
        #expect(b.command(.componentArmDisarm, 1) == .temporarilyRejected)
        #expect(!b.emulator.armed)
        #expect(b.command(.componentArmDisarm, 1) == .accepted)
        #expect(b.emulator.commandsReceived.map(\.result) == [nil, .accepted, .temporarilyRejected, .accepted])
    }

    @Test("DO_CHANGE_SPEED: param2 m/s capped at the limit; −1 changes nothing, −2 restores the cruise speed")
    func changeSpeed() {
        var b = Bench()
        #expect(b.command(.doChangeSpeed, 1, 3, -1) == .accepted && b.emulator.speed == 3)
        #expect(b.command(.doChangeSpeed, 1, -1, -1) == .accepted && b.emulator.speed == 3)
        #expect(b.command(.doChangeSpeed, 1, 25, -1) == .accepted && b.emulator.speed == 10)
        #expect(b.command(.doChangeSpeed, 1, -2, -1) == .accepted && b.emulator.speed == 5)
    }

    @Test("DO_REPOSITION (COMMAND_INT, AMSL) flies there in GUIDED at param1's speed; refused as COMMAND_LONG")
    func reposition() {
        var b = Bench()
        b.airborne(altitude: 10)
        #expect(b.command(.doReposition, 3) == .denied)
        let (lat, lon) = targetE7(east: -20, north: 0)
        let answer = b.send(
            CommandInt(
                targetSystem: 1, targetComponent: 1, frame: .globalInt, command: .doReposition, param1: 3, param2: 1,
                param4: .nan, x: lat, y: lon, z: 300 + 15))
        #expect(Bench.ack(answer, for: .doReposition) == .accepted)
        #expect(b.emulator.modeName == "GUIDED")
        var fastest = 0.0
        let arrived = b.run(for: 30) {
            fastest = max(fastest, $0.groundSpeed)
            return abs($0.emulator.position.x + 20) < 0.3 && abs($0.emulator.position.z - 15) < 0.3
        }
        #expect(arrived != nil)
        #expect(fastest > 2.8 && fastest < 3.1)
        #expect(abs(b.emulator.position.y) < 0.2)
    }
}
