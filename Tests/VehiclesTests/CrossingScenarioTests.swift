import AutopilotEmulation
import AvoidanceScenarios
import Flight
import Testing

/// Crossing scenarios on realistic emulated autopilots (0.4 s response, 50 ms link delay, 3 m/s wind with 1 m/s
/// gusts, 0.3 m GPS noise) and simulated drones, all behind the vehicle protocol with avoidance above each
/// (`FleetHarness`): nobody loses separation, everyone arrives in time, and a drone the pilot takes over mid-crossing
/// is kept away from.
@Suite struct CrossingScenarioTests {
    /// No loss of separation among the cooperating drones, each of them arrived within `factor` × its straight-line
    /// time and near its goal.
    static func expectSafeAndArrived(
        _ s: CrossingScenario, _ o: CrossingOutcome, factor: Double, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        print(
            "\(s.name): closest \(o.minimumSeparation) m, \(o.losses) losses, extra time \(o.extraTime)×, arrivals \(o.arrivals), maneuvered \(o.maneuvered)"
        )
        #expect(o.losses == 0, "separation lost: closest \(o.minimumSeparation) m", sourceLocation: sourceLocation)
        for i in s.kinds.indices where i != s.takeover?.drone {
            let arrival = o.arrivals[i]
            #expect(
                arrival.map { $0 < factor * s.straightLineSeconds(i) } == true,
                "drone \(i + 1) (\(s.kinds[i])) arrived after \(String(describing: arrival)) s",
                sourceLocation: sourceLocation)
            // Arrived by its GPS (within 1 m, with 0.3 m of GPS error) and held against the gusts since.
            let goal = Vector3(s.goals[i].x, s.goals[i].y, s.altitude)
            #expect(
                (o.finalPositions[i] - goal).horizontalLength < 3, "drone \(i + 1) ended at \(o.finalPositions[i])",
                sourceLocation: sourceLocation)
        }
    }

    @Test("two autopilot drones head-on (ArduPilot and PX4)")
    func headOn() throws {
        let s = CrossingScenario.headOn(.autopilot(.ardupilot), .autopilot(.px4))
        let o = try s.run()
        Self.expectSafeAndArrived(s, o, factor: 2)
        #expect(o.maneuvered.contains(true))
    }

    @Test("two autopilot drones crossing at 90°")
    func crossing() throws {
        let s = CrossingScenario.crossing(.autopilot(.px4), .autopilot(.ardupilot))
        let o = try s.run()
        Self.expectSafeAndArrived(s, o, factor: 2)
    }

    @Test("four autopilot drones on an antipodal circle of 30 m")
    func fourAutopilots() throws {
        let s = CrossingScenario.antipodal([
            .autopilot(.ardupilot), .autopilot(.px4), .autopilot(.ardupilot), .autopilot(.px4),
        ])
        let o = try s.run()
        Self.expectSafeAndArrived(s, o, factor: 3)
    }

    @Test("a mixed fleet (2 ArduPilot, 2 PX4, 2 simulated) on an antipodal circle of 30 m")
    func mixedFleet() throws {
        let s = CrossingScenario.antipodal([
            .autopilot(.ardupilot), .simulated, .autopilot(.px4), .autopilot(.ardupilot), .simulated,
            .autopilot(.px4),
        ])
        let o = try s.run()
        Self.expectSafeAndArrived(s, o, factor: 3.5)
    }

    @Test("the pilot takes one autopilot drone over mid-crossing: the others keep away from it and from each other")
    func pilotTakeover() throws {
        var s = CrossingScenario.antipodal([
            .autopilot(.ardupilot), .autopilot(.px4), .simulated, .autopilot(.ardupilot),
        ])
        // Drone 1 (the highest priority) is taken 3 s into the crossing, about 12 m from the centre, and holds there.
        s.takeover = .init(drone: 0, after: 3)
        let o = try s.run()
        print("closest to the taken-over drone: \(o.minimumToNonCooperating) m")
        Self.expectSafeAndArrived(s, o, factor: 3.5)
        #expect(o.nonCooperativeLosses == 0 && o.minimumToNonCooperating >= 5, "\(o.minimumToNonCooperating) m")
        #expect(o.arrivals[0] == nil, "the taken-over drone does not arrive")
        // It stopped where the pilot took it, short of its goal.
        #expect((o.finalPositions[0] - Vector3(0, -30, 10)).horizontalLength > 20, "\(o.finalPositions[0])")
    }
}
