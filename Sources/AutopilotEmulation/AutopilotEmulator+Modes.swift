import Flight
import MAVLink

extension AutopilotEmulator {
    /// What a flight mode makes the emulated vehicle do.
    enum Behaviour: Sendable, Hashable {
        /// Hold or fly to the companion's position targets (ArduPilot GUIDED, PX4 OFFBOARD).
        case guided
        /// MANUAL_CONTROL sticks as velocities; hold where released (ArduPilot LOITER, POSHOLD, ALT_HOLD,
        /// STABILIZE; PX4 POSCTL).
        case manual
        /// Hold, or fly to a DO_REPOSITION target (ArduPilot BRAKE, PX4 AUTO.LOITER).
        case hold
        /// Climb to the takeoff altitude, then hold (PX4 AUTO.TAKEOFF).
        case takeoff
        /// Fly the uploaded mission item by item (ArduPilot AUTO, PX4 AUTO.MISSION).
        case mission
        /// Climb to the return altitude, fly home, land (ArduPilot RTL, PX4 AUTO.RTL).
        case returnToLaunch
        /// Descend and disarm on the ground (ArduPilot LAND, PX4 AUTO.LAND).
        case land
    }

    struct ModeInfo: Sendable {
        var name: String
        var behaviour: Behaviour
    }

    /// Switches to `mode` (a custom mode of the flavour) and sets up what it does.
    mutating func enter(_ mode: UInt32, reason: String, now: Double) {
        let changed = mode != customMode
        if changed {
            customMode = mode
            record(.modeChanged(modeName, reason: reason), at: now)
            takeoffAltitude = nil
            targetVelocity = nil
            desiredHeading = nil
        }
        let b = behaviour
        landing = b == .land
        switch b {
        case .land, .returnToLaunch:
            target = nil
        case .mission:
            missionSequence = flavour.firstMissionItem
        case .takeoff:
            // PX4 AUTO.TAKEOFF chosen directly: climb to the default takeoff altitude (MIS_TAKEOFF_ALT).
            if changed, armed, onGround { startTakeoff(altitude: 2.5) }
        case .guided, .manual, .hold:
            // A new mode starts from where the vehicle stops, not from an older target.
            if changed { target = nil }
        }
    }

    mutating func startTakeoff(altitude: Double) {
        takeoffAltitude = altitude
        target = Vector3(model.position.x, model.position.y, altitude)
        targetVelocity = nil
    }
}

extension AutopilotEmulator.Flavour {
    /// PX4's packed custom mode.
    static func px4Mode(_ main: UInt32, _ sub: UInt32 = 0) -> UInt32 { main << 16 | sub << 24 }

    static let arduModes: [UInt32: AutopilotEmulator.ModeInfo] = [
        0: .init(name: "STABILIZE", behaviour: .manual), 2: .init(name: "ALT_HOLD", behaviour: .manual),
        3: .init(name: "AUTO", behaviour: .mission), 4: .init(name: "GUIDED", behaviour: .guided),
        5: .init(name: "LOITER", behaviour: .manual), 6: .init(name: "RTL", behaviour: .returnToLaunch),
        9: .init(name: "LAND", behaviour: .land), 16: .init(name: "POSHOLD", behaviour: .manual),
        17: .init(name: "BRAKE", behaviour: .hold),
    ]
    static let px4Modes: [UInt32: AutopilotEmulator.ModeInfo] = [
        px4Mode(4, 3): .init(name: "AUTO.LOITER", behaviour: .hold),
        px4Mode(4, 2): .init(name: "AUTO.TAKEOFF", behaviour: .takeoff),
        px4Mode(4, 6): .init(name: "AUTO.LAND", behaviour: .land),
        px4Mode(4, 5): .init(name: "AUTO.RTL", behaviour: .returnToLaunch),
        px4Mode(4, 4): .init(name: "AUTO.MISSION", behaviour: .mission),
        px4Mode(6): .init(name: "OFFBOARD", behaviour: .guided),
        px4Mode(3): .init(name: "POSCTL", behaviour: .manual),
    ]

    /// The modes DO_SET_MODE may choose.
    var modes: [UInt32: AutopilotEmulator.ModeInfo] { self == .px4 ? Self.px4Modes : Self.arduModes }

    /// The HEARTBEAT autopilot field.
    var autopilot: MAVAutopilot { self == .px4 ? .px4 : .ardupilotmega }

    /// The mode at power-up: ArduPilot LOITER, PX4 AUTO.LOITER.
    var initialMode: UInt32 { self == .px4 ? Self.px4Mode(4, 3) : 5 }
    /// Where DO_REPOSITION and the end of a PX4 takeoff or lost OFFBOARD stream go: ArduPilot GUIDED, PX4 AUTO.LOITER.
    var holdMode: UInt32 { self == .px4 ? Self.px4Mode(4, 3) : 4 }
    var guidedMode: UInt32 { self == .px4 ? Self.px4Mode(6) : 4 }
    var landMode: UInt32 { self == .px4 ? Self.px4Mode(4, 6) : 9 }
    var returnMode: UInt32 { self == .px4 ? Self.px4Mode(4, 5) : 6 }
    var takeoffMode: UInt32 { Self.px4Mode(4, 2) }
    /// The first mission item flown in AUTO: ArduPilot's item 0 is home.
    var firstMissionItem: Int { self == .px4 ? 0 : 1 }

    /// The behaviour of a custom mode (unknown modes hold).
    func behaviour(_ mode: UInt32) -> AutopilotEmulator.Behaviour { modes[mode]?.behaviour ?? .hold }

    /// "GUIDED", "AUTO.LOITER", or "mode 42".
    func modeName(_ mode: UInt32) -> String { modes[mode]?.name ?? "mode \(mode)" }

    /// Whether the motors may be armed in `mode` (ArduPilot: GUIDED, LOITER, STABILIZE, ALT_HOLD, POSHOLD; PX4: any).
    func allowsArming(in mode: UInt32) -> Bool {
        self == .px4 || [4, 5, 0, 2, 16].contains(mode)
    }
}

extension AutopilotEmulator {
    /// The pilot flips the RC mode switch to position hold (ArduPilot LOITER, PX4 POSCTL): the vehicle holds where the
    /// sticks leave it, whatever the companion computer was commanding.
    public mutating func pilotTakesOver(now: Double) {
        enter(flavour == .px4 ? Flavour.px4Mode(3) : 5, reason: "the pilot's RC mode switch", now: now)
    }
}
