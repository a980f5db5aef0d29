import Flight
import MAVLink

extension AutopilotEmulator {
    /// One entry of ``AutopilotEmulator/log``: what happened and when (the `now` of the call).
    public struct LogEntry: Sendable, Hashable {
        /// Seconds, on the scale of `now`.
        public var time: Double
        /// What happened.
        public var event: Event
    }

    /// What the emulator received or did.
    public enum Event: Sendable, Hashable {
        /// The first HEARTBEAT from a sender (system, component), with its type and autopilot fields.
        case heartbeat(systemID: UInt8, componentID: UInt8, type: MAVType, autopilot: MAVAutopilot)
        /// A COMMAND_LONG or COMMAND_INT addressed to the autopilot, with the result it got.
        case command(ReceivedCommand)
        /// A SET_POSITION_TARGET_GLOBAL_INT addressed to the autopilot; `accepted`: it became the target.
        case positionTarget(SetPositionTargetGlobalInt, accepted: Bool)
        /// A MANUAL_CONTROL addressed to the autopilot.
        case manualControl(x: Int16, y: Int16, z: Int16, r: Int16)
        /// MISSION_COUNT: an upload started.
        case missionCount(UInt16)
        /// MISSION_ITEM_INT taken into the upload.
        case missionItem(MissionItemInt)
        /// The vehicle reached a mission item (MISSION_ITEM_REACHED sent).
        case missionItemReached(UInt16)
        /// MISSION_SET_CURRENT.
        case missionSetCurrent(UInt16)
        /// The flight mode changed (name) and why ("DO_SET_MODE", "takeoff done", …).
        case modeChanged(String, reason: String)
        /// The motors were armed.
        case armed
        /// The motors were disarmed and why ("landed", "command", "auto disarm").
        case disarmed(reason: String)
        /// Any other message received, by name ("PARAM_REQUEST_LIST").
        case message(String)
    }

    /// A COMMAND_LONG or COMMAND_INT as received.
    public struct ReceivedCommand: Sendable, Hashable {
        /// The command.
        public var command: MAVCmd
        /// param1…param7; for COMMAND_INT param5 and param6 are NaN (x and y are integers) and param7 is z.
        public var params: [Float]
        /// COMMAND_INT's x, y (degrees × 1e7 in global frames) and frame; nil for COMMAND_LONG.
        public var x: Int32?
        public var y: Int32?
        public var frame: MAVFrame?
        /// COMMAND_LONG's confirmation (0 first, counting up on retransmissions).
        public var confirmation: UInt8
        /// The sender.
        public var sourceSystem: UInt8
        public var sourceComponent: UInt8
        /// The COMMAND_ACK result sent; nil: not answered (``Configuration/ignoreFirst``).
        public var result: MAVResult?

        /// Whether it came as COMMAND_INT.
        public var isCommandInt: Bool { frame != nil }
    }

    /// A mission item as flown: local position (metres from home, up = above home) and the item as received.
    public struct Waypoint: Sendable, Hashable {
        /// East, north, up from home.
        public var position: Vector3
        /// The MISSION_ITEM_INT.
        public var item: MissionItemInt
    }

    /// A mission upload in progress.
    struct MissionUpload: Sendable, Hashable {
        var expected: Int
        var items: [Waypoint] = []
        var sourceSystem: UInt8
        var sourceComponent: UInt8
    }

    /// The latest MANUAL_CONTROL.
    struct ManualInput: Sendable, Hashable {
        var x: Int16, y: Int16, z: Int16, r: Int16
        var at: Double

        /// Stick velocity, east-north-up: x (pitch) ±1000 → ±3 m/s north, y (roll) → east, z 0…1000 (500 = hold)
        /// → ±1.5 m/s up, as in the Python emulator.
        var velocity: Vector3 {
            Vector3(Double(y) / 1000 * 3, Double(x) / 1000 * 3, Double(Int(z) - 500) / 500 * 1.5)
        }
    }
}
