import Flight

/// The drone that is deciding: identity, state and what its mission wants right now.
public struct AvoidanceOwnship: Sendable, Hashable {
    /// Where the mission wants the drone: a point (moving at `velocity` for a followed target) and a cruise speed.
    public struct Goal: Sendable, Hashable {
        /// The point, local ENU metres (for a followed target: target plus offset, now).
        public var position: Vector3
        /// Its velocity, m/s (zero for a goto or a hold).
        public var velocity: Vector3
        /// Horizontal cruise speed asked for, m/s.
        public var speed: Double

        /// Creates a goal.
        public init(position: Vector3, velocity: Vector3 = .zero, speed: Double) {
            self.position = position
            self.velocity = velocity
            self.speed = speed
        }
    }

    /// Its UAV number (above 250 if it has none).
    public var uavNumber: Int
    /// Tie-break for equal numbers (the same value other drones see in its ``AirspaceTrack``).
    public var tiebreak: UInt64
    /// Position, local ENU metres.
    public var position: Vector3
    /// Velocity, m/s.
    public var velocity: Vector3
    /// The mission's goal; nil when the drone does not avoid (taking off, landing, returning home, flying an uploaded
    /// trajectory, manual control, lost link).
    public var goal: Goal?

    /// Creates an ownship.
    public init(uavNumber: Int, tiebreak: UInt64 = 0, position: Vector3, velocity: Vector3, goal: Goal?) {
        self.uavNumber = uavNumber
        self.tiebreak = tiebreak
        self.position = position
        self.velocity = velocity
        self.goal = goal
    }

    /// Whether it avoids (has a goal).
    public var avoiding: Bool { goal != nil }
    /// Its place in the priority order.
    public var rank: VehicleRank { VehicleRank(avoiding: avoiding, uavNumber: uavNumber, tiebreak: tiebreak) }
}

extension AvoidanceOwnship {
    /// The ownship of a drone flown by a ``Flight/Navigator``: the goal comes from its intent (goto: the target and
    /// speed; hold: the hold point; follow: the target's extrapolated position plus offset, moving at its velocity).
    /// Other intents, a vehicle on the ground, and `avoiding: false` (lost link, manual control) give no goal.
    public init(
        uavNumber: Int, tiebreak: UInt64 = 0, navigator: Navigator, state: VehicleState, now: Double,
        avoiding: Bool = true
    ) {
        var goal: Goal?
        let c = navigator.configuration
        if avoiding && state.isAirborne && state.armed {
            switch navigator.intent {
            case .goto(let target, let speed):
                goal = Goal(position: target, speed: speed)
            case .hold(let p):
                goal = Goal(position: p, speed: c.limits.maxHorizontalSpeed)
            case .follow(let offset):
                if let target = navigator.target {
                    let fresh = now - target.time <= c.targetMaxExtrapolation
                    goal = Goal(
                        position: target.position(at: now, maxExtrapolation: c.targetMaxExtrapolation) + offset,
                        velocity: fresh ? target.velocity : .zero, speed: c.limits.maxHorizontalSpeed)
                } else {
                    goal = Goal(position: state.position, speed: c.limits.maxHorizontalSpeed)
                }
            default:
                goal = nil
            }
        }
        self.init(
            uavNumber: uavNumber, tiebreak: tiebreak, position: state.position, velocity: state.velocity, goal: goal)
    }
}
