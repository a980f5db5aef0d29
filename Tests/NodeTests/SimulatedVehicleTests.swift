import Coordinator
import Foundation
import Logging
import MeshTypes
import Testing

@testable import Node

@Suite struct SimulatedVehicleTests {
    let id1 = CommandID(origin: NodeID(high: 1, low: 2), originIncarnation: 7, counter: 1)
    let id2 = CommandID(origin: NodeID(high: 1, low: 2), originIncarnation: 7, counter: 2)

    func vehicle() throws -> SimulatedVehicle {
        try SimulatedVehicle(home: .default, offset: (east: 10, north: -6))
    }

    /// Steps at 20 Hz until `until` holds or `limit` seconds pass; returns every event.
    func run(_ v: inout SimulatedVehicle, for limit: Double, until: ([SimulatedVehicle.Event]) -> Bool = { _ in false })
        -> [SimulatedVehicle.Event]
    {
        var events: [SimulatedVehicle.Event] = []
        var t = v.time
        let end = t + limit
        while t < end {
            t += 0.05
            events += v.advance(to: t)
            if until(events) { break }
        }
        return events
    }

    @Test func takeoffIsAcceptedThenCompletedNearTheAltitude() throws {
        var v = try vehicle()
        let start = v.coordinatorState
        #expect(start.activity == .landed)
        // Starts at its offset from home: 10 m east, 6 m south.
        #expect(abs((start.position.latitude - HomeLocation.default.latitude) * 111_200 + 6) < 0.5)
        let (verdict, events) = v.execute(id1, .takeoff(altitudeMillimetres: 10_000))
        #expect(verdict == .accepted)
        #expect(events.isEmpty)
        let after = run(&v, for: 20) { $0.contains(.completed(id1)) }
        #expect(after.first == .flyingChanged(true))
        #expect(after.last == .completed(id1))
        #expect(abs(v.coordinatorState.position.altitude - 10) < 0.5)
        #expect(v.coordinatorState.activity == .hovering)
        #expect(v.prediction.points.count == 40)
    }

    @Test func refusalsCarryTheNavigatorsReason() throws {
        var v = try vehicle()
        #expect(v.execute(id1, .land).verdict == .rejected("not airborne"))
        #expect(
            v.execute(id1, .takeoff(altitudeMillimetres: 500_000)).verdict
                == .rejected("altitude 500.0 m outside 1.0…120.0 m"))
        #expect(
            v.execute(id1, .trajectory([GeoPoint(latitude: 50.0756, longitude: 14.4378, altitude: 10)])).verdict
                == .rejected("not airborne"))
    }

    @Test func anUploadedTrajectoryIsFlownThroughEveryWaypointThenCompletes() throws {
        var v = try vehicle()
        _ = v.execute(id1, .takeoff(altitudeMillimetres: 10_000))
        _ = run(&v, for: 20) { $0.contains(.completed(id1)) }
        #expect(v.execute(id2, .trajectory([])).verdict == .rejected("trajectory has no waypoints"))
        let offMap = v.execute(id2, .trajectory([GeoPoint(latitude: 89.9, longitude: 14.4378, altitude: 10)])).verdict
        guard case .rejected(let why) = offMap else {
            Issue.record("off-map waypoint accepted")
            return
        }
        #expect(why.hasPrefix("trajectory waypoint 1 is not on the map"))
        // A square of 20 m legs north, east, south from the home point, at 12 m.
        let home = HomeLocation.default
        let dLat = 20 / 111_200.0, dLon = 20 / (111_200.0 * cos(home.latitude * .pi / 180))
        let square = [
            GeoPoint(latitude: home.latitude + dLat, longitude: home.longitude, altitude: 12),
            GeoPoint(latitude: home.latitude + dLat, longitude: home.longitude + dLon, altitude: 12),
            GeoPoint(latitude: home.latitude, longitude: home.longitude + dLon, altitude: 12),
        ]
        let id3 = CommandID(origin: NodeID(high: 1, low: 2), originIncarnation: 7, counter: 3)
        let (verdict, events) = v.execute(id3, .trajectory(square))
        #expect(verdict == .accepted)
        #expect(events.isEmpty)
        _ = v.advance(to: v.time + 0.05)
        #expect(v.coordinatorState.activity == .followingTrajectory)
        // Passes within 1 m of every waypoint, in order, then completes holding at the last one.
        var next = 0
        var t = v.time
        var completed = false
        while t < v.time + 120, !completed {
            t += 0.05
            let events = v.advance(to: t)
            let p = v.coordinatorState.position
            if next < square.count,
                abs(p.latitude - square[next].latitude) * 111_200 < 1,
                abs(p.longitude - square[next].longitude) * 111_200 * cos(home.latitude * .pi / 180) < 1,
                abs(p.altitude - 12) < 1
            {
                next += 1
            }
            completed = events.contains(.completed(id3))
        }
        #expect(next == square.count)
        #expect(completed)
        #expect(v.coordinatorState.activity == .hovering)
    }

    @Test func aNewCommandSupersedesOneStillRunningAndHoverCompletesAtOnce() throws {
        var v = try vehicle()
        _ = v.execute(id1, .takeoff(altitudeMillimetres: 20_000))
        _ = run(&v, for: 2)
        let (verdict, events) = v.execute(id2, .hover)
        #expect(verdict == .accepted)
        #expect(events == [.failed(id1, "superseded by hover"), .completed(id2)])
    }

    @Test func landAndReturnHomeCompleteOnTheGround() throws {
        var v = try vehicle()
        _ = v.execute(id1, .takeoff(altitudeMillimetres: 3_000))
        _ = run(&v, for: 20) { $0.contains(.completed(id1)) }
        #expect(v.execute(id2, .returnToLaunch).verdict == .accepted)
        let events = run(&v, for: 60) { $0.contains(.completed(id2)) }
        #expect(events.contains(.flyingChanged(false)))
        #expect(events.last == .completed(id2))
        #expect(v.coordinatorState.activity == .landed)
    }

    @Test func persistedNumberFileIsReadStrictly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("uavnum-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try CoordinatorShell.readNumber(directory: dir).get() == nil)
        try "17\n".write(toFile: dir + "/uav-number", atomically: true, encoding: .utf8)
        #expect(try CoordinatorShell.readNumber(directory: dir).get() == 17)
        try "251\n".write(toFile: dir + "/uav-number", atomically: true, encoding: .utf8)
        switch CoordinatorShell.readNumber(directory: dir) {
        case .success: Issue.record("251 accepted")
        case .failure(let e): #expect(e.description == "\(dir)/uav-number: expected a UAV number 1–250, found \"251\"")
        }
    }
}

/// Collects log lines for assertions.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) {
        lock.lock()
        storage.append(line)
        lock.unlock()
    }
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        log.append("\(level) \(message)")
    }
}

@Suite struct CoordinatorShellTests {
    @Test func malformedCoordinatorMessagesAreLoggedOncePerPeerAndDropped() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let captured = CapturedLog()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(log: captured) }
        let config = NodeConfiguration(
            name: "s", role: .station, keyFile: "/dev/null", stateDirectory: dir, controlSocket: "/dev/null")
        let shell = try CoordinatorShell(
            configuration: config, nodeID: NodeID(high: 1, low: 1), incarnation: 9, logger: logger)
        let peer = NodeID(high: 0xABCD_EF01_0000_0000, low: 2)
        for _ in 0..<3 {
            await shell.handle(
                .message(
                    type: 0x5201, payload: [1, 2, 3], from: peer, reliable: false, at: MeshInstant(nanoseconds: 0)))
        }
        let warnings = captured.lines.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 1)
        #expect(
            warnings.first?.hasPrefix(
                "warning dropped malformed coordinator message type 0x5201 (3 bytes) from abcdef01: ") == true)
        #expect(await shell.vehicles().isEmpty)
    }
}
