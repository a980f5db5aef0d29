import Coordinator
import Dispatch
import MAVLinkBridge
import MeshTypes
import Synchronization

/// A MAVLink telemetry log (`.tlog`) of one UAV: the MAVLink 2 frames the station's ground-control endpoint would have
/// sent for its recorded samples (HEARTBEAT, SYS_STATUS, BATTERY_STATUS, EXTENDED_SYS_STATE, GLOBAL_POSITION_INT,
/// ATTITUDE, VFR_HUD, HOME_POSITION), system id = UAV number, each preceded by its recording time: a big-endian
/// unsigned 64-bit count of microseconds since 1970.
public enum TelemetryLogExport {
    /// The log's bytes; samples without a UAV number are left out (a MAVLink system id must be 1–250).
    public static func tlog(_ track: ExportTrack, homeAltitude: Double?) -> [UInt8] {
        var out: [UInt8] = []
        // About 13 frames of 30 to 60 bytes per sample, each after its 8-byte time.
        out.reserveCapacity(track.samples.count * 13 * 56)
        eachFrame(track, homeAltitude: homeAltitude) { micros, frame in
            withUnsafeBytes(of: micros.bigEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: frame)
        }
        return out
    }

    /// Every track's log, made on every core at once (each UAV's log is independent of the others'), in order.
    public static func tlogs(_ tracks: [ExportTrack], homeAltitude: Double?) -> [[UInt8]] {
        let logs = Mutex([[UInt8]](repeating: [], count: tracks.count))
        DispatchQueue.concurrentPerform(iterations: tracks.count) { i in
            let log = tlog(tracks[i], homeAltitude: homeAltitude)
            logs.withLock { $0[i] = log }
        }
        return logs.withLock { $0 }
    }

    /// The frames with their recording times (microseconds since 1970), in time order: what `fleetmesh log replay`
    /// sends.
    public static func frames(_ track: ExportTrack, homeAltitude: Double?) -> [(micros: UInt64, frame: [UInt8])] {
        var out: [(micros: UInt64, frame: [UInt8])] = []
        eachFrame(track, homeAltitude: homeAltitude) { out.append(($0, $1)) }
        return out
    }

    /// Hands each frame and its recording time to `emit`, in time order.
    static func eachFrame(_ track: ExportTrack, homeAltitude: Double?, _ emit: (UInt64, [UInt8]) -> Void) {
        var recorded = RecordedTelemetryFrames()
        guard let first = track.samples.first else { return }
        for r in track.samples {
            guard let uav = r.uavNumber, (1...250).contains(uav) else { continue }
            let elapsed = MeshInstant(nanoseconds: UInt64(max(0, r.timeMs - first.timeMs)) * 1_000_000)
            let stamp = UInt64(max(0, r.timeMs)) * 1000
            recorded.frames(uavNumber: UInt8(uav), state: r.state, homeAltitude: homeAltitude, elapsed: elapsed) {
                emit(stamp, $0)
            }
        }
    }
}
