import Flight
import Foundation
import Testing

@testable import Avoidance

@Suite("Priority order")
struct PriorityTests {
    @Test("drones that cannot avoid rank first, then lower UAV numbers, then the tie-break")
    func order() {
        let manual9 = VehicleRank(avoiding: false, uavNumber: 9)
        let manual3 = VehicleRank(avoiding: false, uavNumber: 3)
        let uav1 = VehicleRank(avoiding: true, uavNumber: 1)
        let uav2a = VehicleRank(avoiding: true, uavNumber: 2, tiebreak: 5)
        let uav2b = VehicleRank(avoiding: true, uavNumber: 2, tiebreak: 6)
        let unnumbered = VehicleRank(avoiding: true, uavNumber: 300)
        #expect(
            [unnumbered, uav2b, uav1, manual9, uav2a, manual3].sorted() == [
                manual3, manual9, uav1, uav2a, uav2b, unnumbered,
            ])
        #expect(manual9.hasPriority(over: uav1))
        #expect(uav1.hasPriority(over: uav2a) && !uav2a.hasPriority(over: uav1))
        #expect(!uav1.hasPriority(over: uav1))
        // A total order: for distinct ranks exactly one has priority.
        let all = [manual9, manual3, uav1, uav2a, uav2b, unnumbered]
        for a in all { for b in all where a != b { #expect(a.hasPriority(over: b) != b.hasPriority(over: a)) } }
    }

    @Test("head-on, from the same picture: exactly one drone yields, the lower-ranked one")
    func exactlyOneYields() {
        for (low, high) in [(1, 2), (2, 1), (5, 250)] {
            let a = ownship(low, at: Vector3(0, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(200, 0, 15))
            let b = ownship(high, at: Vector3(50, 0, 15), velocity: Vector3(-4, 0, 0), goal: Vector3(-150, 0, 15))
            let ta = track(low, from: a.position, velocity: a.velocity)
            let tb = track(high, from: b.position, velocity: b.velocity)
            var coreA = AvoidanceCore(), coreB = AvoidanceCore()
            let da = coreA.decide(own: a, airspace: [tb], now: 0)
            let db = coreB.decide(own: b, airspace: [ta], now: 0)
            let aYields = da.maneuver != .nominal, bYields = db.maneuver != .nominal
            #expect(aYields != bYields, "\(low) vs \(high): \(da) / \(db)")
            #expect(aYields == (high < low))
            let yielder = aYields ? da : db
            #expect(yielder.safe && yielder.changed && yielder.adjustment != nil)
            #expect(yielder.yieldingTo == [min(low, high)])
        }
    }

    @Test("a drone that does not avoid has right of way even over UAV 1")
    func nonAvoidingFirst() {
        let own = ownship(1, at: Vector3(0, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(200, 0, 15))
        var core = AvoidanceCore()
        let d = core.decide(
            own: own, airspace: [track(40, from: Vector3(50, 0, 15), velocity: Vector3(-4, 0, 0), avoiding: false)],
            now: 0)
        #expect(d.maneuver != .nominal && d.yieldingTo == [40])
        // And a lower-ranked avoiding drone on the same course is ignored beyond the courtesy window.
        var core2 = AvoidanceCore()
        let d2 = core2.decide(
            own: own, airspace: [track(40, from: Vector3(50, 0, 15), velocity: Vector3(-4, 0, 0))], now: 0)
        #expect(d2.maneuver == .nominal && d2.adjustment == nil && !d2.changed)
    }

    @Test("a drone without a goal does not avoid and its adjustment is cleared")
    func notAvoiding() {
        var core = AvoidanceCore()
        let threatened = ownship(3, at: Vector3(0, 0, 15), velocity: Vector3(4, 0, 0), goal: Vector3(200, 0, 15))
        let d = core.decide(
            own: threatened, airspace: [track(1, from: Vector3(40, 0, 15), velocity: Vector3(-4, 0, 0))], now: 0)
        #expect(d.adjustment != nil)
        let landing = ownship(3, at: Vector3(0, 0, 15), goal: nil)
        #expect(!landing.avoiding && landing.rank.hasPriority(over: VehicleRank(avoiding: true, uavNumber: 1)))
        let off = core.decide(own: landing, airspace: [], now: 0.1)
        #expect(off.maneuver == .notAvoiding && off.adjustment == nil && off.changed)
        #expect(!core.decide(own: landing, airspace: [], now: 0.2).changed)
    }
}
