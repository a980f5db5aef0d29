import Coordinator
import Discovery
import Foundation
import Logging
import MeshTypes
import SecureTransport
import Testing

@testable import Node

@Suite struct PersistedNumberTests {
    @Test func persistedNumberFileIsReadStrictly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("uavnum-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try NodeShell.readNumber(directory: dir).get() == nil)
        try "17\n".write(toFile: dir + "/uav-number", atomically: true, encoding: .utf8)
        #expect(try NodeShell.readNumber(directory: dir).get() == 17)
        try "251\n".write(toFile: dir + "/uav-number", atomically: true, encoding: .utf8)
        switch NodeShell.readNumber(directory: dir) {
        case .success: Issue.record("251 accepted")
        case .failure(let e): #expect(e.description == "\(dir)/uav-number: expected a UAV number 1–250, found \"251\"")
        }
    }
}

/// The mesh key of the shells below.
private let testKey = try! MeshKey(bytes: Array(repeating: 7, count: 32))

/// A station's node ("station-1", no sockets started) with its state in `dir`.
private func stationShell(in dir: String) throws -> NodeShell {
    let config = NodeConfiguration(
        name: "station-1", role: .station, keyFile: "/dev/null", stateDirectory: dir, controlSocket: "/dev/null")
    return try NodeShell(
        configuration: config, key: testKey, nodeID: NodeID(high: 1, low: 1), incarnation: 9,
        logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
}

/// Drone `i`'s DNS-SD record as the station's browser resolves it ("drone-i" at 10.0.0.i, in the test key's mesh).
private func droneRecord(_ i: Int) -> ServiceRecord {
    let ad = MeshAdvertisement(
        nodeID: NodeID(high: 2, low: UInt64(i)), incarnation: 1, role: .drone, name: "drone-\(i)", uavNumber: nil,
        fingerprint: testKey.fingerprint)
    return ServiceRecord(
        key: ServiceKey(
            name: "drone-\(i)", type: NodeConfiguration.serviceType, domain: "local", interfaceIndex: 2, family: .ipv4),
        hostName: "d\(i).local", address: "10.0.0.\(i)", port: 47800, txt: ad.txt, isLocal: false, isOwn: false)
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

@Suite struct NodeShellTests {
    @Test func malformedCoordinatorMessagesAreLoggedOncePerPeerAndDropped() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let captured = CapturedLog()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(log: captured) }
        let config = NodeConfiguration(
            name: "s", role: .station, keyFile: "/dev/null", stateDirectory: dir, controlSocket: "/dev/null")
        let shell = try NodeShell(
            configuration: config, key: try MeshKey(bytes: Array(repeating: 7, count: 32)),
            nodeID: NodeID(high: 1, low: 1), incarnation: 9, logger: logger)
        let peer = NodeID(high: 0xABCD_EF01_0000_0000, low: 2)
        for _ in 0..<3 {
            await shell.apply(
                [.malformedMessage(type: 0x5201, bytes: 3, from: peer, error: "truncated")],
                now: MeshInstant(nanoseconds: 0))
        }
        let warnings = captured.lines.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 1)
        #expect(
            warnings.first?.hasPrefix(
                "warning dropped malformed coordinator message type 0x5201 (3 bytes) from abcdef01: truncated") == true)
        #expect(await shell.vehicles().isEmpty)
    }

    /// A restarted node's peers refuse a handshake timestamp not above its previous run's (wall-clock µs), so the
    /// first handshakes (started by a discovery or datagram before the first mesh tick) must carry the wall clock, not
    /// the time since the process started (seen in the lab: "timestamp 17886 is not greater than 1796023238927344").
    @Test func handshakesBeforeTheFirstTickCarryTheWallClock() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wall-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = UInt64(Date().timeIntervalSince1970 * 1e6)
        let shell = try stationShell(in: dir)
        await shell.discovered(.resolved(droneRecord(1)))
        let wall = await shell.node.mesh.endpoint.wallClock(shell.now)
        let after = UInt64(Date().timeIntervalSince1970 * 1e6)
        #expect(
            wall >= before && wall <= after, "the handshake clock reads \(wall) µs, the wall clock \(before)–\(after)")
    }
}

/// A real node's actor behind its metrics: what the scrape reads from it and what it counts as things happen, and how
/// long a scrape holds the actor with 100 peers.
@Suite struct NodeShellMetricsTests {
    @Test func aScrapeReadsTheNodesOwnFiguresAndHoldsItsActorBriefly() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let shell = try stationShell(in: dir)
        // 100 drones found over DNS-SD (no socket here: they stay discovered or handshaking).
        for i in 1...100 { await shell.discovered(.resolved(droneRecord(i))) }
        for _ in 0..<3 {
            await shell.apply(
                [.malformedMessage(type: 0x5201, bytes: 3, from: NodeID(high: 2, low: 1), error: "truncated")],
                now: MeshInstant(nanoseconds: 0))
        }
        let e = try Exposition(await shell.metricsExposition())
        let peers = e.samples.filter { $0.name == "fleetmesh_peers" }.map(\.value).reduce(0, +)
        #expect(peers == 100, "\(e.samples.filter { $0.name == "fleetmesh_peers" })")
        #expect(e.value("fleetmesh_sessions") == 0)
        #expect(e.value("fleetmesh_coordinator_messages_malformed_total") == 3)
        #expect(
            e.value(
                "fleetmesh_node_info", ["role": "station", "name": "station-1", "node": NodeID(high: 1, low: 1).hex])
                == 1)
        // No Avahi client here: its figure is absent, not zero.
        #expect(e.types["fleetmesh_avahi_up"] == nil)

        let clock = ContinuousClock()
        let rounds = 100
        let held = await clock.measure { for _ in 0..<rounds { _ = await shell.metricsSnapshot() } }
        print("metrics scrape: the node's actor held \(held / rounds) per snapshot with 100 peers")
        #expect(held / rounds < .milliseconds(20))
    }
}

/// A mesh key file other users can read is reported when the node starts; a private one is not.
@Test func aKeyFileOthersCanReadIsReportedAtStart() throws {
    let dir = NSTemporaryDirectory() + "fleetmesh-keymode-\(getpid())"
    try? FileManager.default.removeItem(atPath: dir)
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let keyFile = dir + "/mesh.key"
    try MeshKey.generate().fileContents.write(toFile: keyFile, atomically: true, encoding: .utf8)
    for (mode, warned) in [(0o644, true), (0o600, false)] {
        chmod(keyFile, mode_t(mode))
        let captured = CapturedLog()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(log: captured) }
        var config = NodeConfiguration(
            name: "k", role: .drone, keyFile: keyFile, stateDirectory: dir + "/state", controlSocket: dir + "/k.sock")
        config.advertise = false
        config.discover = false
        _ = try NodeServices(configuration: config, logger: logger)
        let line = captured.lines.first { $0.contains("other users can read the mesh key") }
        #expect((line != nil) == warned, "mode \(String(mode, radix: 8)): \(captured.lines)")
        if warned { #expect(line?.contains("has mode 0644") == true && line?.contains("chmod 600 \(keyFile)") == true) }
    }
}
