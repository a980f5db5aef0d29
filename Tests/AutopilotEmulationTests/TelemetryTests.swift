import AutopilotEmulation
import MAVLink
import Testing

@Suite("Autopilot emulator: telemetry and link")
struct TelemetryTests {
    func count(_ b: Bench, since t: Double, _ id: UInt32) -> Int {
        b.frames.filter { $0.time > t && $0.frame.messageID == id }.count
    }

    @Test("SET_MESSAGE_INTERVAL sets GLOBAL_POSITION_INT's rate; −1 stops it; 0 restores the default 10 Hz")
    func messageInterval() {
        var b = Bench()
        b.requestStreams()
        var t = b.now
        b.run(for: 5)
        #expect(count(b, since: t, GlobalPositionInt.id) == 50)
        #expect(count(b, since: t, Attitude.id) == 50)
        #expect(count(b, since: t, SysStatus.id) == 5)
        #expect(count(b, since: t, HomePosition.id) == 1)

        #expect(b.command(.setMessageInterval, Float(GlobalPositionInt.id), 500_000) == .accepted)
        #expect(b.emulator.messageInterval(GlobalPositionInt.id) == 0.5)
        t = b.now
        b.run(for: 5)
        #expect(count(b, since: t, GlobalPositionInt.id) == 10)
        #expect(count(b, since: t, Attitude.id) == 50)  // the others keep their rates

        // 40 ms (25 Hz): asked rates may be faster than the default.
        #expect(b.command(.setMessageInterval, Float(GlobalPositionInt.id), 40_000) == .accepted)
        t = b.now
        b.run(for: 2)
        #expect(count(b, since: t, GlobalPositionInt.id) == 50)

        #expect(b.command(.setMessageInterval, Float(GlobalPositionInt.id), -1) == .accepted)
        t = b.now
        b.run(for: 3)
        #expect(count(b, since: t, GlobalPositionInt.id) == 0)

        #expect(b.command(.setMessageInterval, Float(GlobalPositionInt.id), 0) == .accepted)
        t = b.now
        b.run(for: 3)
        #expect(count(b, since: t, GlobalPositionInt.id) == 30)

        // A message ArduPilot cannot stream is denied.
        #expect(b.command(.setMessageInterval, Float(VfrHud.id), 100_000) == .denied)
    }

    @Test("GLOBAL_POSITION_INT and ATTITUDE carry the flight: boot time, NED velocity in cm/s, heading")
    func positionFields() {
        var b = Bench()
        b.airborne(altitude: 10)
        b.send(AutopilotEmulationTests.positionTarget(east: 0, north: -60, up: 10))  // due south
        b.run(for: 6)
        let p = try! #require(b.position)
        #expect(p.timeBootMs == UInt32((b.now * 1000).rounded()))
        #expect(abs(Int(p.vx) + 500) <= 2 && abs(Int(p.vy)) <= 2 && abs(Int(p.vz)) <= 2)
        #expect(p.hdg == 18_000)
        let attitude = b.sent { if case .attitude(let a) = $0 { a } else { nil } }.last
        #expect(abs(abs(Double(attitude?.yaw ?? 0)) - .pi) < 0.01)
        let sys = b.sent { if case .sysStatus(let s) = $0 { s } else { nil } }.last
        #expect(sys?.batteryRemaining == 87)
    }

    @Test("REQUEST_MESSAGE HOME_POSITION is answered with home before any stream; others are unsupported")
    func requestMessage() {
        var b = Bench()
        let answer = b.send(
            CommandLong(targetSystem: 1, targetComponent: 1, command: .requestMessage, param1: Float(HomePosition.id)))
        #expect(Bench.ack(answer, for: .requestMessage) == .accepted)
        let home = answer.compactMap { if case .homePosition(let h) = $0.message { h } else { nil } }.first
        #expect(home?.latitude == 500_901_000 && home?.longitude == 144_101_000 && home?.altitude == 300_000)
        #expect(b.command(.requestMessage, Float(AutopilotVersion.id)) == .unsupported)
    }

    @Test("garbage, corrupted and cut frames are skipped; a command split byte by byte is answered once")
    func garbage() {
        var b = Bench()
        var random = XorShift(state: 7)
        for _ in 0..<200 {
            let noise = (0..<Int.random(in: 1...300, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            #expect(b.emulator.receive(noise, endOfDatagram: Bool.random(using: &random), now: b.now).isEmpty)
        }
        // Start markers with lengths that run past the datagram.
        #expect(
            b.emulator.receive([0xFD, 0xFF, 0, 0, 0, 1, 1, 76, 0, 0, 0xFE], endOfDatagram: true, now: b.now).isEmpty)
        var arm = b.encoder.encode(
            CommandLong(targetSystem: 1, targetComponent: 1, command: .componentArmDisarm, param1: 1),
            now: MAVLinkTimestamp(rawValue: 0))
        var corrupted = arm
        corrupted[14] ^= 0x40
        #expect(b.emulator.receive(corrupted, endOfDatagram: true, now: b.now).isEmpty)
        #expect(b.emulator.receive(Array(arm.prefix(20)), endOfDatagram: true, now: b.now).isEmpty)
        #expect(!b.emulator.armed)
        // On a stream: noise, then the frame one byte at a time.
        arm = [0x00, 0xFD, 0x13, 0x55] + arm  // a false start marker first
        var answers: [[UInt8]] = []
        for byte in arm { answers += b.emulator.receive([byte], now: b.now) }
        let frames = b.take(answers)
        #expect(Bench.ack(frames, for: .componentArmDisarm) == .accepted)
        #expect(frames.filter { $0.messageID == CommandAck.id }.count == 1)
        #expect(b.emulator.armed)
        b.run(for: 1)
        #expect(b.heartbeat?.baseMode.contains(.safetyArmed) == true)
    }

    @Test("the clock: time passed in, substeps of at most 20 ms, one frame of each kind per call, nothing backwards")
    func clock() {
        var a = Bench()
        var c = Bench()
        a.airborne(altitude: 10)
        c.airborne(altitude: 10)
        a.send(AutopilotEmulationTests.positionTarget(east: 30, north: 0, up: 10))
        c.send(AutopilotEmulationTests.positionTarget(east: 30, north: 0, up: 10))
        a.run(for: 4, step: 0.02)
        c.now += 4
        c.take(c.emulator.advance(to: c.now))  // one big step: the same flight
        #expect(a.emulator.position.distance(to: c.emulator.position) < 1e-6)
        let burst = c.frames.filter { $0.time == c.now }.map(\.frame.messageID)
        #expect(burst.filter { $0 == GlobalPositionInt.id }.count == 1)
        let before = c.emulator.position
        #expect(c.emulator.advance(to: c.now - 1).isEmpty)
        #expect(c.emulator.position == before)
    }
}

/// A small deterministic generator for the noise.
struct XorShift: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
