import Avoidance
import ControlProtocol
import Coordinator
import Flight
import Geodesy
import MeshTypes

/// What a drone node flies: the built-in simulator or a real autopilot, behind one interface.
///
/// A vehicle is a sans-IO value: time comes in as `now`, bytes for its link (an autopilot's MAVLink frames) come in
/// through ``receive(_:endOfDatagram:now:)`` and leave as ``VehicleEvent/send(_:)``. It turns the coordinator's
/// commands, targets, manual control and failsafe actions into flight and answers with events. Collision avoidance
/// lives above it (``VehiclePilot``): a vehicle only tells what it flies (``ownship(uavNumber:tiebreak:now:avoiding:)``)
/// and flies an adjustment (``adjust(_:now:)``). Nothing outside a vehicle asks which kind it is.
public protocol Vehicle: Sendable {
    /// What this vehicle can do.
    var capabilities: VehicleCapabilities { get }
    /// The local frame its positions, predictions and avoidance use; nil until it knows where it is (an autopilot
    /// before its first position report).
    var frame: MapOrigin? { get }
    /// The state published as telemetry; nil until known.
    var telemetry: Coordinator.VehicleState? { get }
    /// The predicted trajectory published to the airspace picture; `avoiding` marks it as flown by collision
    /// avoidance.
    func prediction(avoiding: Bool, now: MeshInstant) -> TrajectoryPrediction?
    /// The drone as collision avoidance sees it (its goal from what it flies), in ``frame``; nil when unknown.
    func ownship(uavNumber: Int, tiebreak: UInt64, now: MeshInstant, avoiding: Bool) -> AvoidanceOwnship?

    /// Steps to `now`: the simulator's physics, or the autopilot session's timers.
    mutating func advance(to now: MeshInstant) -> [VehicleEvent]
    /// Bytes from the vehicle's link (`endOfDatagram`: a UDP datagram ends here).
    mutating func receive(_ bytes: [UInt8], endOfDatagram: Bool, now: MeshInstant) -> [VehicleEvent]
    /// Validates and starts a command; the verdict is among the events (now, or later for an autopilot).
    mutating func execute(_ id: CommandID, _ command: Command, now: MeshInstant) -> [VehicleEvent]
    /// A target for this drone: followed while following, else flown to when airborne.
    mutating func applyTarget(_ location: GeoPoint, now: MeshInstant) -> [VehicleEvent]
    /// One manual-control sample (ignored on the ground).
    mutating func applyManualControl(_ sample: ManualControl, now: MeshInstant) -> [VehicleEvent]
    /// The coordinator's failsafe action.
    mutating func failsafe(_ action: FailsafeAction, now: MeshInstant) -> [VehicleEvent]
    /// Collision avoidance's change to how the goal is flown (nil: none).
    mutating func adjust(_ adjustment: NavigatorAdjustment?, now: MeshInstant) -> [VehicleEvent]
    /// The drone's UAV number changed.
    mutating func setUAVNumber(_ number: UInt8?) -> [VehicleEvent]
    /// The state of the vehicle's link for `status` (the node adds the link's own counters); nil without a link.
    func linkStatus(now: MeshInstant) -> AutopilotReport?
}

/// What a vehicle can do.
public struct VehicleCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// It has a link (bytes in through `receive`, out as `send` events).
    public static let link = VehicleCapabilities(rawValue: 1 << 0)
    /// Collision avoidance can adjust what it flies.
    public static let avoidance = VehicleCapabilities(rawValue: 1 << 1)
    /// It flies uploaded trajectories.
    public static let trajectories = VehicleCapabilities(rawValue: 1 << 2)
    /// It obeys manual control.
    public static let manualControl = VehicleCapabilities(rawValue: 1 << 3)
}

/// Something the node must do or be told after a vehicle call.
public enum VehicleEvent: Sendable, Hashable {
    /// The vehicle took off or landed.
    case flyingChanged(Bool)
    /// The vehicle's verdict on a command (`label` describes it for the log). The simulator answers at once; an
    /// autopilot when it has acknowledged the command's messages.
    case verdict(CommandID, VehicleVerdict, label: String)
    case completed(CommandID)
    case failed(CommandID, String)
    /// Bytes (one frame) for the vehicle's link.
    case send([UInt8])
    /// A line for the node's log.
    case log(VehicleLogLevel, String)
}

/// How loud a vehicle's log line is; the raw values are swift-log's level names.
public enum VehicleLogLevel: String, Sendable, Hashable {
    case debug, info, notice, warning, error
}
