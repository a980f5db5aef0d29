import AutopilotEmulation
import MAVLink
import Testing

@Suite("Autopilot emulator: PX4")
struct PX4Tests {
    static let loiter: UInt32 = 4 << 16 | 3 << 24
    static let takeoff: UInt32 = 4 << 16 | 2 << 24
    static let offboard: UInt32 = 6 << 16

    func px4() -> Bench { Bench(.init(flavour: .px4, systemID: 42)) }

    /// DO_SET_MODE as the bridge sends it to PX4: main mode in param2, sub mode in param3.
    func setMode(_ b: inout Bench, main: Float, sub: Float = 0) -> MAVResult? {
        b.command(.doSetMode, 1, main, sub, target: 42)
    }

    /// Arms and sends NAV_TAKEOFF to `amsl` metres above sea level (NaN: the default height); both are accepted.
    func armAndTakeOff(_ b: inout Bench, amsl: Float, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(b.command(.componentArmDisarm, 1, target: 42) == .accepted, sourceLocation: sourceLocation)
        #expect(
            b.command(.navTakeoff, -1, 0, 0, .nan, .nan, .nan, amsl, target: 42) == .accepted,
            sourceLocation: sourceLocation)
    }

    @Test("HEARTBEAT: PX4, AUTO.LOITER, system 42; telemetry streams without being asked")
    func heartbeatAndStreams() {
        var b = px4()
        b.run(for: 1)
        #expect(b.heartbeat?.autopilot == .px4 && b.heartbeat?.customMode == Self.loiter)
        #expect(b.emulator.modeName == "AUTO.LOITER")
        #expect(b.frames.filter { $0.frame.messageID == GlobalPositionInt.id }.count == 11)  // t = 0, 0.1, … 1.0
        #expect(b.command(.componentArmDisarm, 1) == nil)  // system 1 is not there
    }

    @Test("NAV_TAKEOFF: altitude AMSL in AUTO.TAKEOFF (NaN: 2.5 m), then AUTO.LOITER at the altitude")
    func takeoff() {
        var b = px4()
        armAndTakeOff(&b, amsl: 310)
        #expect(b.emulator.customMode == Self.takeoff)
        b.run(for: 20) { $0.emulator.customMode == Self.loiter }
        #expect(abs(b.emulator.position.z - 10) < 0.15 && b.landedState == .inAir)
        #expect(b.emulator.log.contains { $0.event == .modeChanged("AUTO.LOITER", reason: "takeoff done") })

        var c = px4()
        armAndTakeOff(&c, amsl: .nan)
        c.run(for: 10)
        #expect(abs(c.emulator.position.z - 2.5) < 0.15)
    }

    @Test("OFFBOARD: refused without a setpoint stream, flies the stream, falls back to AUTO.LOITER when it stops")
    func offboard() {
        var b = px4()
        armAndTakeOff(&b, amsl: 305)
        b.run(for: 10)
        #expect(setMode(&b, main: 6) == .denied)
        for _ in 0..<5 {
            b.send(AutopilotEmulationTests.positionTarget(east: 20, north: 0, up: 5, target: 42))
            b.run(for: 0.1)
        }
        #expect(b.emulator.position.x.magnitude < 0.01)  // not yet in OFFBOARD: not taken
        #expect(setMode(&b, main: 6) == .accepted && b.emulator.customMode == Self.offboard)
        for _ in 0..<30 {
            b.send(AutopilotEmulationTests.positionTarget(east: 20, north: 0, up: 5, target: 42))
            b.run(for: 0.1)
        }
        #expect(b.emulator.position.x > 5)
        // The stream stops: 0.5 s later it holds in AUTO.LOITER where it stops, short of the target.
        let stop = b.now - 0.1  // the last position target
        let left = try! #require(b.run(for: 2) { $0.emulator.customMode == Self.loiter })
        #expect(left - stop > 0.49 && left - stop < 0.53, "\(left - stop)")
        b.run(for: 5)
        let held = b.emulator.position
        b.run(for: 3)
        #expect(held.x < 19 && b.emulator.position.distance(to: held) < 0.01)
    }

    @Test("OFFBOARD needs the stream running for 0.5 s at 2 Hz or more first, as real PX4")
    func offboardPrestream() {
        var b = px4()
        armAndTakeOff(&b, amsl: 305)
        b.run(for: 10)
        // Two setpoints 0.1 s apart: too short a stream.
        for _ in 0..<2 {
            b.send(AutopilotEmulationTests.positionTarget(east: 0, north: 0, up: 5, target: 42))
            b.run(for: 0.1)
        }
        #expect(setMode(&b, main: 6) == .denied)
        // 1 Hz for 3 s: long enough, too slow.
        b.run(for: 1)
        for _ in 0..<3 {
            b.send(AutopilotEmulationTests.positionTarget(east: 0, north: 0, up: 5, target: 42))
            b.run(for: 1)
        }
        #expect(setMode(&b, main: 6) == .denied)
        // Every 0.45 s (over 2 Hz) for 1.35 s: taken.
        for _ in 0..<3 {
            b.send(AutopilotEmulationTests.positionTarget(east: 0, north: 0, up: 5, target: 42))
            b.run(for: 0.45)
        }
        #expect(setMode(&b, main: 6) == .accepted && b.emulator.customMode == Self.offboard)
        // A shorter configured prestream: 0.2 s is enough.
        var config = AutopilotEmulator.Configuration(flavour: .px4, systemID: 42)
        config.offboardPrestream = 0.2
        var c = Bench(config)
        armAndTakeOff(&c, amsl: 305)
        c.run(for: 10)
        for _ in 0..<3 {
            c.send(AutopilotEmulationTests.positionTarget(east: 0, north: 0, up: 5, target: 42))
            c.run(for: 0.1)
        }
        #expect(setMode(&c, main: 6) == .accepted)
    }

    @Test("DO_REPOSITION in AUTO.LOITER; RTL lands at home and disarms")
    func repositionAndReturn() {
        var b = px4()
        armAndTakeOff(&b, amsl: 310)
        b.run(for: 12)
        let (lat, lon) = targetE7(east: 0, north: 25)
        let answer = b.send(
            CommandInt(
                targetSystem: 42, targetComponent: 1, frame: .global, command: .doReposition, param1: -1, param2: 1,
                param4: .nan, x: lat, y: lon, z: 312))
        #expect(Bench.ack(answer, for: .doReposition) == .accepted && b.emulator.customMode == Self.loiter)
        b.run(for: 15)
        #expect(b.emulator.position.distance(to: .init(0, 25, 12)) < 0.1)
        #expect(b.command(.navReturnToLaunch, target: 42) == .accepted && b.emulator.modeName == "AUTO.RTL")
        b.run(for: 60) { !$0.emulator.armed }
        #expect(!b.emulator.armed && b.emulator.position.length < 0.5)
    }
}
