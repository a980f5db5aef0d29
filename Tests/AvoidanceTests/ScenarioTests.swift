import Foundation
import Testing
import Flight
@testable import Avoidance

@Suite("Avoidance scenarios")
struct AvoidanceScenarioTests {
    /// Runs a library mission and checks what every scenario must show: no loss of separation between avoiding drones,
    /// no geofence exit, every drone with somewhere to go arrived.
    @discardableResult
    func run(_ mission: AvoidanceMission, untilSettled: Bool = false) throws -> (AvoidanceReport, AvoidanceSimulation) {
        var sim = try AvoidanceSimulation(mission: mission)
        let r = untilSettled ? sim.runUntilSettled(for: 3) : sim.run()
        #expect(r.violations == 0, "\(r.name): \(r.violations) losses of separation, minimum \(r.minimumSeparation ?? -1) m")
        #expect(r.fenceExits == 0, "\(r.name): \(r.fenceExits) geofence exits")
        #expect(r.unarrived.isEmpty, "\(r.name): not arrived: \(r.unarrived)")
        #expect(r.arrivalTime != nil)
        #expect(r.minimumSeparation.map { $0 >= 5 } ?? true)
        return (r, sim)
    }

    @Test("head-on and crossing pairs: the lower-ranked drone changes altitude, both arrive almost on time")
    func pairs() throws {
        for mission in [AvoidanceMission.headOn(), .crossing()] {
            let (r, _) = try run(mission)
            // Without avoidance they would meet: the minimum separation shows they did not.
            #expect((r.minimumDistance ?? 0) >= 2.9)
            #expect(try #require(r.timeRatio) < 1.1, "\(r.name): \(r.timeRatio ?? -1)")
            #expect(r.drones[0].planChanges == 0, "UAV 1 never yields")
            #expect(r.drones[1].planChanges > 0, "UAV 2 yields")
            #expect(r.unsafeDecisions == 0)
        }
    }

    @Test("overtaking: the faster, lower-ranked drone passes the slower one at another altitude")
    func overtaking() throws {
        let (r, _) = try run(.overtaking())
        #expect(r.drones[0].planChanges == 0 && r.drones[1].planChanges > 0)
        // It was behind and ends ahead: it passed.
        #expect(r.drones[1].finalPosition.x > r.drones[0].finalPosition.x + 10)
        #expect(try #require(r.timeRatio) < 1.1)
    }

    @Test("a drone with a lost link flies straight through; the others get out of its way in time")
    func lostLink() throws {
        let (r, sim) = try run(.lostLink())
        #expect(!r.drones[0].avoidingAtEnd && !sim.isAvoiding(0))
        #expect(r.nonAvoidingViolations == 0, "\(r.nonAvoidingViolations) losses of separation with the lost drone")
        #expect(try #require(r.minimumSeparationToNonAvoiding) >= 5)
        // It really flew straight: from (-60, 0) to (60, 0) in 120 m plus takeoff.
        #expect(abs(r.drones[0].distance - 120) < 1)
        // The hovering drones in its way had to move.
        #expect(r.drones[1...4].contains { $0.planChanges > 0 })
    }

    @Test("drones sent to one target gather around it on distinct spots at safe spacing, not stacked")
    func sharedTarget() throws {
        let (r, _) = try run(.sharedTarget(drones: 8))
        let target = Vector3(0, 60, 15)
        let finals = r.drones.map(\.finalPosition)
        #expect(r.drones.filter { !$0.parked }.count == 1, "exactly one drone holds the target itself")
        #expect(r.drones.first { !$0.parked }?.uavNumber == 1)
        for (i, a) in finals.enumerated() {
            #expect(abs(a.z - target.z) < 1, "\(r.drones[i].id) at \(a): same altitude as the target, not stacked")
            #expect((a - target).horizontalLength < 14, "\(r.drones[i].id) at \(a): within two rings")
            for b in finals[(i + 1)...] { #expect((a - b).horizontalLength >= 6, "\(a) and \(b)") }
        }
    }

    @Test("the antipodal circle with 8 and 16 drones: no loss of separation, faster than ORCA's 2.9× and 1.75×")
    func smallCircles() throws {
        for (n, bar) in [(8, 2.9), (16, 1.75)] {
            var mission = AvoidanceMission.antipodalCircle(drones: n)
            mission.predictionSource = .model
            let (r, _) = try run(mission, untilSettled: true)
            let ratio = try #require(r.timeRatio)
            #expect(ratio < bar, "circle-\(n): \(ratio)× the straight-line time")
            #expect(try #require(r.extraDistance) < 0.15)
        }
    }

    /// 15 s and 60 s of a debug build: run with `AVOIDANCE_SEEDS` set (`make soak`); `fleetmesh-bench avoidance` flies
    /// them in every benchmark run.
    @Test("the antipodal circle with 32 and 64 drones: no loss of separation, faster than ORCA's 2.1× and 3.2×",
          .enabled(if: ProcessInfo.processInfo.environment["AVOIDANCE_SEEDS"] != nil))
    func largeCircles() throws {
        let sizes = [(32, 2.1), (64, 3.2)]
        for (n, bar) in sizes {
            var mission = AvoidanceMission.antipodalCircle(drones: n)
            mission.predictionSource = .model
            let (r, _) = try run(mission, untilSettled: true)
            let ratio = try #require(r.timeRatio)
            #expect(ratio < bar, "circle-\(n): \(ratio)× the straight-line time")
        }
    }

    @Test("a mission replays identically")
    func deterministic() throws {
        var a = try AvoidanceSimulation(mission: .sharedTarget(drones: 4))
        var b = try AvoidanceSimulation(mission: .sharedTarget(drones: 4))
        #expect(a.run() == b.run())
    }
}
