import MeshTypes

/// A command's identity: the node that issued it, that node's incarnation and its counter. The incarnation makes
/// identities unique across restarts of the issuer (whose counter starts again at 1).
public struct CommandID: Hashable, Sendable, CustomStringConvertible {
    /// The issuing node.
    public var origin: NodeID
    /// The issuer's incarnation when it issued the command.
    public var originIncarnation: Incarnation
    /// The issuer's counter, starting at 1.
    public var counter: UInt64

    /// An identity from its fields.
    public init(origin: NodeID, originIncarnation: Incarnation, counter: UInt64) {
        self.origin = origin
        self.originIncarnation = originIncarnation
        self.counter = counter
    }

    public var description: String { "\(origin.short)/\(String(originIncarnation, radix: 16))#\(counter)" }
}

/// A command for one drone. Every case is delivered reliably end to end and answered; manual control is separate
/// (`ManualControl`, unreliable and unanswered).
public enum Command: Hashable, Sendable {
    /// Take off to `altitudeMillimetres` above the takeoff point.
    case takeoff(altitudeMillimetres: Int32)
    /// Land where it is.
    case land
    /// Hold position.
    case hover
    /// Fly to a position at `speedCmS`.
    case goto(GeoPoint, speedCmS: UInt16)
    /// Return to launch.
    case returnToLaunch
    /// Start or stop following the target stream.
    case followTarget(Bool)
    /// Upload a list of waypoints and start flying it; at the waypoints in `stops` turn to a heading and hold.
    case trajectory([GeoPoint], stops: [TrajectoryStop] = [])
}

/// At one of a trajectory's waypoints: turn in place to a heading and hold there (an inspection's snapshot point).
public struct TrajectoryStop: Hashable, Sendable {
    /// The waypoint, counted from 0.
    public var index: UInt16
    /// Heading to face in hundredths of a degree clockwise from grid north (0..<36000); nil keeps the heading.
    public var headingCentidegrees: UInt16?
    /// Tenths of a second to hold after the turn.
    public var holdDeciseconds: UInt16

    /// A stop at waypoint `index`.
    public init(index: UInt16, headingCentidegrees: UInt16?, holdDeciseconds: UInt16) {
        self.index = index
        self.headingCentidegrees = headingCentidegrees
        self.holdDeciseconds = holdDeciseconds
    }

    /// The heading in degrees, if any.
    public var heading: Double? { headingCentidegrees.map { Double($0) / 100 } }
    /// The hold in seconds.
    public var hold: Double { Double(holdDeciseconds) / 10 }
}

/// Why a command was refused.
public enum CommandRejection: Hashable, Sendable, CustomStringConvertible {
    /// No reachable drone holds that number.
    case unknownUAVNumber(UInt8)
    /// More than one reachable drone claims that number.
    case contestedNumber(UInt8)
    /// Another station holds the drone's control lease (ask with `takeover: true` to take it).
    case controlledBy(String)
    /// The drone's coordinator restarted since the command was addressed; the command may or may not have run before.
    case targetRestarted
    /// The vehicle refused (battery too low, not airborne, …).
    case vehicle(String)
    /// The drone refused a scheduled command's start time (it arrived too late, starts too far ahead, or could not be
    /// carried to it); the reason says which.
    case startTime(String)

    public var description: String {
        switch self {
        case .unknownUAVNumber(let n): return "unknown UAV number \(n)"
        case .contestedNumber(let n): return "UAV number \(n) is contested"
        case .controlledBy(let s): return "controlled by \(s)"
        case .targetRestarted: return "target drone restarted"
        case .vehicle(let s): return s
        case .startTime(let s): return s
        }
    }
}

/// An answer to a command. `accepted` comes first, then exactly one final answer.
public enum CommandAnswer: Hashable, Sendable {
    /// The vehicle accepted and started it (final answer follows).
    case accepted
    /// Refused; it was not executed (or, for `targetRestarted`, its outcome is unknown).
    case rejected(CommandRejection)
    /// The vehicle finished it.
    case completed
    /// The vehicle started it but could not finish it, or no answer came in time.
    case failed(String)

    /// Whether no further answer follows.
    public var isFinal: Bool { if case .accepted = self { return false } else { return true } }
}

/// What the vehicle said when asked to validate and start a command.
public enum VehicleVerdict: Hashable, Sendable {
    /// Valid; the vehicle started it.
    case accepted
    /// Refused, with a reason for the operator ("battery too low", "not airborne").
    case rejected(String)
}

/// How a command the vehicle accepted ended.
public enum VehicleCompletion: Hashable, Sendable {
    /// Done.
    case completed
    /// Aborted, with a reason.
    case failed(String)
}

/// One sample of a manual-control stream (MAVLink MANUAL_CONTROL scale: axes −1000…1000).
public struct ManualControl: Hashable, Sendable {
    /// Pitch / forward axis.
    public var x: Int16
    /// Roll / lateral axis.
    public var y: Int16
    /// Thrust / vertical axis.
    public var z: Int16
    /// Yaw axis.
    public var r: Int16
    /// Button bit mask.
    public var buttons: UInt32
    /// When the sender made the sample, microseconds since the Unix epoch on its clock (0 = not given). Used only to
    /// measure the stream's latency; clocks of different machines need not agree.
    public var sentAtMicros: UInt64

    /// A sample from its fields.
    public init(x: Int16, y: Int16, z: Int16, r: Int16, buttons: UInt32 = 0, sentAtMicros: UInt64 = 0) {
        self.x = x
        self.y = y
        self.z = z
        self.r = r
        self.buttons = buttons
        self.sentAtMicros = sentAtMicros
    }
}

/// What a drone does when it hears no station.
public enum FailsafeAction: UInt8, Hashable, Sendable, CaseIterable {
    /// Hold position.
    case hover = 0
    /// Fly back to the launch point.
    case returnHome = 1
    /// Land where it is.
    case land = 2
}

/// One failsafe step a drone took: the action and how long it had heard no station when it took it.
public struct FailsafeStep: Hashable, Sendable {
    /// What the drone did.
    public var action: FailsafeAction
    /// Milliseconds of station silence at the time of the action.
    public var afterSilenceMilliseconds: UInt32

    public init(action: FailsafeAction, afterSilenceMilliseconds: UInt32) {
        self.action = action
        self.afterSilenceMilliseconds = afterSilenceMilliseconds
    }
}

/// What a drone did while it heard no station, sent to the stations when one is reachable again.
public struct FailsafeReport: Hashable, Sendable {
    /// The drone's UAV number (0 if it had none).
    public var uavNumber: UInt8
    /// The actions, in order.
    public var steps: [FailsafeStep]
    /// How long the silence lasted in total, in milliseconds.
    public var silenceMilliseconds: UInt32

    public init(uavNumber: UInt8, steps: [FailsafeStep], silenceMilliseconds: UInt32) {
        self.uavNumber = uavNumber
        self.steps = steps
        self.silenceMilliseconds = silenceMilliseconds
    }
}

/// A drone's collision-avoidance decision, sent to the stations when it changes (at most one a second, the newest).
public struct AvoidanceReport: Hashable, Sendable {
    /// The drone's UAV number (0 if it has none).
    public var uavNumber: UInt8
    /// The decision in words, e.g. `altitude 24.0 m (yielding to 3)` (at most 255 bytes on the wire).
    public var summary: String

    public init(uavNumber: UInt8, summary: String) {
        self.uavNumber = uavNumber
        self.summary = summary
    }
}
