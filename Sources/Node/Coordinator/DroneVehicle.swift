import Coordinator
import MeshTypes

/// What a drone node flies (`[drone] vehicle`): the built-in simulator, or a real autopilot over MAVLink. The
/// coordinator shell drives either through the same calls; time is the shell's `MeshInstant`.
enum DroneVehicle {
    case simulated(SimulatedVehicle)
    case autopilot(AutopilotVehicle)

    /// Something the coordinator must be told.
    enum Event: Equatable {
        case flyingChanged(Bool)
        /// The vehicle's verdict on a command (`label` describes it for the log). The simulator answers at once; an
        /// autopilot when it has acknowledged the command's messages.
        case verdict(CommandID, VehicleVerdict, label: String)
        case completed(CommandID)
        case failed(CommandID, String)
    }

    static func events(_ e: [SimulatedVehicle.Event]) -> [Event] {
        e.map {
            switch $0 {
            case .flyingChanged(let f): return .flyingChanged(f)
            case .completed(let id): return .completed(id)
            case .failed(let id, let why): return .failed(id, why)
            }
        }
    }

    /// Steps to `now`: the simulator's physics, or the autopilot session's timers.
    mutating func advance(to now: MeshInstant) -> [Event] {
        switch self {
        case .simulated(var v):
            let e = v.advance(to: Double(now.nanoseconds) / 1e9)
            self = .simulated(v)
            return Self.events(e)
        case .autopilot(var a):
            let e = a.advance(to: now)
            self = .autopilot(a)
            return e
        }
    }

    /// Validates and starts a command; the verdict is among the events (now, or later for an autopilot).
    mutating func execute(_ id: CommandID, _ command: Command, now: MeshInstant) -> [Event] {
        switch self {
        case .simulated(var v):
            let (verdict, e) = v.execute(id, command)
            self = .simulated(v)
            // The verdict leaves before any completion the vehicle reported at once (hover, follow).
            return [.verdict(id, verdict, label: FleetCommandParser.describe(command))] + Self.events(e)
        case .autopilot(var a):
            let e = a.execute(id, command, now: now)
            self = .autopilot(a)
            return e
        }
    }

    mutating func applyTarget(_ target: Target, now: MeshInstant) -> [Event] {
        switch self {
        case .simulated(var v):
            let e = v.applyTarget(target)
            self = .simulated(v)
            return Self.events(e)
        case .autopilot(var a):
            let e = a.applyTarget(target, now: now)
            self = .autopilot(a)
            return e
        }
    }

    mutating func applyManualControl(_ sample: ManualControl, now: MeshInstant) -> [Event] {
        switch self {
        case .simulated(var v):
            let e = v.applyManualControl(sample)
            self = .simulated(v)
            return Self.events(e)
        case .autopilot(var a):
            let e = a.applyManualControl(sample, now: now)
            self = .autopilot(a)
            return e
        }
    }

    mutating func failsafe(_ action: FailsafeAction, now: MeshInstant) -> [Event] {
        switch self {
        case .simulated(var v):
            let e = v.failsafe(action)
            self = .simulated(v)
            return Self.events(e)
        case .autopilot(var a):
            let e = a.failsafe(action, now: now)
            self = .autopilot(a)
            return e
        }
    }

    /// The state published as telemetry; nil while an autopilot has not reported a position yet.
    var coordinatorState: Coordinator.VehicleState? {
        switch self {
        case .simulated(let v): return v.coordinatorState
        case .autopilot(let a): return a.coordinatorState
        }
    }

    /// The predicted trajectory for the airspace picture.
    var prediction: TrajectoryPrediction? {
        switch self {
        case .simulated(let v): return v.prediction
        case .autopilot(let a): return a.prediction
        }
    }
}
