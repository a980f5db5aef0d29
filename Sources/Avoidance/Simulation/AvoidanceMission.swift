import Flight

/// How predictions travel between drones in an ``AvoidanceSimulation``: published periodically and at once when a
/// plan changes, each copy lost or delayed independently (seeded).
public struct CommunicationModel: Sendable, Hashable, Codable {
    /// Period of regular publication, seconds (5 Hz, as the coordinator publishes).
    public var publishInterval = 0.2
    /// Shortest one-way latency, seconds.
    public var minimumLatency = 0.02
    /// Longest one-way latency (without late delivery), seconds.
    public var maximumLatency = 0.1
    /// Probability that one copy is lost.
    public var loss = 0.0
    /// Probability that one copy arrives late, by an extra `lateDelay`.
    public var lateProbability = 0.0
    /// Extra delay of a late copy, seconds.
    public var lateDelay: ClosedRange<Double> = 0.3...1.2
    /// Seed of the loss and latency draws.
    public var seed: UInt64 = 1

    /// 5 Hz, 20–100 ms latency, no loss.
    public init() {}
}

/// A multi-drone mission with collision avoidance: a ``Flight/Scenario`` (origin, drones, targets, timed events)
/// plus, per drone, its UAV number and whether it avoids, the avoidance settings and the communication model.
public struct AvoidanceMission: Sendable {
    /// Per-drone avoidance settings, in the scenario's drone order.
    public struct Drone: Sendable, Hashable {
        /// UAV number (the priority: lower wins).
        public var uavNumber: Int
        /// Whether it avoids at all.
        public var avoids: Bool
        /// From this time on it stops avoiding and flies its last command straight on (a lost link), seconds.
        public var lostLinkAt: Double?
        /// Start already hovering this many metres above home instead of landed.
        public var startAltitude: Double?

        /// Creates the settings.
        public init(uavNumber: Int, avoids: Bool = true, lostLinkAt: Double? = nil, startAltitude: Double? = nil) {
            self.uavNumber = uavNumber
            self.avoids = avoids
            self.lostLinkAt = lostLinkAt
            self.startAltitude = startAltitude
        }
    }

    /// Where shared predictions come from in the simulation.
    public enum PredictionSource: String, Sendable, Hashable, Codable {
        /// ``Flight/Navigator/predictedTrajectory(state:now:)``, as a drone node publishes (the default).
        case navigator
        /// The avoidance core's own motion model of the navigator's current plan: about 10× cheaper, within a few
        /// decimetres of the navigator's; for long randomized test runs. Drones that do not avoid still use the
        /// navigator's.
        case model
    }

    /// The scripted mission.
    public var scenario: Scenario
    /// Avoidance settings per drone, in ``Flight/Scenario/drones`` order.
    public var drones: [Drone]
    /// Avoidance settings shared by all drones.
    public var configuration: AvoidanceConfiguration
    /// How predictions travel.
    public var communication: CommunicationModel
    /// How often each drone decides, seconds (drones are staggered within the period).
    public var decisionInterval = 0.1
    /// Where shared predictions come from.
    public var predictionSource = PredictionSource.navigator
    /// Start of the timed part (arrival times and distances are measured from here); default: the first goto or
    /// follow event.
    public var measureFrom: Double?
    /// Fly every drone alone too, to compare arrival time and distance against flying without others.
    public var compareSolo = true

    /// Creates a mission; `drones` defaults to UAV numbers 1, 2, … in scenario order, all avoiding.
    public init(
        scenario: Scenario, drones: [Drone]? = nil, configuration: AvoidanceConfiguration = AvoidanceConfiguration(),
        communication: CommunicationModel = CommunicationModel()
    ) {
        self.scenario = scenario
        self.drones = drones ?? scenario.drones.indices.map { Drone(uavNumber: $0 + 1) }
        self.configuration = configuration
        self.communication = communication
    }

    /// Each drone's goal: the target of its last goto to a local point (nil: none), in ``Flight/Scenario/drones`` order.
    public var goals: [Vector3?] {
        scenario.drones.map { d in
            scenario.events.last { e in
                if e.drone == d.id, case .command(.goto(.local, _)) = e.action { return true }
                return false
            }.flatMap { e -> Vector3? in
                if case .command(.goto(.local(let p), _)) = e.action { return p }
                return nil
            }
        }
    }
}
