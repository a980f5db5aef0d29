import MAVLink

/// Which autopilot firmware is on the other end of the link, from its HEARTBEAT's `autopilot` field. The two
/// firmwares share the MAVLink command set but differ in flight modes and in a few command conventions.
public enum AutopilotFlavour: String, Sendable, Hashable, CaseIterable {
    /// PX4 (`MAV_AUTOPILOT_PX4`): custom mode = main mode << 16 | sub mode << 24.
    case px4
    /// ArduPilot Copter (`MAV_AUTOPILOT_ARDUPILOTMEGA`): custom mode = the mode number.
    case ardupilot
    /// Anything else: treated like ArduPilot for commands, modes shown as numbers.
    case generic

    /// The flavour an autopilot's HEARTBEAT announces.
    public init(_ autopilot: MAVAutopilot) {
        switch autopilot {
        case .px4: self = .px4
        case .ardupilotmega: self = .ardupilot
        default: self = .generic
        }
    }

    /// A mode FleetMesh asks for, independent of the firmware.
    public enum ModeIntent: String, Sendable, Hashable, CaseIterable {
        /// Position targets from the companion: ArduPilot GUIDED, PX4 OFFBOARD.
        case guided
        /// Hold position: ArduPilot GUIDED (with a target at the current position), PX4 AUTO.LOITER.
        case hold
        /// ArduPilot LAND, PX4 AUTO.LAND.
        case land
        /// ArduPilot RTL, PX4 AUTO.RTL.
        case returnToLaunch
        /// ArduPilot AUTO, PX4 AUTO.MISSION.
        case mission
        /// Stick input with position hold: ArduPilot LOITER, PX4 POSCTL.
        case manual
    }

    // ArduPilot Copter mode numbers (ArduCopter/mode.h).
    static let arduModes: [UInt32: String] = [
        0: "STABILIZE", 1: "ACRO", 2: "ALT_HOLD", 3: "AUTO", 4: "GUIDED", 5: "LOITER", 6: "RTL", 7: "CIRCLE",
        9: "LAND", 11: "DRIFT", 13: "SPORT", 14: "FLIP", 15: "AUTOTUNE", 16: "POSHOLD", 17: "BRAKE", 18: "THROW",
        19: "AVOID_ADSB", 20: "GUIDED_NOGPS", 21: "SMART_RTL", 22: "FLOWHOLD", 23: "FOLLOW", 24: "ZIGZAG",
        25: "SYSTEMID", 26: "AUTOROTATE", 27: "AUTO_RTL",
    ]
    // PX4 main modes and AUTO sub modes (px4_custom_mode.h).
    static let px4MainModes: [UInt32: String] = [
        1: "MANUAL", 2: "ALTCTL", 3: "POSCTL", 4: "AUTO", 5: "ACRO", 6: "OFFBOARD", 7: "STABILIZED", 8: "RATTITUDE",
    ]
    static let px4AutoSubModes: [UInt32: String] = [
        1: "READY", 2: "TAKEOFF", 3: "LOITER", 4: "MISSION", 5: "RTL", 6: "LAND", 8: "FOLLOW_TARGET", 9: "PRECLAND",
    ]

    /// PX4's packed custom mode.
    public static func px4CustomMode(main: UInt32, sub: UInt32 = 0) -> UInt32 { main << 16 | sub << 24 }

    /// The custom mode (HEARTBEAT / SET_MODE) for an intent.
    public func customMode(for intent: ModeIntent) -> UInt32 {
        switch self {
        case .px4:
            switch intent {
            case .guided: return Self.px4CustomMode(main: 6)
            case .hold: return Self.px4CustomMode(main: 4, sub: 3)
            case .land: return Self.px4CustomMode(main: 4, sub: 6)
            case .returnToLaunch: return Self.px4CustomMode(main: 4, sub: 5)
            case .mission: return Self.px4CustomMode(main: 4, sub: 4)
            case .manual: return Self.px4CustomMode(main: 3)
            }
        case .ardupilot, .generic:
            switch intent {
            case .guided, .hold: return 4
            case .land: return 9
            case .returnToLaunch: return 6
            case .mission: return 3
            case .manual: return 5
            }
        }
    }

    /// MAV_CMD_DO_SET_MODE for an intent: param1 = MAV_MODE_FLAG_CUSTOM_MODE_ENABLED; ArduPilot puts the mode number
    /// in param2; PX4 the main mode in param2 and the sub mode in param3.
    public func setModeCommand(for intent: ModeIntent, target: UInt8) -> CommandLong {
        let custom = customMode(for: intent)
        let (p2, p3): (Float, Float) =
            self == .px4
            ? (Float((custom >> 16) & 0xFF), Float((custom >> 24) & 0xFF))
            : (Float(custom), 0)
        return CommandLong(
            targetSystem: target, targetComponent: 1, command: .doSetMode, confirmation: 0,
            param1: Float(MAVModeFlag.customModeEnabled.rawValue), param2: p2, param3: p3)
    }

    /// Whether `customMode` (from a HEARTBEAT) is the mode of `intent`.
    public func isMode(_ customMode: UInt32, _ intent: ModeIntent) -> Bool {
        self.customMode(for: intent) == customMode
    }

    /// A readable name for a custom mode: "GUIDED", "AUTO.LOITER", or "mode 42".
    public func modeName(_ customMode: UInt32) -> String {
        switch self {
        case .ardupilot:
            return Self.arduModes[customMode] ?? "mode \(customMode)"
        case .px4:
            let main = (customMode >> 16) & 0xFF
            let sub = (customMode >> 24) & 0xFF
            guard let mainName = Self.px4MainModes[main] else { return "mode 0x\(String(customMode, radix: 16))" }
            if main == 4 { return "AUTO." + (Self.px4AutoSubModes[sub] ?? "\(sub)") }
            return mainName
        case .generic:
            return "mode \(customMode)"
        }
    }

    /// NAV_TAKEOFF's altitude (param7): PX4 wants metres above mean sea level, ArduPilot metres above home.
    public var takeoffAltitudeIsAMSL: Bool { self == .px4 }
}
