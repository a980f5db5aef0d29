import Flight
import Foundation
import Testing

@testable import Avoidance

@Suite("Layers")
struct LayerTests {
    /// A drone that does not avoid (taking off) climbing in place at `xy` from `from` to `to` metres within 4 s, then
    /// holding there: its prediction ends standing still.
    func climbing(_ uav: Int, at xy: Vector3, from: Double, to: Double) -> AirspaceTrack {
        let points = (1...40).map { i -> PredictedTrajectory.Point in
            let t = Double(i) * 0.2
            return .init(offset: t, position: Vector3(xy.x, xy.y, from + (to - from) * min(1, t / 4)))
        }
        return AirspaceTrack(
            uavNumber: uav, avoiding: false,
            prediction: PredictedTrajectory(time: 0, origin: Vector3(xy.x, xy.y, from), points: points))
    }

    @Test(
        "a drone still climbing to another layer beside a hovering drone does not hold its spot; one ending in the same layer does"
    )
    func climberInAnotherLayerHoldsNoSpot() {
        let spot = Vector3(0, 0, 16)
        // 10 m away (neighbours on the 3-altitude circle), ending at 20 m: 4 m above, another layer.
        var core = AvoidanceCore()
        let d = core.decide(
            own: ownship(2, at: spot, goal: spot), airspace: [climbing(1, at: Vector3(10, 0, 0), from: 12, to: 20)],
            now: 0)
        #expect(d.destination == spot)
        #expect(!d.parked)
        // Ending in the drone's own layer, its uncertain volume (growing to 6 m) still holds the spot.
        var same = AvoidanceCore()
        let e = same.decide(
            own: ownship(2, at: spot, goal: spot), airspace: [climbing(1, at: Vector3(10, 0, 0), from: 8, to: 16)],
            now: 0)
        #expect(e.parked)
        #expect(e.destination != spot)
    }

    @Test(
        "changing altitude to pass a higher-ranked drone, a drone takes the clear layer, not the one lower-ranked drones fly level in"
    )
    func clearLayerBeforeBusyOne() {
        let own = ownship(2, at: Vector3(0, 0, 20), velocity: Vector3(4, 0, 0), goal: Vector3(200, 0, 20))
        let blocker = track(1, from: Vector3(20, 0, 20))
        // Descending is cheaper than climbing: with nobody below, the drone goes under.
        var alone = AvoidanceCore()
        guard case .altitude(let under) = alone.decide(own: own, airspace: [blocker], now: 0).maneuver else {
            Issue.record("expected an altitude change")
            return
        }
        #expect(under < 20)
        // A lower-ranked drone flying level at 16 m toward it: the layer below is busy, so it goes over.
        var core = AvoidanceCore()
        let traffic = track(5, from: Vector3(60, 0, 16), velocity: Vector3(-4, 0, 0))
        guard case .altitude(let z) = core.decide(own: own, airspace: [blocker, traffic], now: 0).maneuver else {
            Issue.record("expected an altitude change")
            return
        }
        #expect(z > 20)
    }

    @Test(
        "a drone that has left its layer passes a crossing drone beside the way at the altitude it flies, not only at its goal's"
    )
    func veerAtTheAltitudeFlown() {
        // At 16 m on the way to a goal at 20 m: higher-ranked drones hold a wall 8 m ahead at 20 m (the way back up and
        // every climb meet it) and a column 20 m ahead from 4 to 16 m (every way straight on below the wall meets it).
        let own = ownship(10, at: Vector3(0, 0, 16), velocity: Vector3(4, 0, 0), goal: Vector3(200, 0, 20))
        var tracks = [-14.0, -7, 0, 7, 14].enumerated().map { track($0.offset + 1, from: Vector3(8, $0.element, 20)) }
        tracks += [4.0, 8, 12, 16].enumerated().map { track($0.offset + 6, from: Vector3(20, 0, $0.element)) }
        var core = AvoidanceCore()
        let d = core.decide(own: own, airspace: tracks, now: 0)
        guard case .veer(let via, _) = d.maneuver else {
            Issue.record("expected passing beside the column at 16 m, got \(d.maneuver)")
            return
        }
        #expect(abs(via.z - 16) < 0.5, "passes beside at \(via.z) m")
        #expect(d.safe)
    }

    @Test(
        "a crowd crossing the way at one place in the drone's layer is a roundabout: even the highest-ranked drone passes its centre on the right"
    )
    func roundaboutPassedOnTheRight() {
        // UAV 1 flies east through (0, 0) at 20 m; three lower-ranked drones reach the same point at the same time from
        // the north, north-east and south-east. Their plans are theirs to change, so without the roundabout UAV 1
        // would fly straight through.
        let own = ownship(1, at: Vector3(-30, 0, 20), velocity: Vector3(4, 0, 0), goal: Vector3(30, 0, 20))
        let r = 30 / 2.0.squareRoot()
        func crowd(at z: Double) -> [AirspaceTrack] {
            [
                track(2, from: Vector3(0, 30, z), velocity: Vector3(0, -4, 0)),
                track(3, from: Vector3(r, r, z), velocity: Vector3(-4, -4, 0) / 2.0.squareRoot()),
                track(4, from: Vector3(r, -r, z), velocity: Vector3(-4, 4, 0) / 2.0.squareRoot()),
            ]
        }
        var core = AvoidanceCore()
        let d = core.decide(own: own, airspace: crowd(at: 20), now: 0)
        guard case .veer(let via, _) = d.maneuver else {
            Issue.record("expected passing the crossing on the right, got \(d.maneuver)")
            return
        }
        // Heading east, the right is south: 10 m south of the crossing, at the drone's own altitude.
        #expect(abs(via.x) < 0.5 && abs(via.y + 10) < 0.5 && abs(via.z - 20) < 0.1, "via \(via)")
        #expect(d.safe)
        #expect(d.yieldingTo.isEmpty)
        // The same crowd in another layer (4 m up) is no roundabout of this drone's: the mission's plan.
        var other = AvoidanceCore()
        #expect(other.decide(own: own, airspace: crowd(at: 24), now: 0).maneuver == .nominal)
    }
}
