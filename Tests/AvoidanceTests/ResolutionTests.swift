import Flight
import Foundation
import Geodesy
import Testing

@testable import Avoidance

@Suite("Resolution")
struct ResolutionTests {
    let origin = AvoidanceMission.libraryOrigin

    /// A navigator and simulator hovering at `p`, then sent toward `goal`, flown for `seconds`.
    func flying(from p: Vector3, to goal: Vector3, after seconds: Double) throws -> (
        Navigator, MultirotorSimulator, Double
    ) {
        var sim = MultirotorSimulator(origin: origin, home: Vector3(p.x, p.y, 0), hoveringAt: p.z)
        var nav = Navigator(origin: origin)
        try nav.handle(.goto(.local(goal), speed: nil), state: sim.state, now: 0)
        var now = 0.0
        while now < seconds - 1e-9 {
            sim.setpoint = nav.setpoint(state: sim.state, now: now)
            sim.step(dt: 0.02)
            now += 0.02
        }
        return (nav, sim, now)
    }

    @Test("the internal motion model stays within 0.35 m of the navigator's own prediction for every kind of plan")
    func modelMatchesNavigator() throws {
        let (nav0, sim, now) = try flying(from: Vector3(0, 0, 15), to: Vector3(100, 30, 15), after: 3)
        let core = AvoidanceCore()
        let own = AvoidanceOwnship(uavNumber: 1, navigator: nav0, state: sim.state, now: now)
        let goal = try #require(own.goal)
        let x = core.context(own: own, goal: goal, destination: goal.position, now: now)
        let plans: [Candidate] = [
            core.travel(x, altitude: 15, speed: 4), core.travel(x, altitude: 23, speed: 4),
            core.travel(x, altitude: 11, speed: 1.8),
            core.stop(x, at: core.brakingPoint(own, altitude: 19)), core.sidestep(x, to: Vector3(-5, 8, 15)),
            core.wait(x, at: core.brakingPoint(own, altitude: 15), until: now + 3.3, altitude: 19),
            core.veer(x, via: Vector3(30, 18, 15), until: now + 4),
        ]
        for plan in plans {
            var nav = nav0
            nav.adjustment = plan.adjustment
            let truth = nav.predictedTrajectory(state: sim.state, now: now)
            var xs = [Double](repeating: 0, count: 41), ys = xs, zs = xs
            core.model.rollout(
                position: own.position, velocity: own.velocity, plan: plan.plan, gridStep: 0.2, count: 41, xs: &xs,
                ys: &ys, zs: &zs)
            var worst = 0.0
            for (k, p) in truth.points.enumerated() {
                worst = max(worst, p.position.distance(to: Vector3(xs[k + 1], ys[k + 1], zs[k + 1])))
            }
            #expect(worst < 0.35, "\(plan.maneuver): \(worst) m")
        }
    }

    @Test(
        "a higher-ranked drone descending in place is taken to go on beyond the horizon: the way under it is not safe")
    func descentInPlaceGoesOn() {
        var core = AvoidanceCore()
        // UAV 1 hovers above the own drone's spot coming down at 1.5 m/s: its 8 s prediction ends at 18 m, still descending.
        let above = track(1, from: Vector3(0, 0, 30), velocity: Vector3(0, 0, -1.5))
        let own = ownship(2, at: Vector3(0.5, 0, 20), goal: Vector3(0.5, 0, 20))
        let c = core.configuration
        let picture = LocalPicture(
            own: own, airspace: [above], now: 0, goal: own.goal!.position, configuration: c, tuning: core.tuning)
        #expect(abs(picture.endClimb[0] + 1.5) < 1e-6)
        // Ending 4 m below its last point (14 m): clear at the end of the horizon, not 4 s later.
        core.rollout(own: own, MotionPlan(target: Vector3(0.5, 0, 14), targetVelocity: .zero, speed: 4))
        #expect(core.tailConflicts(picture, track: 0))
        // Ending 12 m to the side: clear.
        core.rollout(own: own, MotionPlan(target: Vector3(12.5, 0, 14), targetVelocity: .zero, speed: 4))
        #expect(!core.tailConflicts(picture, track: 0))
        // The same drone climbing away: clear.
        let away = track(1, from: Vector3(0, 0, 24), velocity: Vector3(0, 0, 1.5))
        let up = LocalPicture(
            own: own, airspace: [away], now: 0, goal: own.goal!.position, configuration: c, tuning: core.tuning)
        core.rollout(own: own, MotionPlan(target: Vector3(0.5, 0, 14), targetVelocity: .zero, speed: 4))
        #expect(!core.tailConflicts(up, track: 0))
    }

    @Test(
        "keeping a published plan, a drone stays outside a lower-ranked drone's minima plus half the buffer within the courtesy window"
    )
    func publishedPlanKeepsHalfTheBuffer() {
        var core = AvoidanceCore()
        let own = ownship(1, at: Vector3(0, 0, 20), velocity: Vector3(4, 0, 0), goal: Vector3(200, 0, 20))
        let c = core.configuration
        let plan = MotionPlan(target: Vector3(200, 0, 20), targetVelocity: .zero, speed: 4)
        // A lower-ranked drone ahead going the same way at the same speed, 5.3 m or 5.8 m ahead.
        for (gap, conflict) in [(5.3, true), (5.8, false)] {
            let ahead = track(2, from: Vector3(gap, 0, 20), velocity: Vector3(4, 0, 0))
            let picture = LocalPicture(
                own: own, airspace: [ahead], now: 0, goal: own.goal!.position, configuration: c, tuning: core.tuning)
            core.rollout(own: own, plan)
            #expect(core.conflicts(picture, track: 0, hardOnly: true) == conflict, "\(gap) m ahead")
        }
    }

    @Test("with nobody near, the mission's plan is flown unchanged")
    func clearSky() {
        var core = AvoidanceCore()
        let d = core.decide(
            own: ownship(4, at: Vector3(0, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(100, 0, 15)),
            airspace: [track(1, from: Vector3(0, 60, 15), velocity: Vector3(4, 0, 0))], now: 0)
        #expect(d.maneuver == .nominal && d.adjustment == nil && d.safe && !d.changed && d.yieldingTo.isEmpty)
        #expect(d.destination == Vector3(100, 0, 15) && !d.parked)
    }

    @Test("a yielding drone's plan keeps the planning separation from the higher-ranked drone over the horizon")
    func yieldKeepsSeparation() throws {
        // UAV 2 flies east; UAV 1 crosses from the south at the same altitude and would meet it in 5 s.
        let own = ownship(2, at: Vector3(0, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(200, 0, 15))
        let higher = track(1, from: Vector3(20, -20, 15), velocity: Vector3(0, 4, 0))
        var core = AvoidanceCore()
        let d = core.decide(own: own, airspace: [higher], now: 0)
        #expect(d.safe && d.maneuver != .nominal && d.yieldingTo == [1])
        var xs = [Double](repeating: 0, count: 41), ys = xs, zs = xs
        let pick = try #require(core.current)
        core.model.rollout(
            position: own.position, velocity: own.velocity, plan: pick.plan, gridStep: 0.2, count: 41, xs: &xs, ys: &ys,
            zs: &zs)
        for k in 0...40 {
            let q = higher.prediction.position(atOffset: Double(k) * 0.2)
            let dh = (Vector3(xs[k], ys[k], 0) - q.horizontal).horizontalLength, dz = abs(zs[k] - q.z)
            #expect(dh >= 6 || dz >= 3.5, "step \(k): \(dh) m, \(dz) m")
        }
        // The cheapest way out of a crossing at full speed is an altitude layer.
        if case .altitude = d.maneuver {} else { Issue.record("expected an altitude layer, got \(d.maneuver)") }
    }

    @Test("the current plan is kept while safe; the mission's plan returns once the way is clear")
    func hysteresisAndReturn() {
        var core = AvoidanceCore()
        let higher = track(1, from: Vector3(40, 0, 15), velocity: Vector3(-4, 0, 0))
        let d0 = core.decide(
            own: ownship(2, at: Vector3(0, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(30, 0, 15)),
            airspace: [higher], now: 0)
        #expect(d0.maneuver != .nominal)
        let d1 = core.decide(
            own: ownship(2, at: Vector3(0.4, 0, 15.1), velocity: Vector3(4, 0, 0.5), goal: Vector3(30, 0, 15)),
            airspace: [higher], now: 0.1)
        #expect(d1.maneuver == d0.maneuver && !d1.changed)
        // The other drone has gone elsewhere: back to the mission's plan (the goal is within the horizon), once that
        // has been safe for the settle time (half a second after it was last unsafe, at 0.1 s), not at once.
        let gone = track(1, from: Vector3(40, 80, 15), velocity: Vector3(0, 4, 0), time: 0.2)
        let d2 = core.decide(
            own: ownship(2, at: Vector3(0.8, 0, 15.2), velocity: Vector3(4, 0, 0.5), goal: Vector3(30, 0, 15)),
            airspace: [gone], now: 0.2)
        #expect(d2.maneuver == d0.maneuver && !d2.changed)
        let d3 = core.decide(
            own: ownship(2, at: Vector3(2.8, 0, 15.6), velocity: Vector3(4, 0, 0.5), goal: Vector3(30, 0, 15)),
            airspace: [gone], now: 0.65)
        #expect(d3.maneuver == .nominal && d3.adjustment == nil && d3.changed)
    }

    @Test("a mission plan that is safe one cycle and not the next does not make the drone flap between plans")
    func noFlapping() {
        // The higher-ranked drone's prediction alternates between two paths (its reports jitter): one conflicts with
        // the mission's plan, the other does not. The drone keeps its safe layer instead of switching every cycle.
        var core = AvoidanceCore()
        let crossing = track(1, from: Vector3(40, 0, 15), velocity: Vector3(-4, 0, 0))
        let aside = track(1, from: Vector3(40, 40, 15), velocity: Vector3(-4, 0, 0))
        var changes = 0
        var maneuvers: [String] = []
        for i in 0..<10 {
            let t = Double(i) * 0.1
            let d = core.decide(
                own: ownship(2, at: Vector3(4 * t, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(30, 0, 15)),
                airspace: [i % 2 == 0 ? crossing : aside], now: t)
            if d.changed { changes += 1 }
            maneuvers.append("\(d.maneuver)")
        }
        #expect(changes == 1, "\(maneuvers)")
    }

    @Test("a goal held by a higher-ranked drone is replaced by the nearest free lattice spot, not stacked above")
    func parking() throws {
        let goal = Vector3(0, 50, 15)
        var core = AvoidanceCore()
        let holder = track(1, from: goal)  // UAV 1 hovers on the goal
        let d = core.decide(
            own: ownship(3, at: Vector3(0, 0, 15), velocity: Vector3(0, 4, 0), goal: goal), airspace: [holder], now: 0)
        let spot = try #require(d.destination)
        #expect(d.parked && abs(spot.z - goal.z) < 1e-9)
        #expect(abs((spot - goal).horizontalLength - 6.5) < 1e-9)
        // The spot nearest the drone, which approaches from the south.
        #expect(spot.y < goal.y)
        #expect(d.adjustment?.offset == Vector3(spot.x - goal.x, spot.y - goal.y, 0))
        // A second, lower drone avoids both the goal and the first spot (held by UAV 3 once it is there).
        var core2 = AvoidanceCore()
        let d2 = core2.decide(
            own: ownship(5, at: Vector3(0, 0, 15), goal: goal), airspace: [holder, track(3, from: spot)], now: 0)
        let spot2 = try #require(d2.destination)
        #expect(
            d2.parked && (spot2 - spot).horizontalLength >= 6.5 - 1e-9
                && abs((spot2 - goal).horizontalLength - 6.5) < 1e-9)
        // A lower-ranked drone on the goal does not displace a higher-ranked one.
        var core3 = AvoidanceCore()
        let d3 = core3.decide(
            own: ownship(1, at: Vector3(0, 0, 15), goal: goal), airspace: [track(7, from: goal)], now: 0)
        #expect(!d3.parked && d3.destination == goal)
    }

    @Test("blocked only by the courtesy window, a higher-ranked drone waits and announces its move")
    func waitThenGo() throws {
        // UAV 1 is right below its goal, which lower-ranked UAV 6 occupies.
        let goal = Vector3(0, 0, 15)
        var core = AvoidanceCore()
        let d = core.decide(
            own: ownship(1, at: Vector3(0, 0, 11), goal: goal), airspace: [track(6, from: goal, time: 10)], now: 10)
        guard case .wait(_, let until, let z) = d.maneuver else {
            Issue.record("expected a wait, got \(d.maneuver)")
            return
        }
        #expect(until > 10 + 3 && until < 10 + 4 && z == 15)
        let a = try #require(d.adjustment)
        #expect(a.hold != nil && a.holdUntil == until)
        // The lower-ranked drone sees the announced move and gets out of the way (the goal is held: it parks).
        var nav = Navigator(origin: origin)
        let sim = MultirotorSimulator(origin: origin, home: Vector3(0, 0, 0), hoveringAt: 11)
        try nav.handle(.goto(.local(goal), speed: nil), state: sim.state, now: 10)
        nav.adjustment = a
        let announced = AirspaceTrack(
            uavNumber: 1, avoiding: true, prediction: nav.predictedTrajectory(state: sim.state, now: 10))
        var lower = AvoidanceCore()
        let dl = lower.decide(own: ownship(6, at: goal, goal: goal), airspace: [announced], now: 10.1)
        #expect(dl.parked && dl.safe && dl.destination != goal, "\(dl)")
    }

    @Test(
        "after a command that would turn it into a follower, a drone finishes its published plan for the courtesy window"
    )
    func handover() throws {
        // UAV 1 flies east at 4 m/s; lower-ranked UAV 5 follows 7 m behind and 1 m lower, planned around UAV 1's path.
        var core = AvoidanceCore()
        let east = ownship(1, at: Vector3(0, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(100, 0, 15))
        let follower = track(5, from: Vector3(-7, 0, 14), velocity: Vector3(4, 0, 0), time: 10)
        let d0 = core.decide(own: east, airspace: [follower], now: 10)
        #expect(d0.maneuver == .nominal)
        // A new goto back west: turning at once would fly into the follower within 3 s.
        let west = ownship(1, at: Vector3(0.4, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(-100, 0, 15))
        let d1 = core.decide(own: west, airspace: [follower], now: 10.1)
        guard case .handover(let p, let speed, let until) = d1.maneuver else {
            Issue.record("expected a handover, got \(d1)")
            return
        }
        #expect(d1.safe && p == Vector3(100, 0, 15) && speed == 4 && abs(until - 13.4) < 1e-9)
        let a = try #require(d1.adjustment)
        #expect(a.until == until && a.offset == Vector3(200, 0, 0) && a.hold == nil)
        // The navigator flies the old course until then, and its prediction shows the turn after it.
        var sim = MultirotorSimulator(origin: origin, home: Vector3(0.4, 0, 0), hoveringAt: 15)
        var nav = Navigator(origin: origin)
        try nav.handle(.goto(.local(Vector3(-100, 0, 15)), speed: nil), state: sim.state, now: 10.1)
        nav.adjustment = a
        let prediction = nav.predictedTrajectory(state: sim.state, now: 10.1)
        #expect(prediction.position(atOffset: 3).x > 5)
        #expect(prediction.position(atOffset: 8).x < prediction.position(atOffset: 4).x)
        sim.setpoint = nav.setpoint(state: sim.state, now: 13.5)
        if case .position(let target, _, _, _, _) = sim.setpoint {
            #expect(target.x == -100)
        } else {
            Issue.record("\(sim.setpoint)")
        }
    }

    @Test("goals outside the geofence are moved inside; plans never leave it")
    func geofence() throws {
        var c = AvoidanceConfiguration()
        c.geofence = try Geofence.rectangle(east: -50...50, north: -50...50, altitude: 3...30)
        var core = AvoidanceCore(configuration: c)
        let d = core.decide(own: ownship(2, at: Vector3(0, 0, 15), goal: Vector3(200, 0, 60)), airspace: [], now: 0)
        #expect(try #require(d.destination).distance(to: Vector3(49, 0, 29.5)) < 1e-6)
        // Ceiling 18 m: the drone at 15 m cannot climb a layer; with a higher-ranked drone coming head-on it must find
        // another way, and every plan it considers stays under the ceiling.
        c.geofence = try Geofence.rectangle(east: -100...100, north: -20...20, altitude: 3...18)
        var tight = AvoidanceCore(configuration: c)
        let own = ownship(2, at: Vector3(0, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(90, 0, 15))
        let dt = tight.decide(
            own: own, airspace: [track(1, from: Vector3(40, 0, 15), velocity: Vector3(-4, 0, 0))], now: 0)
        #expect(dt.safe && dt.maneuver != .nominal)
        var xs = [Double](repeating: 0, count: 41), ys = xs, zs = xs
        tight.model.rollout(
            position: own.position, velocity: own.velocity, plan: try #require(tight.current).plan, gridStep: 0.2,
            count: 41, xs: &xs, ys: &ys, zs: &zs)
        for k in 0...40 { #expect(c.geofence!.contains(Vector3(xs[k], ys[k], zs[k]))) }
    }
}

@Suite("Geofence")
struct GeofenceTests {
    @Test("inside, outside, distances, margins and clamping")
    func basics() throws {
        let f = try Geofence(
            polygon: [Vector3(0, 0, 0), Vector3(100, 0, 0), Vector3(100, 50, 0), Vector3(0, 50, 0)], minAltitude: 5,
            maxAltitude: 40)
        #expect(f.isConvex)
        #expect(f.contains(Vector3(50, 25, 20)))
        #expect(
            !f.contains(Vector3(50, 25, 41)) && !f.contains(Vector3(50, 25, 4)) && !f.contains(Vector3(101, 25, 20)))
        #expect(abs(f.signedDistance(Vector3(50, 10, 0)) - 10) < 1e-12)
        #expect(abs(f.signedDistance(Vector3(-3, -4, 0)) + 5) < 1e-12)
        #expect(f.contains(Vector3(2, 25, 20), margin: 1.5) && !f.contains(Vector3(1, 25, 20), margin: 1.5))
        #expect(
            f.contains(Vector3(50, 25, 39), altitudeMargin: 0.5)
                && !f.contains(Vector3(50, 25, 39.8), altitudeMargin: 0.5))
        #expect(
            f.clamp(Vector3(150, 25, 90), margin: 1, altitudeMargin: 0.5).distance(to: Vector3(99, 25, 39.5)) < 1e-6)
        let corner = f.clamp(Vector3(-20, -20, 10), margin: 1, altitudeMargin: 0.5)
        #expect(f.contains(corner, margin: 0.999) && corner.distance(to: Vector3(1, 1, 10)) < 1e-3)
        #expect(f.clamp(Vector3(30, 30, 10), margin: 1, altitudeMargin: 0.5) == Vector3(30, 30, 10))
        #expect(f.excess(Vector3(50, 25, 45), margin: 0, altitudeMargin: 0) == 5)
        // An L shape is not convex; a point in its notch is outside.
        let l = try Geofence(
            polygon: [
                Vector3(0, 0, 0), Vector3(40, 0, 0), Vector3(40, 10, 0), Vector3(10, 10, 0), Vector3(10, 40, 0),
                Vector3(0, 40, 0),
            ],
            minAltitude: 0, maxAltitude: 10)
        #expect(!l.isConvex && !l.contains(Vector3(30, 30, 5)) && l.contains(Vector3(5, 30, 5)))
        let inNotch = l.clamp(Vector3(30, 30, 5), margin: 1, altitudeMargin: 0)
        #expect(l.contains(inNotch, margin: 0.999))
    }

    @Test("bad fences are refused with a reason; latitude/longitude corners are placed on the map; JSON round trip")
    func construction() throws {
        #expect(throws: GeofenceError.tooFewCorners(2)) {
            try Geofence(polygon: [.zero, Vector3(1, 0, 0)], minAltitude: 0, maxAltitude: 10)
        }
        #expect(throws: GeofenceError.noArea) {
            try Geofence(polygon: [.zero, Vector3(1, 0, 0), Vector3(2, 0, 0)], minAltitude: 0, maxAltitude: 10)
        }
        #expect(throws: GeofenceError.badAltitudes(minimum: 10, maximum: 10)) {
            try Geofence(polygon: [.zero, Vector3(1, 0, 0), Vector3(0, 1, 0)], minAltitude: 10, maxAltitude: 10)
        }
        #expect(
            GeofenceError.badAltitudes(minimum: 10, maximum: 5).description
                == "minimum altitude 10.0 must be below maximum altitude 5.0")
        let origin = AvoidanceMission.libraryOrigin
        let corners = [Vector3(-30, -30, 0), Vector3(30, -30, 0), Vector3(0, 40, 0)]
        let f = try Geofence(
            corners: corners.map { origin.geodetic($0.localPosition) }, origin: origin, minAltitude: 2, maxAltitude: 50)
        for (a, b) in zip(f.polygon, corners) { #expect(a.distance(to: b) < 1e-6) }
        let data = try JSONEncoder().encode(f)
        #expect(try JSONDecoder().decode(Geofence.self, from: data) == f)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                Geofence.self, from: Data(#"{"polygon":[{"x":0,"y":0,"z":0}],"minAltitude":0,"maxAltitude":1}"#.utf8))
        }
    }
}
