import Determinism
import Flight
import Foundation

/// Randomized missions for the deterministic simulation tests: 2–50 drones hovering on a grid inside a random convex
/// geofence, sent to random goals (some shared, some close to each other, some outside the fence), some sent on
/// again later, some left hovering in the way; predictions lost and delayed at random; every drone decides at 5 Hz
/// (half the rate of the scenarios, which makes reactions later, not easier). Same seed, same mission.
public struct RandomMission: Sendable {
    /// The seed.
    public let seed: UInt64
    /// The mission.
    public var mission: AvoidanceMission
    /// Every avoiding drone must have settled by this time, seconds (the no-deadlock bound).
    public let deadline: Double

    /// How many drones a mission has.
    public enum Kind: String, Sendable, Hashable {
        /// 2–5 drones in a small fence: close encounters, cheap enough for thousands of seeds in a debug build.
        case encounter
        /// 6–50 drones.
        case crowd
    }

    /// The kind.
    public let kind: Kind

    /// Builds the mission of `seed` of a kind. `predictionSource` is where shared predictions come from.
    public init(seed: UInt64, kind: Kind = .encounter, predictionSource: AvoidanceMission.PredictionSource = .model) {
        self.seed = seed
        self.kind = kind
        var rng = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ (kind == .crowd ? 0x2545_F491 : 0x5851_F42D))
        func uniform(_ r: ClosedRange<Double>) -> Double { Double.random(in: r, using: &rng) }
        func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
        let n = kind == .encounter ? Int.random(in: 2...5, using: &rng) : Int.random(in: 6...50, using: &rng)
        // Homes on a grid 8 m apart, centred on the origin.
        let columns = Int(Double(n).squareRoot().rounded(.up))
        let rows = (n + columns - 1) / columns
        let spacing = 8.0
        var slots = (0..<(columns * rows)).map {
            Vector3(
                (Double($0 % columns) - Double(columns - 1) / 2) * spacing,
                (Double($0 / columns) - Double(rows - 1) / 2) * spacing, 0)
        }
        slots.shuffle(using: &rng)
        // A convex fence: a regular polygon (4–8 sides, random rotation) around the grid.
        let halfDiagonal = Double(max(columns, rows)) * spacing * 0.75
        let radius = halfDiagonal + (kind == .encounter ? uniform(8...18) : uniform(15...45))
        let sides = Int.random(in: 4...8, using: &rng)
        let rotation = uniform(0...(2 * Double.pi))
        let ceiling = uniform(24...60)
        let corners = (0..<sides).map { k -> Vector3 in
            let a = rotation + 2 * Double.pi * Double(k) / Double(sides)
            return Vector3(radius * cos(a), radius * sin(a), 0)
        }
        let fence = try! Geofence(polygon: corners, minAltitude: 3, maxAltitude: ceiling)
        let inner = radius * cos(Double.pi / Double(sides))  // inscribed radius
        func insidePoint(_ z: ClosedRange<Double>) -> Vector3 {
            while true {
                let p = Vector3(uniform(-inner...inner), uniform(-inner...inner), uniform(z))
                if fence.contains(p, margin: 2) { return p }
            }
        }

        var configuration = AvoidanceConfiguration()
        configuration.geofence = fence
        var communication = CommunicationModel()
        communication.seed = seed
        communication.loss = [0, 0.05, 0.15, 0.3].randomElement(using: &rng)!
        communication.minimumLatency = 0.02
        communication.maximumLatency = uniform(0.05...0.2)
        communication.lateProbability = chance(0.5) ? uniform(0.01...0.05) : 0
        communication.lateDelay = 0.3...1.2

        var drones: [Scenario.Drone] = []
        var settings: [AvoidanceMission.Drone] = []
        var events: [Scenario.Event] = []
        var goals: [Vector3] = []
        var lastEvent = 0.0
        var longest = 0.0
        var numbers = Array(1...n)
        numbers.shuffle(using: &rng)
        let altitudes = 6.0...(ceiling - 2)
        for k in 0..<n {
            let id = "d\(k + 1)"
            var spec = Scenario.Drone(id: id, home: slots[k])
            let speed = kind == .encounter ? uniform(3...4) : uniform(2...4)
            spec.navigator.defaultSpeed = 4
            drones.append(spec)
            let start = uniform(altitudes)
            settings.append(AvoidanceMission.Drone(uavNumber: numbers[k], startAltitude: start))
            if chance(0.15) { continue }  // stays where it is: an obstacle
            var from = Vector3(slots[k].x, slots[k].y, start)
            for leg in 0..<(chance(0.25) ? 2 : 1) {
                let goal: Vector3
                let r = Double.random(in: 0..<1, using: &rng)
                if r < 0.25, let shared = goals.randomElement(using: &rng) {
                    goal = shared
                } else if r < 0.35, let near = goals.randomElement(using: &rng) {
                    goal = fence.clamp(
                        near + Vector3(uniform(-4...4), uniform(-4...4), uniform(-2...2)), margin: 2, altitudeMargin: 1)
                } else if r < 0.4 {
                    goal = Vector3(uniform(-1...1) * radius * 1.3, uniform(-1...1) * radius * 1.3, uniform(altitudes))
                } else {
                    goal = insidePoint(altitudes)
                }
                goals.append(goal)
                let at = leg == 0 ? uniform(0...4) : (kind == .encounter ? uniform(5...12) : uniform(10...25))
                events.append(Scenario.Event(time: at, drone: id, action: .command(.goto(.local(goal), speed: speed))))
                lastEvent = max(lastEvent, at)
                longest = max(longest, (goal - from).horizontalLength / speed + abs(goal.z - from.z) / 1.5)
                from = goal
            }
        }
        // The bound: the last command, three times the longest leg, a minute for queueing at shared goals.
        deadline = lastEvent + 3 * longest + 60 + Double(n)
        let scenario = Scenario(
            name: "random-\(kind.rawValue)-\(seed)", origin: AvoidanceMission.libraryOrigin, duration: deadline,
            step: 0.1,
            drones: drones, events: events)
        var mission = AvoidanceMission(
            scenario: scenario, drones: settings, configuration: configuration, communication: communication)
        mission.predictionSource = predictionSource
        mission.decisionInterval = 0.2
        mission.compareSolo = false
        mission.measureFrom = 0
        self.mission = mission
    }

    /// What went wrong in one run, empty when every invariant held.
    public struct Outcome: Sendable {
        /// The seed.
        public var seed: UInt64
        /// Number of drones.
        public var drones: Int
        /// Broken invariants, one line each.
        public var violations: [String]
        /// The run's report.
        public var report: AvoidanceReport
    }

    /// Runs the mission until every drone has settled (or the deadline) and checks the invariants: no loss of
    /// separation between avoiding drones, no geofence exit, every drone settled at its destination (its goal, the goal
    /// moved into the fence, or a parking spot near it) by the deadline.
    public func run() -> Outcome {
        var sim = try! AvoidanceSimulation(mission: mission)
        let report = sim.runUntilSettled(for: 3, checkEvery: 0.5)
        var problems: [String] = []
        if report.violations > 0 {
            problems.append(
                "\(report.violations) losses of separation between avoiding drones (\(formatSeconds(report.violationSeconds)) pair-seconds, minimum \(String(format: "%.2f", report.minimumSeparation ?? -1)) m)"
            )
        }
        if report.fenceExits > 0 { problems.append("\(report.fenceExits) geofence exits") }
        if !sim.settled(for: 3) {
            for (i, d) in report.drones.enumerated() where d.avoidingAtEnd && d.destination != nil && d.arrival == nil {
                problems.append(
                    "\(d.id) (UAV \(d.uavNumber)) not settled by \(formatSeconds(deadline)) s: at \(d.finalPosition), destination \(d.destination!), \(sim.decision(i))"
                )
            }
            if problems.isEmpty { problems.append("not settled by \(formatSeconds(deadline)) s") }
        }
        let c = mission.configuration
        for (i, d) in report.drones.enumerated() where d.avoidingAtEnd {
            guard let dest = d.destination,
                let goal = AvoidanceOwnship(
                    uavNumber: 0, navigator: sim.navigator(i), state: sim.simulator(i).state, now: sim.time
                ).goal
            else { continue }
            let clamped =
                c.geofence?.clamp(goal.position, margin: c.fenceMargin, altitudeMargin: c.fenceAltitudeMargin)
                ?? goal.position
            if (dest - clamped).length > c.parkingSpacing * 8 + 0.1 {
                problems.append("\(d.id) parked \(String(format: "%.1f", (dest - clamped).length)) m from its goal")
            }
        }
        return Outcome(seed: seed, drones: mission.drones.count, violations: problems, report: report)
    }

    func formatSeconds(_ s: Double) -> String { String(format: "%.1f", s) }
}
