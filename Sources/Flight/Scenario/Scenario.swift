import Geodesy

/// A scripted offline mission: simulated drones, moving targets, and timed commands.
public struct Scenario: Sendable {
    /// Name for reports.
    public var name: String
    /// Map origin of the test area.
    public var origin: MapOrigin
    /// Simulated seconds to run.
    public var duration: Double
    /// Control and simulation step, seconds.
    public var step: Double
    /// How often to report progress, simulated seconds.
    public var progressInterval: Double
    /// The drones.
    public var drones: [Drone]
    /// Moving targets that drones can follow.
    public var targets: [Target]
    /// Timed actions, in any order (run in time order, ties in file order).
    public var events: [Event]

    /// Creates a scenario.
    public init(
        name: String, origin: MapOrigin, duration: Double, step: Double = 0.02, progressInterval: Double = 10,
        drones: [Drone], targets: [Target] = [], events: [Event]
    ) {
        self.name = name
        self.origin = origin
        self.duration = duration
        self.step = step
        self.progressInterval = progressInterval
        self.drones = drones
        self.targets = targets
        self.events = events
    }

    /// A simulated drone.
    public struct Drone: Sendable {
        /// Identifier used by events and reports.
        public var id: String
        /// Home position, local ENU (z = ground level).
        public var home: Vector3
        /// Initial heading, degrees.
        public var heading: Double
        /// Initial battery, percent.
        public var batteryPercent: Double
        /// Simulator settings (noise, wind, battery model, limits).
        public var simulator: SimulatorConfiguration
        /// Navigator settings.
        public var navigator: NavigatorConfiguration

        /// Creates a drone with default settings.
        public init(
            id: String, home: Vector3, heading: Double = 0, batteryPercent: Double = 100,
            simulator: SimulatorConfiguration = SimulatorConfiguration(),
            navigator: NavigatorConfiguration = NavigatorConfiguration()
        ) {
            self.id = id
            self.home = home
            self.heading = heading
            self.batteryPercent = batteryPercent
            self.simulator = simulator
            self.navigator = navigator
        }
    }

    /// A target moving along a polyline at constant speed (stationary with one point), optionally looping.
    public struct Target: Sendable {
        /// Identifier used by follow actions.
        public var id: String
        /// Path, local ENU.
        public var path: [Vector3]
        /// Speed along the path, m/s.
        public var speed: Double
        /// Whether to go round the path again (closing it back to the first point).
        public var loop: Bool
        /// When the target starts moving, seconds.
        public var startTime: Double

        /// Creates a target.
        public init(id: String, path: [Vector3], speed: Double, loop: Bool = false, startTime: Double = 0) {
            self.id = id
            self.path = path
            self.speed = speed
            self.loop = loop
            self.startTime = startTime
        }

        /// Position and velocity at scenario time `t`.
        public func observation(at t: Double) -> TargetObservation {
            guard path.count > 1, speed > 0 else { return TargetObservation(time: t, position: path.first ?? .zero) }
            var legs = Array(zip(path, path.dropFirst()))
            if loop { legs.append((path[path.count - 1], path[0])) }
            let total = legs.reduce(0) { $0 + $1.0.distance(to: $1.1) }
            guard total > 0 else { return TargetObservation(time: t, position: path[0]) }
            var s = max(0, t - startTime) * speed
            if loop {
                s = s.truncatingRemainder(dividingBy: total)
            } else if s >= total {
                return TargetObservation(time: t, position: path[path.count - 1])
            }
            for (a, b) in legs {
                let l = a.distance(to: b)
                if s <= l && l > 0 {
                    let u = (b - a) / l
                    return TargetObservation(time: t, position: a + u * s, velocity: t >= startTime ? u * speed : .zero)
                }
                s -= l
            }
            return TargetObservation(time: t, position: path[path.count - 1])
        }
    }

    /// Something to do at a time.
    public struct Event: Sendable {
        /// Scenario time, seconds.
        public var time: Double
        /// The drone it is for.
        public var drone: String
        /// What to do.
        public var action: Action

        /// Creates an event.
        public init(time: Double, drone: String, action: Action) {
            self.time = time
            self.drone = drone
            self.action = action
        }
    }

    /// What an event does.
    public enum Action: Sendable {
        /// Send a navigator command.
        case command(FlightCommand)
        /// Follow a scenario target at an offset.
        case follow(target: String, offset: Vector3)
        /// Plan a trajectory through waypoints, go to its start, and start it on arrival.
        case trajectory(waypoints: [Vector3], limits: TrajectoryPlanner.Limits)

        /// Short name for logs.
        public var name: String {
            switch self {
            case .command(let c):
                switch c {
                case .takeoff: return "takeoff"
                case .land: return "land"
                case .hold: return "hold"
                case .goto: return "goto"
                case .follow: return "follow"
                case .goToStart: return "go-to-start"
                case .startTrajectory: return "start-trajectory"
                case .returnHome: return "return-home"
                }
            case .follow: return "follow"
            case .trajectory: return "trajectory"
            }
        }
    }
}

/// A scenario that does not make sense: the key (like `events[2].drone`) and the problem.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, when known.
    public var file: String?
    /// Dotted key path of the offending value.
    public var key: String
    /// What is wrong.
    public var problem: String

    /// Creates an error.
    public init(file: String? = nil, key: String, problem: String) {
        self.file = file
        self.key = key
        self.problem = problem
    }

    /// `FILE: KEY: problem`.
    public var description: String { "\(file.map { "\($0): " } ?? "")\(key): \(problem)" }
}
