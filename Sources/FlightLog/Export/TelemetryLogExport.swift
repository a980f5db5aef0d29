import Coordinator
import MAVLinkBridge
import MeshTypes

/// A MAVLink telemetry log (`.tlog`) of one UAV: the MAVLink 2 frames the station's ground-control endpoint would have
/// sent for its recorded samples (HEARTBEAT, SYS_STATUS, BATTERY_STATUS, EXTENDED_SYS_STATE, GLOBAL_POSITION_INT,
/// ATTITUDE, VFR_HUD, HOME_POSITION), system id = UAV number, each preceded by its recording time: a big-endian
/// unsigned 64-bit count of microseconds since 1970.
public enum TelemetryLogExport {
    /// The log's bytes; samples without a UAV number are left out (a MAVLink system id must be 1–250).
    public static func tlog(_ track: ExportTrack, homeAltitude: Double?) -> [UInt8] {
        var out: [UInt8] = []
        for (micros, frame) in frames(track, homeAltitude: homeAltitude) {
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: micros >> UInt64(shift)))
            }
            out += frame
        }
        return out
    }

    /// The frames with their recording times (microseconds since 1970), in time order: the tlog's content, and what
    /// `fleetmesh log replay` sends.
    public static func frames(_ track: ExportTrack, homeAltitude: Double?) -> [(micros: UInt64, frame: [UInt8])] {
        var configuration = GroundControlBridge<Int>.Configuration()
        // Every recorded sample becomes a position frame (the interval is shorter than any two samples are apart).
        configuration.positionInterval = .milliseconds(1)
        configuration.hudInterval = .milliseconds(200)
        var bridge = GroundControlBridge<Int>(configuration: configuration, fixedDestinations: [0])
        var out: [(micros: UInt64, frame: [UInt8])] = []
        guard let first = track.samples.first else { return out }
        for r in track.samples {
            guard let uav = r.uavNumber, (1...250).contains(uav) else { continue }
            let elapsed = UInt64(max(0, r.timeMs - first.timeMs)) * 1_000_000
            let vehicle = GroundControlBridge<Int>.Vehicle(uavNumber: UInt8(uav), state: r.state, isStale: false)
            let stamp = UInt64(max(0, r.timeMs)) * 1000
            for directive in bridge.tick(
                vehicles: [vehicle], originAltitude: homeAltitude, now: MeshInstant(nanoseconds: elapsed))
            {
                if case .send(let frame, _) = directive { out.append((stamp, frame)) }
            }
        }
        return out
    }
}
