import Foundation
import Geodesy
import Testing

@testable import Flight

@Suite("Navigator with the simulator on a virtual clock")
struct NavigatorTests {
    @Test("commands that make no sense are rejected with a clear reason")
    func rejections() throws {
        var h = Harness()
        #expect(throws: CommandRejection.notAirborne) { try h.command(.goto(.local(Vector3(10, 0, 10)), speed: nil)) }
        #expect((CommandRejection.notAirborne).description == "not airborne")
        #expect(throws: CommandRejection.notAirborne) { try h.command(.land) }
        #expect(throws: CommandRejection.notAirborne) { try h.command(.returnHome) }
        #expect(throws: CommandRejection.invalidAltitude(500, allowed: 1...120)) {
            try h.command(.takeoff(altitude: 500))
        }
        var low = Harness(battery: 25)
        do {
            try low.command(.takeoff(altitude: 10))
            Issue.record("takeoff accepted at 25 %")
        } catch {
            #expect(error == .batteryTooLow(percent: 25, minimum: 30))
            #expect(error.description.hasPrefix("battery too low"))
        }
        try h.takeOff()
        #expect(throws: CommandRejection.alreadyAirborne) { try h.command(.takeoff(altitude: 10)) }
        #expect(throws: CommandRejection.invalidSpeed(9, maximum: 4)) {
            try h.command(.goto(.local(Vector3(10, 0, 10)), speed: 9))
        }
        #expect(throws: CommandRejection.invalidSpeed(0, maximum: 4)) {
            try h.command(.goto(.local(Vector3(10, 0, 10)), speed: 0))
        }
        #expect(throws: CommandRejection.noTarget) { try h.command(.follow(offset: .zero)) }
        #expect(throws: CommandRejection.self) {
            try h.command(.goto(.geodetic(GeodeticCoordinate(latitude: 91, longitude: 0)), speed: nil))
        }
        let far = try TrajectoryPlanner().plan([Vector3(50, 0, 10), Vector3(60, 0, 10)])
        #expect(throws: CommandRejection.self) { try h.command(.startTrajectory(far)) }
    }

    @Test("goto flies to the target and hovers within 1 m")
    func gotoHovers() throws {
        var h = Harness()
        try h.takeOff(10)
        #expect(h.sim.state.activity == .hovering && abs(h.sim.truePosition.z - 10) < 0.3)
        let target = Vector3(120, -40, 25)
        try h.command(.goto(.local(target), speed: 4))
        var sawFlying = false
        let arrived = h.run(
            until: { h in
                h.sim.state.activity == .hovering && h.sim.truePosition.distance(to: target) <= 1
            }, limit: 120)
        #expect(arrived)
        h.run(2) { if $0.sim.state.activity == .flyingToTarget { sawFlying = true } }
        #expect(!sawFlying)
        // Keeps hovering within 1 m (converging) for the next 20 s.
        var worst = 0.0
        h.run(20) { worst = max(worst, $0.sim.truePosition.distance(to: target)) }
        #expect(worst <= 1)
        #expect(h.sim.truePosition.distance(to: target) < 0.05)
        if case .hold(let p) = h.navigator.intent {
            #expect(p == target)
        } else {
            Issue.record("intent \(h.navigator.intent)")
        }
    }

    @Test("goto to a latitude/longitude lands on the right map spot")
    func gotoGeodetic() throws {
        var h = Harness()
        try h.takeOff(10)
        let g = Harness.origin.geodetic(LocalPosition(east: 30, north: 40, up: 10))
        try h.command(.goto(.geodetic(g), speed: nil))
        h.run(30)
        #expect(h.sim.truePosition.distance(to: Vector3(30, 40, 10)) < 0.1)
        let t = h.sim.telemetry
        #expect(abs(t.position.latitude - g.latitude) < 1e-6 && abs(t.position.longitude - g.longitude) < 1e-6)
    }

    /// A walker at 3 m/s: straight for 30 s, then along a circle of radius 60 m (turning at 0.05 rad/s).
    static func walker(_ t: Double) -> (position: Vector3, velocity: Vector3) {
        let h0 = 0.3
        if t < 30 { return (Vector3(3 * cos(h0), 3 * sin(h0), 0) * t, Vector3(3 * cos(h0), 3 * sin(h0), 0)) }
        let start = Vector3(3 * cos(h0), 3 * sin(h0), 0) * 30
        let r = 60.0, w = 0.05, a = (t - 30) * w
        // Centre to the left of the direction of travel.
        let centre = start + Vector3(-sin(h0), cos(h0), 0) * r
        let angle = h0 - .pi / 2 + a
        return (centre + Vector3(cos(angle), sin(angle), 0) * r, Vector3(-sin(angle), cos(angle), 0) * (r * w))
    }

    @Test("follow-me tracks a target moving at 3 m/s with bounded error", arguments: [(0.0, 0.0), (0.5, 0.5)])
    func followMe(gpsNoise: Double, gusts: Double) throws {
        var h = try Harness.hovering(gpsNoise: gpsNoise, gusts: gusts, seed: 5)
        let offset = Vector3(-5, 0, 10)
        let t0 = h.now
        func report(_ h: inout Harness) {
            let w = Self.walker(h.now - t0)
            h.navigator.updateTarget(TargetObservation(time: h.now, position: w.position, velocity: w.velocity))
        }
        report(&h)
        try h.command(.follow(offset: offset))
        var worst = 0.0, sumSq = 0.0, n = 0.0
        for tick in 0..<(90 * 50) {
            if tick % 10 == 0 { report(&h) }  // the target reports at 5 Hz
            h.run(0.02)
            let error = h.sim.truePosition.distance(to: Self.walker(h.now - t0).position + offset)
            if h.now - t0 > 15 {
                worst = max(worst, error)
                sumSq += error * error
                n += 1
            }
        }
        let rms = (sumSq / n).squareRoot()
        #expect(h.sim.state.activity == .following)
        #expect(worst < 0.5 + 4 * gpsNoise, "worst tracking error \(worst) m")
        #expect(rms < 0.2 + 2 * gpsNoise, "RMS tracking error \(rms) m")
    }

    @Test("go to start, then start: the trajectory is flown within 0.2 m and ends hovering")
    func followTrajectory() throws {
        var h = Harness()
        try h.takeOff(10)
        let traj = try TrajectoryPlanner().plan([Vector3(20, 0, 10), Vector3(60, 0, 12), Vector3(60, 40, 12)])
        #expect(throws: CommandRejection.self) { try h.command(.startTrajectory(traj)) }
        try h.command(.goToStart(traj))
        let reached1 = h.run(
            until: {
                $0.sim.state.activity == .hovering && $0.sim.truePosition.distance(to: traj.start.position) < 0.1
            }, limit: 60)
        #expect(reached1)
        try h.command(.startTrajectory(traj))
        let start = h.now
        var worst = 0.0
        h.run(traj.duration) { h in
            #expect(h.sim.state.activity == .followingTrajectory)
            worst = max(worst, h.sim.truePosition.distance(to: traj.sample(at: h.now - start).position))
        }
        #expect(worst < 0.2, "worst trajectory error \(worst) m")
        h.run(3)
        #expect(h.sim.state.activity == .hovering)
        #expect(h.sim.truePosition.distance(to: traj.end.position) < 0.1)
    }

    @Test("return home climbs to the return altitude, flies home, lands and disarms")
    func returnHome() throws {
        var config = NavigatorConfiguration()
        config.returnAltitude = 25
        var h = Harness(navigatorConfiguration: config, home: Vector3(5, 5, 0))
        try h.takeOff(10)
        try h.command(.goto(.local(Vector3(80, 60, 10)), speed: nil))
        h.run(40)
        try h.command(.returnHome)
        var maxZ = 0.0
        let landed = h.run(until: { h in h.sim.state.activity == .landed }, limit: 120)
        h.run(0.02) { maxZ = max(maxZ, $0.sim.truePosition.z) }
        #expect(landed)
        #expect(!h.sim.state.armed)
        #expect(h.sim.truePosition.distance(to: Vector3(5, 5, 0)) < 0.6)
        if case .idle = h.navigator.intent {} else { Issue.record("intent \(h.navigator.intent)") }
        #expect(throws: CommandRejection.notAirborne) { try h.command(.land) }
    }

    @Test("low battery makes the navigator return home and refuse other commands")
    func lowBattery() throws {
        var h = Harness(battery: 31)
        try h.takeOff(10)
        try h.command(.goto(.local(Vector3(300, 0, 10)), speed: nil))
        let reached2 = h.run(until: { h in h.sim.state.activity == .returning }, limit: 300)
        #expect(reached2)
        if case .returnHome(lowBattery: true) = h.navigator.intent {
        } else {
            Issue.record("intent \(h.navigator.intent)")
        }
        #expect(throws: CommandRejection.failsafeActive) {
            try h.command(.goto(.local(Vector3(0, 50, 10)), speed: nil))
        }
        let reached3 = h.run(until: { h in h.sim.state.activity == .landed }, limit: 300)
        #expect(reached3)
        #expect(h.sim.truePosition.horizontalLength < 0.6)
    }

    @Test("land from hover disarms on the ground")
    func land() throws {
        var h = Harness()
        try h.takeOff(6)
        try h.command(.land)
        let reached4 = h.run(until: { $0.sim.state.activity == .landed }, limit: 30)
        #expect(reached4)
        #expect(!h.sim.state.armed && h.sim.truePosition.z == 0)
    }
}

@Suite("Predicted trajectory")
struct PredictionTests {
    @Test("40 points at 0.2 s steps, Codable")
    func shape() throws {
        var h = Harness()
        try h.takeOff()
        let p = h.navigator.predictedTrajectory(state: h.sim.state, now: h.now)
        #expect(p.points.count == 40)
        for (i, point) in p.points.enumerated() { #expect(abs(point.offset - 0.2 * Double(i + 1)) < 1e-12) }
        #expect(p.points.last!.offset == 8)
        let back = try JSONDecoder().decode(PredictedTrajectory.self, from: JSONEncoder().encode(p))
        #expect(back == p)
    }

    @Test(
        "prediction matches where the simulator actually goes on a straight leg", arguments: [(0.0, 0.0), (0.5, 0.5)])
    func straightLeg(gpsNoise: Double, gusts: Double) throws {
        var h = try Harness.hovering(gpsNoise: gpsNoise, gusts: gusts, seed: 9)
        try h.command(.goto(.local(Vector3(100, 30, 15)), speed: 4))
        h.run(1)  // already accelerating when the prediction is made
        let p = h.navigator.predictedTrajectory(state: h.sim.state, now: h.now)
        let t0 = h.now
        var worst = 0.0
        h.run(8) { h in
            let offset = h.now - t0
            let k = (offset / 0.2).rounded()
            if abs(offset - k * 0.2) < 1e-6, k >= 1 {
                worst = max(worst, p.points[Int(k) - 1].position.distance(to: h.sim.truePosition))
            }
        }
        // Noiseless: the prediction runs the simulator's own model, so it matches to rounding. With GPS error and
        // gusts it is off by about the GPS error at the start plus the gust drift.
        #expect(worst < (gpsNoise == 0 ? 1e-6 : 3), "prediction error \(worst) m")
        #expect(p.points.last!.position.distance(to: p.origin) > 25, "it really moved: about 4 m/s × 8 s")
        #expect(abs(p.position(atOffset: 4).distance(to: p.points[19].position)) < 1e-9)
    }

    @Test("prediction of a follower extrapolates the target", arguments: [0.0, 1.0])
    func followerPrediction(gps: Double) throws {
        var h = try Harness.hovering(gpsNoise: gps)
        let targetStart = h.now
        let report: (inout Harness) -> Void = { h in
            // The target reports its position and velocity at 5 Hz.
            if Int((h.now / 0.02).rounded()) % 10 == 0 {
                h.navigator.updateTarget(
                    TargetObservation(
                        time: h.now, position: Vector3(3 * (h.now - targetStart), 0, 0), velocity: Vector3(3, 0, 0)))
            }
        }
        h.navigator.updateTarget(TargetObservation(time: h.now, position: Vector3(0, 0, 0), velocity: Vector3(3, 0, 0)))
        try h.command(.follow(offset: Vector3(0, -5, 10)))
        h.run(20, each: report)
        let p = h.navigator.predictedTrajectory(state: h.sim.state, now: h.now)
        let t0 = h.now
        h.run(8, each: report)
        #expect(p.points[39].position.distance(to: h.sim.truePosition) < 0.3 + 3 * gps, "8 s ahead")
        #expect(abs(p.points[39].position.x - 3 * (t0 + 8 - targetStart)) < 0.5 + 3 * gps, "follows 0 m behind along x")
    }
}
