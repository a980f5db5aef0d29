import Flight
import Geodesy
import MAVLink

extension AutopilotEmulator {
    /// The messages that stream, with their default intervals in seconds (nil: only when asked for).
    static let streams: [(id: UInt32, defaultInterval: Double?)] = [
        (GlobalPositionInt.id, 0.1), (Attitude.id, 0.1), (SysStatus.id, 1), (ExtendedSysState.id, 1),
        (HomePosition.id, 5), (BatteryStatus.id, nil),
    ]

    /// The interval a stream is sent at now, seconds; nil: not sent.
    func streamInterval(_ id: UInt32) -> Double? {
        if let asked = intervals[id] { return asked > 0 ? asked : nil }
        guard streaming, let entry = Self.streams.first(where: { $0.id == id }) else { return nil }
        return entry.defaultInterval
    }

    /// Whether `id` (HEARTBEAT or a stream) is due at `now` with `interval`; if so schedules the next one, keeping
    /// the average rate when calls come at a finer step, without bursts after a long gap.
    mutating func takeIfDue(_ id: UInt32, interval: Double, now: Double) -> Bool {
        if let due = nextDue[id], now + 1e-9 < due { return false }
        var next = (nextDue[id] ?? now) + interval
        if next <= now { next = now + interval }
        nextDue[id] = next
        lastSent[id] = now
        return true
    }

    /// HEARTBEAT at 1 Hz, then every stream due; EXTENDED_SYS_STATE also whenever the landed state changes (unless
    /// it was turned off).
    mutating func telemetry(now: Double) -> [[UInt8]] {
        guard now.isFinite else { return [] }
        var out: [[UInt8]] = []
        if takeIfDue(Heartbeat.id, interval: 1, now: now) { out.append(heartbeat()) }
        for (id, _) in Self.streams {
            var due = streamInterval(id).map { takeIfDue(id, interval: $0, now: now) } ?? false
            if id == ExtendedSysState.id, landedState != lastLandedState, (intervals[id] ?? 0) >= 0 { due = true }
            guard due, let message = streamFrame(id, now: now) else { continue }
            if id == ExtendedSysState.id { lastLandedState = landedState }
            out.append(message)
        }
        return out
    }

    mutating func heartbeat() -> [UInt8] {
        frame(
            Heartbeat(
                type: .quadrotor, autopilot: flavour.autopilot,
                baseMode: armed ? [.customModeEnabled, .safetyArmed] : [.customModeEnabled], customMode: customMode,
                systemStatus: armed ? .active : .standby))
    }

    /// Milliseconds since the first call.
    func bootMilliseconds(_ now: Double) -> UInt32 {
        let ms = ((now - bootTime) * 1000 + 1e-6).rounded(.down)
        return ms.isFinite && ms > 0 ? UInt32(truncatingIfNeeded: Int64(min(ms, 1e15))) : 0
    }

    /// The frame of a streamable message as of now (also the answer to MAV_CMD_REQUEST_MESSAGE); nil for others.
    mutating func streamFrame(_ id: UInt32, now: Double) -> [UInt8]? {
        let boot = bootMilliseconds(now)
        let p = model.position
        let v = velocity
        let percent = configuration.batteryPercent
        switch id {
        case GlobalPositionInt.id:
            // What the GPS (and the barometer) make of the position: the true one plus the GPS error.
            var error = gpsError(at: now)
            if onGround { error.z = 0 }
            let c = plane.geodetic(LocalPosition(east: p.x + error.x, north: p.y + error.y, up: 0))
            let z = p.z + error.z
            return frame(
                GlobalPositionInt(
                    timeBootMs: boot, lat: e7(c.latitude), lon: e7(c.longitude),
                    alt: milli(configuration.homeAltitude + z), relativeAlt: milli(z), vx: centi(v.y),
                    vy: centi(v.x), vz: centi(-v.z), hdg: UInt16((model.heading * 100).rounded()) % 36000))
        case Attitude.id:
            let yaw = (model.heading > 180 ? model.heading - 360 : model.heading) * .pi / 180
            return frame(Attitude(timeBootMs: boot, roll: 0, pitch: 0, yaw: Float(yaw)))
        case SysStatus.id:
            return frame(SysStatus(load: 300, voltageBattery: 15_800, currentBattery: 1200, batteryRemaining: percent))
        case ExtendedSysState.id:
            return frame(ExtendedSysState(vtolState: .undefined, landedState: landedState))
        case HomePosition.id:
            return frame(
                HomePosition(
                    latitude: e7(configuration.homeLatitude), longitude: e7(configuration.homeLongitude),
                    altitude: milli(configuration.homeAltitude), q: [1, 0, 0, 0], timeUsec: UInt64(boot) * 1000))
        case BatteryStatus.id:
            return frame(
                BatteryStatus(
                    id: 0, batteryFunction: MAVBatteryFunction(rawValue: 1), type: MAVBatteryType(rawValue: 1),
                    temperature: Int16.max, voltages: [15_800] + [UInt16](repeating: .max, count: 9),
                    currentBattery: 1200, currentConsumed: -1, energyConsumed: -1, batteryRemaining: percent))
        default:
            return nil
        }
    }
}

/// Degrees as degrees × 1e7.
func e7(_ degrees: Double) -> Int32 { degrees.isFinite ? Int32(clamping: Int64((degrees * 1e7).rounded())) : 0 }
/// Metres as millimetres.
func milli(_ metres: Double) -> Int32 {
    metres.isFinite ? Int32(clamping: Int64(max(min(metres * 1000, 1e12), -1e12).rounded())) : 0
}
/// m/s as cm/s.
func centi(_ metresPerSecond: Double) -> Int16 {
    metresPerSecond.isFinite ? Int16(clamping: Int64(max(min(metresPerSecond * 100, 1e9), -1e9).rounded())) : 0
}
