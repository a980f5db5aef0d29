import Foundation
import Geodesy
import Testing

@testable import Flight

@Suite("Navigator adjustments (the collision-avoidance hook)")
struct NavigatorAdjustmentTests {
    @Test("no adjustment, or a neutral one, changes nothing")
    func neutral() throws {
        var a = Harness(), b = Harness()
        try a.takeOff(10)
        try b.takeOff(10)
        try a.command(.goto(.local(Vector3(40, 10, 12)), speed: 3))
        try b.command(.goto(.local(Vector3(40, 10, 12)), speed: 3))
        b.navigator.adjustment = NavigatorAdjustment()
        a.run(8)
        b.run(8)
        #expect(a.sim.truePosition == b.sim.truePosition)
        #expect(NavigatorAdjustment().isNeutral)
    }

    @Test("an altitude adjustment flies the goto at another altitude; clearing it resumes the goto")
    func altitude() throws {
        var h = Harness()
        try h.takeOff(10)
        let target = Vector3(60, 0, 10)
        try h.command(.goto(.local(target), speed: 4))
        h.navigator.adjustment = NavigatorAdjustment(altitude: 14)
        h.run(10)
        #expect(abs(h.sim.truePosition.z - 14) < 0.2)
        #expect(h.sim.truePosition.x > 30)
        if case .goto = h.navigator.intent {} else { Issue.record("intent changed to \(h.navigator.intent)") }
        h.navigator.adjustment = nil
        let arrived = h.run(
            until: { $0.sim.truePosition.distance(to: target) < 1 && $0.sim.state.activity == .hovering }, limit: 30)
        #expect(arrived)
    }

    @Test("a speed cap, an offset and a hold point change the setpoint; the prediction shows the adjusted flight")
    func speedOffsetHold() throws {
        var h = Harness()
        try h.takeOff(10)
        try h.command(.goto(.local(Vector3(100, 0, 10)), speed: 4))
        h.navigator.adjustment = NavigatorAdjustment(maxSpeed: 1.5)
        h.run(6)
        #expect(abs(h.sim.state.velocity.horizontalLength - 1.5) < 0.05)
        let p = h.navigator.predictedTrajectory(state: h.sim.state, now: h.now)
        let travelled = p.points[p.points.count - 1].position.x - h.sim.truePosition.x
        #expect(abs(travelled - 1.5 * 8) < 0.5)

        h.navigator.adjustment = NavigatorAdjustment(offset: Vector3(0, 12, 99))
        #expect(h.navigator.adjustment?.offset.z == 0)
        let sp = h.navigator.setpoint(state: h.sim.state, now: h.now)
        if case .position(let target, _, _, _, _) = sp {
            #expect(target == Vector3(100, 12, 10))
        } else {
            Issue.record("setpoint \(sp)")
        }

        let stop = Vector3(h.sim.truePosition.x + 2, 0, 12)
        h.navigator.adjustment = NavigatorAdjustment(altitude: 30, maxSpeed: 1, hold: stop)
        #expect(h.navigator.setpoint(state: h.sim.state, now: h.now) == .hold(stop))
        h.run(10)
        #expect(h.sim.truePosition.distance(to: stop) < 0.2)
    }

    @Test("a timed adjustment holds until its time, then the intent resumes; the prediction shows both parts")
    func timed() throws {
        var h = Harness()
        try h.takeOff(10)
        let here = h.sim.truePosition
        try h.command(.goto(.local(Vector3(80, 0, 10)), speed: 4))
        h.navigator.adjustment = NavigatorAdjustment(altitude: 13, hold: here, holdUntil: h.now + 3)
        let p = h.navigator.predictedTrajectory(state: h.sim.state, now: h.now)
        #expect(p.position(atOffset: 2.8).distance(to: here) < 0.05)
        #expect(p.position(atOffset: 8).x > here.x + 8)
        #expect(abs(p.position(atOffset: 8).z - 13) < 0.1)
        h.run(2.9)
        #expect(h.sim.truePosition.distance(to: here) < 0.05)
        h.run(5)
        #expect(abs(h.sim.truePosition.x - p.position(atOffset: 7.9).x) < 0.15)
        #expect(!NavigatorAdjustment(hold: here, holdUntil: 5).holds(at: 5))
        #expect(NavigatorAdjustment(hold: here, holdUntil: 5).holds(at: 4.99))
        #expect(
            NavigatorAdjustment(offset: Vector3(1, 0, 0), hold: here, holdUntil: 5).description.hasSuffix(
                "then offset (1.0, 0.0)"))
    }

    @Test("a whole adjustment can be timed: the intent is flown unadjusted from then on")
    func timedWhole() throws {
        var h = Harness()
        try h.takeOff(10)
        try h.command(.goto(.local(Vector3(-60, 0, 10)), speed: 4))
        // Keep flying east (toward an offset target) until t + 2, then turn to the goto target.
        h.navigator.adjustment = NavigatorAdjustment(altitude: 12, offset: Vector3(120, 0, 0), until: h.now + 2)
        let p = h.navigator.predictedTrajectory(state: h.sim.state, now: h.now)
        h.run(1.9)
        #expect(h.sim.state.velocity.x > 3 && abs(h.sim.truePosition.z - 10) > 0.5)
        h.run(6)
        #expect(h.sim.state.velocity.x < -3)
        #expect(abs(h.sim.truePosition.x - p.position(atOffset: 7.9).x) < 0.2)
        #expect(NavigatorAdjustment(maxSpeed: 1, until: 3).description == "speed ≤ 1.0 until 3.0")
    }

    @Test("a simulator can start hovering in the air")
    func startsAirborne() throws {
        var sim = MultirotorSimulator(origin: Harness.origin, home: Vector3(5, 5, 0), hoveringAt: 12)
        #expect(sim.state.isAirborne && sim.state.armed && sim.truePosition == Vector3(5, 5, 12))
        var nav = Navigator(origin: Harness.origin)
        try nav.handle(.hold, state: sim.state, now: 0)
        for _ in 0..<100 {
            sim.setpoint = nav.setpoint(state: sim.state, now: 0)
            sim.step(dt: 0.02)
        }
        #expect(sim.truePosition.distance(to: Vector3(5, 5, 12)) < 1e-9)
        #expect(sim.state.activity == .hovering)
    }

    @Test("holding drones can be moved; takeoff and landing ignore adjustments")
    func intents() throws {
        var h = Harness()
        try h.command(.takeoff(altitude: 10))
        h.navigator.adjustment = NavigatorAdjustment(altitude: 30)
        #expect(!h.navigator.acceptsAdjustment)
        #expect(h.navigator.setpoint(state: h.sim.state, now: h.now) == .takeoff(altitude: 10))
        h.navigator.adjustment = nil
        let hovering = h.run(until: { $0.sim.state.activity == .hovering }, limit: 30)
        #expect(hovering)
        h.run(0.1)
        #expect(h.navigator.acceptsAdjustment)
        h.navigator.adjustment = NavigatorAdjustment(altitude: 16, offset: Vector3(5, 0, 0))
        h.run(10)
        #expect(h.sim.truePosition.distance(to: Vector3(5, 0, 16)) < 0.3)
        try h.command(.land)
        #expect(h.navigator.setpoint(state: h.sim.state, now: h.now) == .land)
    }
}
