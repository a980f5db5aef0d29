import AutopilotEmulation
import MAVLink
import Testing

@Suite("Autopilot emulator: GUIDED targets beyond position")
struct GuidedTargetTests {
    @Test("velocity only: flown for 3 s (GUID_TIMEOUT) then it brakes and holds; yaw sets the heading")
    func velocityOnly() {
        var b = Bench()
        b.airborne(altitude: 10)
        let velocity = SetPositionTargetGlobalInt(
            targetSystem: 1, targetComponent: 1, coordinateFrame: .globalRelativeAltInt,
            typeMask: [.xIgnore, .yIgnore, .zIgnore, .axIgnore, .ayIgnore, .azIgnore, .yawRateIgnore],
            vx: 0, vy: 2, vz: -0.5, yaw: .pi / 2)  // east 2 m/s, up 0.5 m/s, facing east
        b.send(velocity)
        b.run(for: 2.5)
        #expect(abs(b.emulator.velocity.x - 2) < 0.02 && abs(b.emulator.velocity.z - 0.5) < 0.02)
        #expect(abs(b.emulator.heading - 90) < 0.5)
        b.run(for: 4)
        #expect(b.emulator.velocity.length < 0.05)
        let east = b.emulator.position.x
        // 3 s at 2 m/s, less the acceleration, plus the braking.
        #expect(east > 5 && east < 7.5, "\(east)")
        b.run(for: 3)
        #expect(abs(b.emulator.position.x - east) < 0.02)
    }

    /// North position after 6 s chasing a target that starts at the vehicle and moves north at 3 m/s, sent at 2 Hz.
    func chase(feedForward: Bool) -> (north: Double, target: Double) {
        var b = Bench()
        b.airborne(altitude: 10)
        for i in 0..<12 {
            var m = AutopilotEmulationTests.positionTarget(east: 0, north: 3 * Double(i) * 0.5, up: 10)
            if feedForward {
                m.typeMask = [.axIgnore, .ayIgnore, .azIgnore, .yawIgnore, .yawRateIgnore]
                m.vx = 3
            }
            b.send(m)
            b.run(for: 0.5)
        }
        return (b.emulator.position.y, 18)
    }

    @Test("position with velocity: the target moves with its velocity, so a moving target is tracked, not lagged")
    func feedForward() {
        let tracked = chase(feedForward: true)
        #expect(abs(tracked.north - tracked.target) < 0.3, "\(tracked)")
        let lagged = chase(feedForward: false)
        #expect(tracked.target - lagged.north > 1.5, "position only lags about v / gain: \(lagged)")
    }
}
