import Coordinator
import MAVLink
import MeshTypes

/// The plans the session runs: what the vehicle intends, the steps that get the autopilot there, and how each
/// step is known to be done.
extension AutopilotSession {
    /// What the vehicle is doing, from the autopilot's reports and the command it runs.
    enum Intent: Sendable, Hashable {
        case idle, takingOff, hovering, flyingToTarget, following, trajectory, landing, returning, manual
    }

    /// One step of a plan.
    enum Step: Sendable, Hashable {
        /// A COMMAND_LONG, acknowledged with COMMAND_ACK (retried, with `confirmation` counting up).
        case command(CommandLong)
        /// A COMMAND_INT, acknowledged with COMMAND_ACK (retried).
        case commandInt(CommandInt)
        /// A message that is not acknowledged.
        case message(MAVLinkMessage)
        /// Upload a mission (MISSION_COUNT, MISSION_REQUEST_INT / MISSION_ITEM_INT …, MISSION_ACK).
        case mission([MissionItemInt])
        /// Start streaming a position setpoint, and let it run for `offboardPrestream` before the next step (PX4
        /// OFFBOARD needs the stream before the mode switch).
        case startSetpointStream(GeoPoint)
    }

    /// When an accepted command is complete.
    enum Completion: Sendable, Hashable {
        case immediately
        /// Relative altitude reached (mm).
        case altitude(Int32)
        /// On the ground and disarmed.
        case landed
        /// At the position.
        case arrived(GeoPoint)
        /// MISSION_ITEM_REACHED of this sequence number.
        case missionEnd(UInt16)
    }

    /// A command being turned into autopilot messages.
    struct Plan: Sendable, Hashable {
        var id: CommandID?
        var label: String
        var steps: [Step]
        var index = 0
        var wait: Wait?
        var completion: Completion
        var intent: Intent
        /// Modes the command may run in once accepted (custom modes); leaving them fails it. Empty: any.
        var modes: Set<UInt32> = []
        /// Whether acceptance makes the vehicle follow targets.
        var follows = false
        /// What the vehicle flies once the command is accepted, as collision avoidance sees it.
        var goal: Goal?
    }

    enum Wait: Sendable, Hashable {
        /// A COMMAND_ACK for this step: the frame sent, attempts so far, the deadline, and whether IN_PROGRESS came.
        case ack(MAVCmd, attempt: Int, deadline: MeshInstant, inProgress: Bool)
        /// Mission upload: the last message sent (to resend), attempts, deadline.
        case mission(lastSent: MAVLinkMessage, attempt: Int, deadline: MeshInstant)
        /// The setpoint stream runs until then before the next step (PX4's OFFBOARD switch).
        case prestream(until: MeshInstant)
    }

    /// An accepted command waiting for its completion.
    struct Running: Sendable, Hashable {
        var id: CommandID?
        var label: String
        var completion: Completion
        var modes: Set<UInt32>
    }
}
