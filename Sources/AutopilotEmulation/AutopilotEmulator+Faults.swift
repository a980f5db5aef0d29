import MAVLink

extension AutopilotEmulator {
    /// A scripted fault; times are seconds after boot (the emulator's first `advance` or `receive`).
    public enum Fault: Sendable, Hashable {
        /// The link is dead both ways from `from` until `until`: no frame goes out (no HEARTBEAT, no telemetry, no
        /// answer) and nothing received is taken. The vehicle flies on as its mode says (PX4 drops out of OFFBOARD
        /// when the setpoints stop).
        case silence(from: Double, until: Double)
        /// The pilot flips the RC mode switch to position hold (ArduPilot LOITER, PX4 POSCTL): the vehicle brakes and
        /// holds, position targets are ignored; a STATUSTEXT says so and the HEARTBEAT shows the mode.
        case pilotTakeover(at: Double)
        /// Position targets (and DO_REPOSITION) are taken and acknowledged as usual, and PX4 stays in OFFBOARD, but
        /// the vehicle flies on as if no new target came.
        case ignoreSetpoints(from: Double, until: Double)
        /// A failsafe of the firmware switches to RTL (ArduPilot RTL, PX4 AUTO.RTL) with a STATUSTEXT.
        case firmwareReturn(at: Double)
    }

    /// Seconds since boot (the first `advance` or `receive`) at `now`, the time scale of faults.
    public func sinceBoot(_ now: Double) -> Double { now - bootTime }

    /// Scripts one more fault (its times after boot, like the configuration's).
    public mutating func inject(_ fault: Fault) { faults.append(fault) }

    /// Whether a `.silence` fault holds at `now`.
    func isSilent(at now: Double) -> Bool {
        guard time != nil else { return false }
        let t = sinceBoot(now)
        return faults.contains {
            if case .silence(let from, let until) = $0 { return t >= from && t < until }
            return false
        }
    }

    /// Whether an `.ignoreSetpoints` fault holds at `now`.
    func ignoresSetpoints(at now: Double) -> Bool {
        let t = sinceBoot(now)
        return faults.contains {
            if case .ignoreSetpoints(let from, let until) = $0 { return t >= from && t < until }
            return false
        }
    }

    /// The one-off faults due by `t` that have not happened yet: the pilot's mode switch, the firmware's RTL.
    mutating func fireFaults(at t: Double) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for (i, fault) in faults.enumerated() where !firedFaults.contains(i) {
            switch fault {
            case .pilotTakeover(let at) where sinceBoot(t) >= at:
                firedFaults.insert(i)
                pilotTakesOver(now: t)
                out.append(frame(Statustext(severity: .warning, text: "RC mode switch: \(modeName)")))
            case .firmwareReturn(let at) where sinceBoot(t) >= at:
                firedFaults.insert(i)
                guard armed, !onGround else { continue }
                enter(flavour.returnMode, reason: "failsafe", now: t)
                let text = flavour == .px4 ? "Failsafe activated: Return" : "Failsafe: RTL"
                out.append(frame(Statustext(severity: .critical, text: text)))
            default:
                break
            }
        }
        return out
    }
}
