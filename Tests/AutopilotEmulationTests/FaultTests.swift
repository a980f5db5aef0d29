import AutopilotEmulation
import Flight
import MAVLink
import Testing

/// Scripted faults: the link falls silent, the pilot takes over, setpoints are ignored, the firmware returns home.
@Suite("Autopilot emulator: scripted faults")
struct FaultTests {
    static let offboard: UInt32 = 6 << 16

    func bench(_ faults: [AutopilotEmulator.Fault], flavour: AutopilotEmulator.Flavour = .ardupilot) -> Bench {
        var c = AutopilotEmulator.Configuration(flavour: flavour)
        c.faults = faults
        return Bench(c)
    }

    @Test("silence: no frame at all and nothing answered in the window; HEARTBEATs and answers before and after")
    func silence() {
        var b = bench([.silence(from: 5, until: 8)])
        b.requestStreams()
        b.run(for: 5.5)
        #expect(b.command(.doSetMode, 1, 4) == nil)  // not answered, not taken
        #expect(b.emulator.modeName == "LOITER")
        b.run(for: 2.4)
        let quiet = b.frames.filter { $0.time >= 5 && $0.time < 8 }
        #expect(quiet.isEmpty, "\(quiet.count) frames while silent")
        #expect(b.frames.contains { $0.time >= 4 && $0.time < 5 && $0.frame.messageID == Heartbeat.id })
        b.run(for: 1.1)
        #expect(b.frames.contains { $0.time >= 8 && $0.frame.messageID == Heartbeat.id })
        #expect(b.frames.contains { $0.time >= 8 && $0.frame.messageID == GlobalPositionInt.id })
        #expect(b.setMode(4) == .accepted)
    }

    @Test(
        "the pilot's RC switch: LOITER (PX4 POSCTL) with a STATUSTEXT; the vehicle brakes and holds, targets ignored",
        arguments: AutopilotEmulator.Flavour.allCases)
    func pilotTakeover(flavour: AutopilotEmulator.Flavour) throws {
        var b = bench([.pilotTakeover(at: 30)], flavour: flavour)
        let target: UInt8 = 1
        if flavour == .px4 {
            #expect(b.command(.componentArmDisarm, 1) == .accepted)
            #expect(b.command(.navTakeoff, -1, 0, 0, .nan, .nan, .nan, 310) == .accepted)
            b.run(for: 15)
            for _ in 0..<6 {
                b.send(AutopilotEmulationTests.positionTarget(east: 0, north: 0, up: 10, target: target))
                b.run(for: 0.1)
            }
            #expect(b.command(.doSetMode, 1, 6) == .accepted)
        } else {
            b.airborne(altitude: 10)
        }
        // Flying east at cruise speed when the pilot takes over.
        while b.now < 30 {
            b.send(AutopilotEmulationTests.positionTarget(east: 200, north: 0, up: 10, target: target))
            b.run(for: 0.1)
        }
        let speed = b.emulator.velocity.horizontalLength
        #expect(speed > 3, "\(speed)")
        let takenAt = b.emulator.position
        b.run(for: 0.1)
        let mode = flavour == .px4 ? "POSCTL" : "LOITER"
        #expect(b.emulator.modeName == mode)
        let texts = b.sent { if case .statustext(let s) = $0 { return s.text } else { return nil } }
        #expect(texts.contains("RC mode switch: \(mode)"), "\(texts)")
        for _ in 0..<50 {
            b.send(AutopilotEmulationTests.positionTarget(east: 200, north: 0, up: 10, target: target))
            b.run(for: 0.1)
        }
        // Braked (at 2 m/s² from about 5 m/s: within about 7 m) and holding.
        let held = b.emulator.position
        #expect(
            b.emulator.velocity.length < 0.05 && held.distance(to: takenAt) < 8, "\(b.emulator), taken at \(takenAt)")
        b.run(for: 2)
        #expect(b.emulator.position.distance(to: held) < 0.01 && b.emulator.modeName == mode)
    }

    @Test("ignored setpoints: taken and acknowledged, PX4 stays in OFFBOARD, but the vehicle flies on as before")
    func ignoreSetpoints() {
        var b = bench([.ignoreSetpoints(from: 30, until: 40)], flavour: .px4)
        #expect(b.command(.componentArmDisarm, 1) == .accepted)
        #expect(b.command(.navTakeoff, -1, 0, 0, .nan, .nan, .nan, 310) == .accepted)
        b.run(for: 15)
        var east = 0.0
        while b.now < 30 {
            east = 10
            b.send(AutopilotEmulationTests.positionTarget(east: east, north: 0, up: 10, target: 1))
            b.run(for: 0.1)
            if b.emulator.customMode != Self.offboard && b.now > 16 { _ = b.command(.doSetMode, 1, 6) }
        }
        #expect(b.emulator.customMode == Self.offboard && b.emulator.position.distance(to: .init(10, 0, 10)) < 0.2)
        // A new target 30 m north while the fault holds: nothing changes.
        while b.now < 39 {
            b.send(AutopilotEmulationTests.positionTarget(east: 10, north: 30, up: 10, target: 1))
            b.run(for: 0.1)
        }
        #expect(b.emulator.customMode == Self.offboard, "stays in OFFBOARD: the stream goes on")
        #expect(b.emulator.position.distance(to: .init(10, 0, 10)) < 0.2, "\(b.emulator)")
        let taken = b.emulator.log.filter {
            if case .positionTarget(let m, true) = $0.event { return $0.time >= 30 && m.latInt != 0 }
            return false
        }
        #expect(taken.count > 80)
        // After the window the same stream is flown.
        for _ in 0..<100 {
            b.send(AutopilotEmulationTests.positionTarget(east: 10, north: 30, up: 10, target: 1))
            b.run(for: 0.1)
        }
        #expect(b.emulator.position.y > 25, "\(b.emulator)")
    }

    @Test("the firmware's failsafe: RTL with a critical STATUSTEXT, home and disarmed")
    func firmwareReturn() {
        var b = bench([.firmwareReturn(at: 25)])
        b.airborne(altitude: 10)
        b.send(AutopilotEmulationTests.positionTarget(east: 30, north: 0, up: 10))
        let at = b.run(for: 30) { $0.emulator.modeName == "RTL" }
        #expect(at.map { abs($0 - 25) < 0.011 } == true, "\(String(describing: at))")
        let texts = b.sent { if case .statustext(let s) = $0 { return (s.severity, s.text) } else { return nil } }
        #expect(texts.contains { $0.0 == .critical && $0.1 == "Failsafe: RTL" }, "\(texts)")
        b.run(for: 60) { !$0.emulator.armed }
        #expect(!b.emulator.armed && b.emulator.position.length < 0.5)
    }
}
