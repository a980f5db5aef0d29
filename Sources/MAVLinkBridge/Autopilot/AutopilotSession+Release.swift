import Coordinator

extension AutopilotSession {
    /// Why the node no longer commands the vehicle after a switch to `mode` it did not ask for, or nil when the node
    /// still does: while airborne with a goal avoidance may adjust (or steering), a mode outside those of the last
    /// command — the pilot's RC switch, the firmware's failsafe — takes the vehicle; so does leaving GUIDED or
    /// OFFBOARD while avoidance steers it (PX4 drops to AUTO.LOITER when the setpoints stop). Only once this steering
    /// has seen the vehicle in GUIDED / OFFBOARD: before (PX4's prestream, an ACK on its way) the HEARTBEAT may still
    /// show a switch the node itself caused — the end of a previous steering (DO_REPOSITION: OFFBOARD to
    /// AUTO.LOITER), the end of a takeoff — which are among the command's own modes.
    func takenBy(_ mode: UInt32, flavour: AutopilotFlavour) -> String? {
        guard flying, goal != nil || steering != nil, !controlModes.isEmpty else { return nil }
        let name = flavour.modeName(mode)
        if steering != nil, steeringReachedMode, !flavour.isMode(mode, .guided) {
            return
                "the autopilot left \(flavour.modeName(flavour.customMode(for: .guided))) for \(name) while avoidance steered it"
        }
        guard !controlModes.contains(mode) else { return nil }
        return "the autopilot switched to \(name), which the node did not ask for (the pilot or the firmware took it)"
    }

    /// Stops commanding the vehicle: no goal (so it publishes that it is not avoiding and others keep away from it),
    /// no steering, no position targets, and no mode requests until the next command from the mesh. `evenWithoutGoal`:
    /// the goal was dropped a moment ago by the same event (the running command failed on the mode switch).
    mutating func release(_ why: String, evenWithoutGoal: Bool = false) -> [Directive] {
        guard evenWithoutGoal || goal != nil || steering != nil || setpoint != nil else { return [] }
        var out: [Directive] = []
        if running != nil { out += finishRunning(.failed(why)) }
        heldGoal = nil
        steering = nil
        setpoint = nil
        following = false
        controlModes = []
        if intent != .manual { intent = flying ? .hovering : .idle }
        out.append(.released(why))
        return out
    }
}
