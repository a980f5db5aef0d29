// `make demo`: a station and three simulated drones on four namespaced hosts, each with its own avahi-daemon,
// form a mesh while you watch; then a drone's radio link is cut and restored. Runs until Ctrl-C, or for
// DEMO_SECONDS seconds, then stops every node cleanly and prints a summary.
import Dispatch
import Foundation
import LabKit
import Node

let demoSeconds = ProcessInfo.processInfo.environment["DEMO_SECONDS"].flatMap(Double.init)
let stopRequested = StopFlag()
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let signalSources = [SIGINT, SIGTERM].map { sig in
    let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
    source.setEventHandler { stopRequested.set() }
    source.resume()
    return source
}

let clock = ContinuousClock()
let start = clock.now
func stamp() -> String { String(format: "%7.3f s", (clock.now - start).secondsValue) }
func say(_ text: String) { show("\(stamp())  \(text)") }

show("""
FleetMesh demo
  4 hosts on a private virtual bridge, each in its own network namespace with its own avahi-daemon;
  nothing touches this machine's real interfaces.
  host 1: station-1    hosts 2-4: drone-1, drone-2, drone-3 (each flying the built-in simulator)

""")

do {
    _ = try? shell(["bash", labScript, "--name", "demo", "down"])
    let lab = try Lab(hosts: 4, name: "demo")
    defer { lab.teardown() }
    say("lab up: 4 hosts, avahi-daemon running on each")

    let names = ["station-1", "drone-1", "drone-2", "drone-3"]
    var nodes: [NodeProcess] = []
    for (i, name) in names.enumerated() {
        // The station sets the session's map origin (the test area's corner); the mesh shares it with every node.
        let mission = i == 0 ? "[mission]\norigin = [50.0750, 14.4370, 0.0]" : ""
        nodes.append(try lab.startNode(host: i + 1, name: name, role: i == 0 ? "station" : "drone", extra: mission,
                                       logLevel: "info"))
    }
    say("started \(names.joined(separator: ", ")) at once (fleetmesh run on each host)\n")

    // Watch the mesh form: report every peer state change any node sees, with that node's own timing.
    var seen: [String: String] = [:]
    var formedAt: Duration?
    while formedAt == nil, clock.now - start < .seconds(20), !stopRequested.isSet {
        var complete = true
        for node in nodes {
            guard let status = try? node.status() else { complete = false; continue }
            for peer in status.peers {
                let key = "\(node.name)>\(peer.id)"
                let peerName = peer.name ?? String(peer.id.prefix(8))
                if seen[key] != peer.state {
                    seen[key] = peer.state
                    switch peer.state {
                    case "established":
                        let t = peer.establishedAtMs.map { "\($0) ms after \(node.name) started" } ?? ""
                        say("\(node.name.padding(toLength: 9, withPad: " ", startingAt: 0)) ⇄ \(peerName): encrypted session established (\(t))")
                    case "discovered", "handshaking":
                        if peer.state == "handshaking" {
                            say("\(node.name.padding(toLength: 9, withPad: " ", startingAt: 0)) → \(peerName): found over mDNS at \(peer.address ?? "?"), handshaking")
                        }
                    default:
                        say("\(node.name) sees \(peerName): \(peer.state)")
                    }
                }
            }
            if status.peers.filter({ $0.state == "established" }).count < names.count - 1 { complete = false }
        }
        if complete { formedAt = clock.now - start } else { try await Task.sleep(for: .milliseconds(20)) }
    }
    guard let formedAt else { throw LabError("the mesh did not form within 20 s; see the node logs in \(lab.directory.path)") }

    show("")
    say("mesh formed: every node in session with the other 3")
    show("\n  time from start to a session with every peer (each node's own clock):")
    for node in nodes {
        let s = try node.status()
        let worst = s.peers.compactMap(\.establishedAtMs).max() ?? 0
        show("    \(node.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(worst) ms   (published as '\(s.node.publishedName ?? "still probing")', UDP \(s.node.port))")
    }
    show("\n  `fleetmesh status` on the station:\n")
    let statusText = try shell([try fleetmeshBinary(), "status", "--node", nodes[0].socketPath]).output
    show(statusText.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    show("")

    // Failure detection: cut drone-3's radio link, then restore it.
    say("cutting drone-3's link (no goodbye: the station must notice the silence)")
    try lab.lab("cut", "4")
    let cutAt = clock.now
    try await waitUntil("the station marks drone-3 lost", timeout: .seconds(5), poll: .milliseconds(5)) {
        nodes[0].peerState("drone-3") == "lost"
    }
    let detection = clock.now - cutAt
    say(String(format: "station-1 marked drone-3 lost after %.0f ms (QGroundControl: 3500 ms, MAVSDK: 3000 ms)", detection.secondsValue * 1000))
    try lab.lab("restore", "4")
    let restoreAt = clock.now
    try await waitUntil("drone-3 back in session", timeout: .seconds(10), poll: .milliseconds(5)) {
        nodes[0].peerState("drone-3") == "established"
    }
    say(String(format: "link restored: session with drone-3 back after %.0f ms", (clock.now - restoreAt).secondsValue * 1000))

    // The coordinator: unique UAV numbers, then commands relayed from the station with their answers.
    show("")
    let bin = try fleetmeshBinary()
    let station = nodes[0].socketPath
    try await waitUntil("every drone has a UAV number", timeout: .seconds(15)) {
        let peers = try nodes[0].status().peers
        let numbers = peers.compactMap(\.uavNumber)
        return numbers.count == 3 && Set(numbers).count == 3
    }
    let numbered = try nodes[0].status().peers.sorted { ($0.name ?? "") < ($1.name ?? "") }
    say("UAV numbers assigned by the mesh (unique, kept across restarts; also MAVLink system IDs): "
        + numbered.map { "\($0.name ?? "?") = \($0.uavNumber!)" }.joined(separator: ", "))
    let numbers = numbered.map { $0.uavNumber! }
    try await waitUntil("drone-3 agrees on the station's map origin", timeout: .seconds(10)) {
        try shell([bin, "origin", "--node", nodes[3].socketPath]).status == 0
    }
    let origin = try shell([bin, "origin", "--node", nodes[3].socketPath]).output
    say("map origin set on station-1, as drone-3 sees it (`fleetmesh origin`):")
    for line in origin.split(separator: "\n") { show("             " + line) }

    say("station-1: fleetmesh send N takeoff 10 to every drone, at once")
    let takeoffs = try await withThrowingTaskGroup(of: (Int, String).self) { group in
        for n in numbers {
            group.addTask { (n, try await shellOffPool([bin, "send", "--node", station, String(n), "takeoff", "10"])) }
        }
        var answers: [(Int, String)] = []
        for try await answer in group { answers.append(answer) }
        return answers
    }
    for (_, output) in takeoffs.sorted(by: { $0.0 < $1.0 }) {
        for line in output.split(separator: "\n") { say("  " + line) }
    }

    // Each drone to its own corner of a square 30 m across, 15 m up.
    let home = (50.0755, 14.4378)
    let corners = [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)]
    say("station-1: goto each drone to its own point of a 30 m square at 15 m")
    let gotos = try await withThrowingTaskGroup(of: (Int, String).self) { group in
        for (n, c) in zip(numbers, corners) {
            let lat = home.0 + c.0 * 15 / 111_320
            let lon = home.1 + c.1 * 15 / (111_320 * cos(home.0 * .pi / 180))
            group.addTask {
                (n, try await shellOffPool([bin, "send", "--node", station, String(n), "goto", String(format: "%.7f", lat),
                                            String(format: "%.7f", lon), "15", "4"]))
            }
        }
        var answers: [(Int, String)] = []
        for try await answer in group { answers.append(answer) }
        return answers
    }
    for (_, output) in gotos.sorted(by: { $0.0 < $1.0 }) {
        for line in output.split(separator: "\n") { say("  " + line) }
    }
    show("\n  `fleetmesh vehicles` on the station:\n")
    show(try shell([bin, "vehicles", "--node", station]).output.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    let unheld = (1...250).reversed().first { !numbers.contains($0) }!
    let refused = try shell([bin, "send", "--node", station, String(unheld), "land"])
    say("a command to a UAV number nobody holds is refused (exit \(refused.status)): "
        + refused.output.trimmingCharacters(in: .whitespacesAndNewlines))
    show("")

    // Trajectory upload: drone-1 flies three waypoints and holds at the last.
    let legs = [(15.0, 15.0), (15.0, 0.0), (0.0, 0.0)].map { c -> String in
        String(format: "%.7f,%.7f,12", home.0 + c.0 / 111_320, home.1 + c.1 / (111_320 * cos(home.0 * .pi / 180)))
    }
    say("station-1: fleetmesh send \(numbers[0]) trajectory (3 waypoints at 12 m): drone-1 plans and flies it")
    for line in try await shellOffPool([bin, "send", "--node", station, "--timeout", "60", String(numbers[0]), "trajectory"] + legs)
        .split(separator: "\n") { say("  " + line) }

    // A target source that is not FleetMesh: the Python example advertises _loc-broadcaster._udp on host 1 and
    // streams a target circling the home point; the station subscribes and drone-2 follows it.
    let example = repositoryRoot.appendingPathComponent("Examples/loc-broadcaster/loc_broadcaster.py").path
    let phone = try lab.start(host: 1, tag: "phone", ["python3", "-u", example, "--key", lab.keyPath, "--name", "phone",
                                                      "--lat", String(home.0), "--lon", String(home.1), "--alt", "12",
                                                      "--uav", String(numbers[1]), "--circle", "10", "--period", "40"])
    say("started Examples/loc-broadcaster/loc_broadcaster.py ('phone', Python + zeroconf) streaming a moving target for UAV \(numbers[1])")
    try await waitUntil("station-1 subscribes to the phone", timeout: .seconds(10)) { try DemoQueries.receivingTargets(station) }
    show(try shell([bin, "sources", "--node", station]).output.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    for line in try await shellOffPool([bin, "send", "--node", station, String(numbers[1]), "follow", "on"]).split(separator: "\n") {
        say("  " + line)
    }
    try await Task.sleep(for: .seconds(8))
    if let v = try ControlClient.request(ControlRequest(command: "vehicles"), socket: station).vehicles?.first(where: { $0.uavNumber == numbers[1] }),
       let s = try ControlClient.request(ControlRequest(command: "sources"), socket: station).sources?.sources.first,
       let lat = s.lastLatitude, let lon = s.lastLongitude {
        let d = hypot((v.latitude - lat) * 111_320, (v.longitude - lon) * 111_320 * cos(lat * .pi / 180))
        say(String(format: "drone-2 following the phone's target: %.1f m from it, %@ at %.1f m/s", d, v.activity, v.speed))
    }
    _ = phone

    // Manual control: a 100 Hz joystick stream from the station to drone-3 for 2 s.
    say("station-1: fleetmesh manual \(numbers[2]) --rate 100 --seconds 2 --x 500 (forward at half deflection)")
    for line in try await shellOffPool([bin, "manual", "--node", station, "--rate", "100", "--seconds", "2", "--x", "500", String(numbers[2])])
        .split(separator: "\n") { say("  " + line) }
    if let m = try nodes[3].status().manualControl {
        say(String(format: "drone-3 obeyed %d samples at %.1f Hz, latency p50 %.2f ms, p99 %.2f ms", m.received, m.rateHz ?? 0,
                   m.latencyP50Ms ?? 0, m.latencyP99Ms ?? 0))
    }
    show("")

    if let demoSeconds {
        say(String(format: "running for DEMO_SECONDS=%.0f s", demoSeconds))
    } else {
        say("the mesh keeps running; press Ctrl-C to stop (or set DEMO_SECONDS)")
    }
    var lastLine = clock.now
    while !stopRequested.isSet {
        if let demoSeconds, clock.now - start >= .seconds(demoSeconds) { break }
        if clock.now - lastLine >= .seconds(5) {
            lastLine = clock.now
            let s = try nodes[0].status()
            let line = s.peers.map { p in
                "\(p.name ?? "?")\(p.uavNumber.map { " (UAV \($0))" } ?? "") \(p.state)\(p.rttMs.map { String(format: " %.1fms", $0) } ?? "")"
            }.joined(separator: ", ")
            say("station-1: \(line)")
        }
        try await Task.sleep(for: .milliseconds(100))
    }

    // Clean shutdown: the station sees each drone leave at once (a goodbye, not a timeout).
    show("")
    for node in nodes.dropFirst().reversed() {
        let stopAt = clock.now
        let code = try await node.stop()
        try await waitUntil("station-1 sees \(node.name) leave", timeout: .seconds(3), poll: .milliseconds(5)) {
            nodes[0].peerState(node.name) == "left"
        }
        say(String(format: "%@ stopped (exit %d); station-1 saw it leave after %.0f ms", node.name, code,
                   (clock.now - stopAt).secondsValue * 1000))
    }
    _ = try await nodes[0].stop()
    show(String(format: "\nsummary: mesh of 4 formed in %.2f s, link loss detected in %.0f ms, UAV numbers %@ assigned, "
                 + "three drones took off and flew on the station's commands (goto, a trajectory, a Python target source, "
                 + "a 100 Hz manual-control stream), clean leaves seen at once.",
                 formedAt.secondsValue, detection.secondsValue * 1000, numbers.map(String.init).joined(separator: "/")))
} catch {
    show("demo failed: \(error)")
    exit(1)
}
_ = signalSources

/// Checks run from `waitUntil` off the main actor.
enum DemoQueries {
    /// Whether the node at `socket` receives targets from a target source.
    nonisolated static func receivingTargets(_ socket: String) throws -> Bool {
        let sources = try ControlClient.request(ControlRequest(command: "sources"), socket: socket).sources?.sources ?? []
        return sources.contains { $0.targets > 0 }
    }
}

final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}

extension Duration {
    var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Writes a line to standard output at once (unbuffered, so `make demo` shows progress live).
func show(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Runs a command on a thread of its own (the commands block until the drone answers, and the cooperative pool
/// has only as many threads as cores) and returns its output.
func shellOffPool(_ arguments: [String]) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try shell(arguments).output })
        }
    }
}
