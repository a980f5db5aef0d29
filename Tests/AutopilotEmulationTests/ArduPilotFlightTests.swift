import AutopilotEmulation
import Flight
import Foundation
import Geodesy
import MAVLink
import Testing

/// Time (s) for the model's position controller to come within `radius` of a point `distance` metres away from rest:
/// accelerate at a to v, cruise, brake on the profile √(2·0.9·a·d), then close in exponentially at the gain.
func expectedArrival(distance: Double, speed v: Double, limits: VehicleLimits, radius: Double) -> Double {
    let a = limits.maxHorizontalAcceleration
    let k = limits.positionGain
    let b = 2 * 0.9 * a
    let brakeStart = v * v / b  // where the braking profile drops below v
    let exponentialStart = b / (k * k)  // where the gain's line drops below the profile
    let accelerating = v / a
    let cruising = (distance - v * v / (2 * a) - brakeStart) / v
    let braking = 2 / b.squareRoot() * (brakeStart.squareRoot() - exponentialStart.squareRoot())
    let closing = exponentialStart > radius ? log(exponentialStart / radius) / k : 0
    return accelerating + cruising + braking + closing
}

@Suite("Autopilot emulator: ArduPilot flight")
struct ArduPilotFlightTests {
    @Test("takeoff in GUIDED: TAKEOFF then IN_AIR at the altitude above home, straight up, AMSL = home + altitude")
    func takeoff() {
        var b = Bench()
        b.requestStreams()
        #expect(b.setMode(4) == .accepted && b.command(.componentArmDisarm, 1) == .accepted)
        #expect(b.command(.navTakeoff, 0, 0, 0, 0, 0, 0, 12) == .accepted)
        let start = b.now
        b.run(for: 0.5)
        #expect(b.landedState == .takeoff && b.altitude > 0.05)
        let done = b.run(for: 30) { $0.landedState == .inAir }
        let took = try! #require(done) - start
        // 12 m at 2 m/s climb (2 m/s² vertical acceleration), then the approach to within 0.1 m.
        #expect(took > 6.5 && took < 9.5, "\(took)")
        b.run(for: 3)
        let p = try! #require(b.position)
        #expect(abs(Double(p.relativeAlt) / 1000 - 12) < 0.05)
        #expect(abs(Double(p.alt) / 1000 - 312) < 0.05)
        #expect(p.lat == 500_901_000 && p.lon == 144_101_000)
        #expect(b.emulator.modeName == "GUIDED" && b.armed)
    }

    @Test("a position target 40 m away is reached at the cruise speed, in the time the physics gives, at its lat/lon")
    func positionTarget40m() {
        var b = Bench()
        b.airborne(altitude: 10)
        let start = b.now
        b.send(AutopilotEmulationTests.positionTarget(east: 24, north: 32, up: 10))
        var fastest = 0.0
        let target = homePlane.local(
            GeodeticCoordinate(
                latitude: Double(targetE7(east: 24, north: 32).lat) / 1e7,
                longitude: Double(targetE7(east: 24, north: 32).lon) / 1e7, altitude: 300))
        let arrived = b.run(for: 30) { bench in
            fastest = max(fastest, bench.groundSpeed)
            guard let p = bench.position else { return false }
            let here = homePlane.local(
                GeodeticCoordinate(latitude: Double(p.lat) / 1e7, longitude: Double(p.lon) / 1e7, altitude: 300))
            let d =
                ((here.east - target.east) * (here.east - target.east)
                + (here.north - target.north) * (here.north - target.north)).squareRoot()
            return d <= 1.0 && abs(Double(p.relativeAlt) / 1000 - 10) <= 0.7
        }
        let took = try! #require(arrived) - start
        let expected = expectedArrival(
            distance: 40, speed: 5, limits: AutopilotEmulator.Configuration.defaultLimits, radius: 1)
        #expect(abs(took - expected) < 0.3, "took \(took) s, physics \(expected) s")
        #expect(fastest > 4.9 && fastest < 5.1, "cruise speed 5 m/s, saw \(fastest)")
        b.run(for: 5)
        let p = b.emulator.position
        #expect(abs(p.x - 24) < 0.05 && abs(p.y - 32) < 0.05 && abs(p.z - 10) < 0.05)
        // Facing the way it flew: atan2(24, 32) = 36.87°.
        #expect(abs(b.emulator.heading - 36.87) < 1)

        // DO_CHANGE_SPEED: the next leg (back to home, 40 m) at 8 m/s.
        #expect(b.command(.doChangeSpeed, 1, 8, -1) == .accepted)
        b.send(AutopilotEmulationTests.positionTarget(east: 0, north: 0, up: 10))
        fastest = 0
        b.run(for: 15) { bench in
            fastest = max(fastest, bench.groundSpeed)
            return false
        }
        #expect(fastest > 7.8 && fastest < 8.1, "\(fastest)")
        #expect(b.emulator.position.horizontalLength < 0.1)
    }

    @Test("position targets are ignored on the ground, outside GUIDED and for another system")
    func positionTargetIgnored() {
        var b = Bench()
        #expect(b.setMode(4) == .accepted && b.command(.componentArmDisarm, 1) == .accepted)
        b.send(AutopilotEmulationTests.positionTarget(east: 0, north: 10, up: 5))
        b.run(for: 2)
        #expect(b.emulator.position.length < 0.01)
        b.airborne(altitude: 5)
        #expect(b.setMode(5) == .accepted)
        b.send(AutopilotEmulationTests.positionTarget(east: 0, north: 10, up: 5))
        #expect(b.setMode(4) == .accepted)
        b.send(AutopilotEmulationTests.positionTarget(east: 0, north: 10, up: 5, target: 9))
        b.run(for: 3)
        #expect(abs(b.emulator.position.y) < 0.05)
        #expect(b.emulator.positionTargetCount == 2)
    }

    @Test("LAND: descends straight down as LANDING, touches down, disarms after the land detector's delay")
    func land() {
        var b = Bench()
        b.airborne(altitude: 8)
        #expect(b.setMode(9) == .accepted)
        let start = b.now
        b.run(for: 2)
        #expect(b.landedState == .landing && b.emulator.modeName == "LAND")
        #expect(abs(Double(b.position?.vz ?? 0) / 100 - 0.8) < 0.05, "landing speed 0.8 m/s")
        let touchdown = try! #require(b.run(for: 30) { $0.emulator.position.z <= 0 })
        #expect(touchdown - start > 9.5 && touchdown - start < 11, "8 m at 0.8 m/s")
        #expect(b.emulator.armed)
        b.run(for: 2)
        #expect(!b.emulator.armed && !b.armed && b.landedState == .onGround)
        let disarmedAt = b.emulator.log.first { $0.event == .disarmed(reason: "landed") }?.time
        let delay = try! #require(disarmedAt) - touchdown
        #expect(delay >= 0.49 && delay < 0.6)
        #expect(b.sent { if case .statustext(let s) = $0 { s.text } else { nil } }.last == "Disarming motors")
        #expect(b.emulator.position.horizontalLength < 0.01 && b.emulator.modeName == "LAND")
    }

    @Test("RTL: climbs to RTL_ALT, flies home, lands and disarms")
    func returnToLaunch() {
        var b = Bench()
        b.airborne(altitude: 10)
        b.send(AutopilotEmulationTests.positionTarget(east: 0, north: 30, up: 10))
        b.run(for: 12)
        #expect(b.command(.navReturnToLaunch) == .accepted && b.emulator.modeName == "RTL")
        var highest = 0.0
        var northAtTop: Double?
        var states: [MAVLandedState] = []
        b.run(for: 60) { bench in
            highest = max(highest, bench.altitude)
            if northAtTop == nil, bench.altitude > 14.7 { northAtTop = bench.emulator.position.y }
            if let s = bench.landedState, states.last != s { states.append(s) }
            return !bench.emulator.armed
        }
        #expect(abs(highest - 15) < 0.3)
        #expect((northAtTop ?? 0) > 25, "climbed before flying home")
        #expect(states == [.inAir, .landing, .onGround])
        #expect(!b.emulator.armed && b.emulator.position.horizontalLength < 0.05)
    }

    @Test("MANUAL_CONTROL in LOITER: sticks fly velocities; released, it brakes and holds; ignored in GUIDED")
    func manualControl() {
        var b = Bench()
        b.airborne(altitude: 10)
        func sticks(_ bench: inout Bench, x: Int16, y: Int16, z: Int16, seconds: Double) {
            for _ in 0..<Int(seconds * 10) {
                bench.send(ManualControl(target: 1, x: x, y: y, z: z, r: 0))
                bench.run(for: 0.1)
            }
        }
        sticks(&b, x: 500, y: 0, z: 500, seconds: 2)  // GUIDED: ignored
        #expect(b.emulator.position.horizontalLength < 0.05)
        #expect(b.setMode(5) == .accepted)
        sticks(&b, x: 500, y: -1000, z: 1000, seconds: 4)
        let v = b.emulator.velocity
        #expect(abs(v.y - 1.5) < 0.05 && abs(v.x + 3) < 0.05 && abs(v.z - 1.5) < 0.05)
        #expect(abs(Double(b.position?.vx ?? 0) / 100 - 1.5) < 0.05)
        b.run(for: 4)
        let stopped = b.emulator.position
        #expect(b.emulator.velocity.length < 0.05)
        b.run(for: 5)
        #expect(b.emulator.position.distance(to: stopped) < 0.05)
        #expect(b.emulator.manualControlCount == 60)
    }
}
