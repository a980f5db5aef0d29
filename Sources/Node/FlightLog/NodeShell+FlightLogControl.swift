import Coordinator
import FlightLog
import Foundation

/// What a station's operators did, for the flight log: the targets it sent (its own and its target sources'), and
/// its manual-control sessions — one row per session (samples to one UAV with no gap over a second), not per sample.
extension NodeShell {
    /// A session ends after this long without a sample.
    static let manualSessionGapMs: Int64 = 1_000

    /// Queues a target this node sent.
    func recordTarget(_ target: Target, source: String) {
        guard let flightRecords else { return }
        let uav: Int?
        let address: String
        switch target.address {
        case .uav(let n): (uav, address) = (Int(n), "UAV \(n)")
        case .group(let ns): (uav, address) = (nil, "UAVs " + ns.map(String.init).joined(separator: ", "))
        case .all: (uav, address) = (nil, "all")
        }
        let p = target.location
        flightRecords.offer(
            .target(
                TargetRecord(
                    timeMs: Self.wallClockMs(), uavNumber: uav, address: address, latitude: p.latitude,
                    longitude: p.longitude, altitude: Double(p.altitudeMillimetres) / 1000, source: source)))
    }

    /// A manual-control sample this station sent to `uav`: extends its session or starts one.
    func noteManualSample(to uav: UInt8, takeover: Bool) {
        guard flightRecords != nil else { return }
        let ms = Self.wallClockMs()
        if var session = manualSessions[uav], ms - session.endMs <= Self.manualSessionGapMs {
            session.endMs = ms
            session.samples += 1
            session.takeover = session.takeover || takeover
            manualSessions[uav] = session
        } else {
            if let ended = manualSessions[uav] { flightRecords?.offer(.manualSession(ended)) }
            manualSessions[uav] = ManualSessionRecord(
                uavNumber: Int(uav), startMs: ms, endMs: ms, samples: 1, takeover: takeover)
        }
    }

    /// Records the sessions that have had no sample for over a second (every tick).
    func closeManualSessions() {
        guard let flightRecords, !manualSessions.isEmpty else { return }
        let ms = Self.wallClockMs()
        for (uav, session) in manualSessions where ms - session.endMs > Self.manualSessionGapMs {
            flightRecords.offer(.manualSession(session))
            manualSessions[uav] = nil
        }
    }
}
