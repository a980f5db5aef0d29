import Geodesy
import Testing

@testable import Flight

@Suite("Simulator phases")
struct SimulatorTests {
    @Test("takeoff arms, climbs to the altitude within the climb rate, then hovers")
    func takeoff() {
        var sim = MultirotorSimulator(origin: Harness.origin)
        #expect(sim.telemetry.activity == .landed && !sim.telemetry.armed)
        sim.setpoint = .takeoff(altitude: 10)
        sim.step(dt: 0.1)
        #expect(sim.state.armed && sim.state.activity == .takingOff)
        var maxClimb = 0.0
        for _ in 0..<750 {
            sim.step(dt: 0.02)
            maxClimb = max(maxClimb, sim.state.velocity.z)
        }
        #expect(abs(sim.truePosition.z - 10) < 0.05)
        #expect(sim.state.activity == .hovering)
        #expect(maxClimb <= VehicleLimits().maxClimbRate + 1e-9)
        #expect(sim.truePosition.horizontalLength < 1e-9)
        let t = sim.telemetry
        #expect(abs(t.position.altitude - 110) < 0.05, "altitude includes the origin's")
        #expect(abs(t.position.latitude - 59.9) < 1e-9)
        #expect(t.velocityNED.down == -t.velocityENU.z)
    }

    @Test("landing descends and disarms on touchdown")
    func landing() {
        var sim = MultirotorSimulator(origin: Harness.origin)
        sim.setpoint = .takeoff(altitude: 5)
        sim.step(dt: 10)
        sim.setpoint = .land
        sim.step(dt: 1)
        #expect(sim.state.activity == .landing && sim.state.armed)
        sim.step(dt: 10)
        #expect(sim.state.activity == .landed)
        #expect(!sim.state.armed)
        #expect(sim.truePosition.z == 0)
    }

    @Test("battery drains with time and more with effort")
    func batteryDrain() {
        var hover = MultirotorSimulator(origin: Harness.origin)
        hover.setpoint = .takeoff(altitude: 10)
        hover.step(dt: 10)
        let afterTakeoff = hover.batteryPercent
        #expect(afterTakeoff < 100)
        var fast = hover
        hover.step(dt: 60)
        fast.setpoint = .position(
            target: Vector3(300, 0, 10), feedforward: .zero, speed: 4, heading: nil, activity: .flyingToTarget)
        fast.step(dt: 60)
        let hoverUse = afterTakeoff - hover.batteryPercent, fastUse = afterTakeoff - fast.batteryPercent
        #expect(abs(hoverUse - 60 * 100.0 / 900) < 0.2, "one minute of hover ≈ 6.7 %")
        #expect(fastUse > hoverUse * 1.1)
        var landed = MultirotorSimulator(origin: Harness.origin)
        landed.step(dt: 600)
        #expect(landed.batteryPercent == 100, "disarmed: no drain")
    }

    @Test("low battery triggers a return home that lands and disarms at home")
    func lowBatteryReturn() {
        var config = SimulatorConfiguration()
        config.returnAltitude = 15
        var sim = MultirotorSimulator(origin: Harness.origin, configuration: config, batteryPercent: 24)
        sim.setpoint = .takeoff(altitude: 10)
        sim.step(dt: 8)
        sim.setpoint = .position(
            target: Vector3(200, 100, 10), feedforward: .zero, speed: 4, heading: nil, activity: .flyingToTarget)
        var sawReturning = false
        var maxAltitudeWhileReturning = 0.0
        for _ in 0..<(300 * 50) {
            sim.step(dt: 0.02)
            if sim.state.activity == .returning {
                sawReturning = true
                maxAltitudeWhileReturning = max(maxAltitudeWhileReturning, sim.truePosition.z)
            }
            if sawReturning && sim.state.activity == .landed { break }
        }
        #expect(sawReturning)
        #expect(sim.state.activity == .landed && !sim.state.armed)
        #expect(sim.truePosition.horizontalLength < 0.6, "landed at home: \(sim.truePosition)")
        #expect(abs(maxAltitudeWhileReturning - 15) < 0.3, "climbed to the return altitude")
        #expect(sim.batteryPercent < 20 && sim.batteryPercent > 8)
    }

    @Test("critical battery lands in place")
    func criticalBattery() {
        var sim = MultirotorSimulator(origin: Harness.origin, batteryPercent: 9)
        sim.setpoint = .takeoff(altitude: 10)
        sim.step(dt: 60)
        #expect(sim.failsafe == nil || sim.state.activity == .landed)
        #expect(sim.state.activity == .landed && !sim.state.armed)
        #expect(sim.batteryPercent <= 8.01)
    }

    @Test("GPS noise and gusts are seeded: same seed, same flight; noise has the configured size")
    func seededNoise() {
        var config = SimulatorConfiguration()
        config.gpsNoise = 1.0
        config.gustStrength = 1.0
        config.seed = 42
        func fly(_ c: SimulatorConfiguration) -> (MultirotorSimulator, Double) {
            var sim = MultirotorSimulator(origin: Harness.origin, configuration: c)
            sim.setpoint = .takeoff(altitude: 10)
            sim.step(dt: 10)
            sim.setpoint = .hold(Vector3(0, 0, 10))
            var sumSq = 0.0
            for _ in 0..<3000 {
                sim.step(dt: 0.02)
                let e = sim.state.position - sim.truePosition
                sumSq += e.x * e.x
            }
            return (sim, (sumSq / 3000).squareRoot())
        }
        let (a, rmsA) = fly(config)
        let (b, _) = fly(config)
        #expect(a.state == b.state)
        #expect(a.truePosition == b.truePosition)
        #expect(rmsA > 0.2 && rmsA < 3, "GPS error RMS \(rmsA)")
        #expect(a.truePosition.distance(to: Vector3(0, 0, 10)) < 3, "gusts are corrected")
        config.seed = 43
        #expect(fly(config).0.truePosition != a.truePosition)
    }

    @Test("acceleration and speed limits hold in flight")
    func limits() {
        var sim = MultirotorSimulator(origin: Harness.origin)
        sim.setpoint = .takeoff(altitude: 10)
        sim.step(dt: 10)
        sim.setpoint = .position(
            target: Vector3(100, -50, 30), feedforward: .zero, speed: 4, heading: nil, activity: .flyingToTarget)
        var previous = sim.state.velocity
        for _ in 0..<2000 {
            sim.step(dt: 0.02)
            let v = sim.state.velocity
            #expect(v.horizontalLength <= 4 + 1e-9)
            #expect(v.z <= 2 + 1e-9 && v.z >= -1.5 - 1e-9)
            #expect((v - previous).horizontalLength / 0.02 <= 2 + 1e-6)
            previous = v
        }
        #expect(sim.truePosition.distance(to: Vector3(100, -50, 30)) < 0.1)
    }
}
