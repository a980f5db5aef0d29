import Coordinator
import Flight
import FlightLog
import Foundation

/// A temporary directory for one test's log, removed at the end.
struct TemporaryLog {
    let directory: String
    var path: String { directory + "/flight-log.sqlite" }

    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("fm-flightlog-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// 2026-11-26 20:00:00 UTC.
let missionStartMs: Int64 = 1_795_723_200_000

/// A sample `east` metres east and `north` metres north of 50.0755 N 14.4378 E, `up` metres above home.
func sample(
    _ t: Int64, node: String = "a", uav: Int? = 3, east: Double = 0, north: Double = 0, up: Double = 0,
    activity: Activity = .hovering, battery: UInt8 = 90
) -> TelemetryRecord {
    let lat = 50.0755 + north / 6_371_008.8 * 180 / .pi
    let lon = 14.4378 + east / (6_371_008.8 * cos(50.0755 * .pi / 180)) * 180 / .pi
    let state = Coordinator.VehicleState(
        position: Coordinator.GeoPoint(latitude: lat, longitude: lon, altitude: up), velocityNorthCmS: 0,
        velocityEastCmS: 500,
        velocityDownCmS: 0, headingCentidegrees: 9000, batteryPercent: battery, activity: activity,
        armed: activity != .landed, linkQuality: 100)
    return TelemetryRecord(timeMs: t, node: node, uavNumber: uav, name: "drone-\(node)", state: state)
}

/// A flight of drone `node`: 2 s on the ground, takeoff, `seconds` flying east at 5 m/s at 10 m, landing, 2 s on the
/// ground; 10 samples a second from `start`.
func flight(node: String, uav: Int, start: Int64, seconds: Int, north: Double = 0) -> [TelemetryRecord] {
    var out: [TelemetryRecord] = []
    var t = start
    for _ in 0..<20 {
        out.append(sample(t, node: node, uav: uav, north: north, activity: .landed, battery: 95))
        t += 100
    }
    for i in 0..<(seconds * 10) {
        let battery = UInt8(95 - i / 10 / 2)
        out.append(
            sample(
                t, node: node, uav: uav, east: Double(i) * 0.5, north: north, up: 10, activity: .flyingToTarget,
                battery: battery))
        t += 100
    }
    for _ in 0..<20 {
        out.append(
            sample(
                t, node: node, uav: uav, east: Double(seconds * 10) * 0.5, north: north, activity: .landed, battery: 80)
        )
        t += 100
    }
    return out
}

let run = RunRecord(
    startedMs: missionStartMs, node: "00112233445566778899aabbccddeeff", name: "station-a", role: "station",
    incarnation: "1f", softwareVersion: "test", configDigest: "00", mapOrigin: "50.0755, 14.4378, 230.5")

/// A new log in a temporary directory, with one run begun.
func freshLog() throws -> (TemporaryLog, FlightLogStore, Int64) {
    let dir = try TemporaryLog()
    let store = try FlightLogStore(path: dir.path)
    return (dir, store, try store.beginRun(run))
}
