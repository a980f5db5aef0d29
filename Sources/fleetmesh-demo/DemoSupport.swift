import ControlProtocol
import Dispatch
import Foundation
import LabKit

/// Checks run from `waitUntil` off the main actor.
enum DemoQueries {
    /// Whether a program started on a lab host has exited.
    nonisolated static func exited(_ program: LabProgram) -> Bool { !program.process.isRunning }

    /// A drone in the station's fleet picture, east/north/up of `home` in metres, moved on by its velocity over the
    /// report's age so that every drone is placed at the same moment.
    struct Placed {
        var uav: Int
        var east, north, up: Double
    }

    nonisolated static func placedDrones(_ socket: String, numbers: [Int], home: (Double, Double)) throws -> [Placed] {
        let vehicles = try ControlClient.request(ControlRequest.vehicles, socket: socket).vehicles ?? []
        return vehicles.compactMap { v in
            guard let n = v.uavNumber, numbers.contains(n), !v.stale else { return nil }
            let p = v.placed(relativeTo: home)
            return Placed(uav: n, east: p.east, north: p.north, up: p.up)
        }
    }

    /// Whether the node at `socket` receives targets from a target source.
    nonisolated static func receivingTargets(_ socket: String) throws -> Bool {
        let sources = try ControlClient.request(ControlRequest.sources, socket: socket).sources?.sources ?? []
        return sources.contains { $0.targets > 0 }
    }
}

/// Calls `handler` on each SIGINT and SIGTERM, from a dispatch queue (outside any actor: a handler written in
/// main.swift's top-level code would be the main actor's, and the runtime traps when a queue runs it). The signals'
/// default action is turned off; keep the sources alive as long as they should act.
func onStopSignals(_ handler: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
    [SIGINT, SIGTERM].map { sig in
        signal(sig, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }
}

/// A flag set from any thread (a signal handler) and read by the walkthrough.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

extension Duration {
    var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Writes a line to standard output at once (unbuffered, so `make demo` shows progress live).
func show(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Sends one command per drone at once (`fleetmesh send` on the station) and returns each output, by UAV number.
func sendAll(_ bin: String, _ station: String, options: [String] = [], _ commands: [(Int, [String])]) async throws -> [(
    Int, String
)] {
    try await withThrowingTaskGroup(of: (Int, String).self) { group in
        for (n, args) in commands {
            group.addTask {
                (n, try await shellOffPool([bin, "send", "--node", station] + options + [String(n)] + args))
            }
        }
        var answers: [(Int, String)] = []
        for try await answer in group { answers.append(answer) }
        return answers.sorted { $0.0 < $1.0 }
    }
}

/// Runs a command on a thread of its own (the commands block until the drone answers, and the cooperative pool
/// has only as many threads as cores) and returns its output.
func shellOffPool(_ arguments: [String]) async throws -> String {
    try Task.checkCancellation()
    let output: String = try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try shell(arguments).output })
        }
    }
    // Ctrl-C meanwhile: the walkthrough stops here rather than acting on what the command said.
    try Task.checkCancellation()
    return output
}

/// The station's dashboard, made reachable from this machine's browser for the demo.
struct DemoDashboard {
    var url: String?
    var line: String

    /// Forwards 127.0.0.1:DEMO_DASHBOARD_PORT (default 8080) to the station's dashboard on its lab host and checks that
    /// it answers with the fleet.
    static func open(lab: Lab, station host: Int) async throws -> DemoDashboard {
        let port = ProcessInfo.processInfo.environment["DEMO_DASHBOARD_PORT"].flatMap(Int.init) ?? 8080
        let url = "http://127.0.0.1:\(port)/"
        let forwarder = try lab.forward(localPort: port, toHost: host, port: 8080)
        var drones = 0
        do {
            try await waitUntil("the dashboard answers at \(url)", timeout: .seconds(5)) {
                guard forwarder.isRunning else { return false }
                let r = try shell(["curl", "-s", "-m", "2", url + "api/v1/vehicles"])
                guard r.status == 0,
                    let list = try? JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [[String: Any]]
                else { return false }
                drones = list.filter { $0["role"] as? String == "drone" }.count
                return true
            }
        } catch {
            return DemoDashboard(
                url: nil,
                line:
                    "dashboard: 127.0.0.1:\(port) is not free on this machine, so the station's page is not forwarded (set DEMO_DASHBOARD_PORT)"
            )
        }
        return DemoDashboard(
            url: url,
            line:
                "dashboard: open \(url) in a browser on this machine: station-1's live map, \(drones) drones on it now (forwarded from its lab host)"
        )
    }
}

extension DemoDashboard {
    /// Where the station's Prometheus metrics are (`GET /metrics` on its dashboard), with one figure from them.
    static func metricsLine(_ url: String) -> String {
        let text = (try? shell(["curl", "-s", "-m", "2", url + "metrics"]).output) ?? ""
        let sessions = text.split(separator: "\n").first { $0.hasPrefix("fleetmesh_sessions ") }?.split(separator: " ")
            .last.flatMap { Double($0) }
        guard let sessions else { return "metrics: \(url)metrics did not answer" }
        return
            "metrics: \(url)metrics, station-1's figures for Prometheus (\(Int(sessions)) sessions now; docs/DASHBOARD.md)"
    }
}

/// The latest event number of each node (to read only what comes after).
func latestEvents(_ nodes: [NodeProcess]) throws -> [String: Int] {
    var latest: [String: Int] = [:]
    for n in nodes {
        latest[n.name] =
            try ControlClient.request(ControlRequest.events(.init(after: 0, limit: 1)), socket: n.socketPath)
            .events?.latest ?? 0
    }
    return latest
}

/// A node's command events after `after[its name]` (its event numbers).
func commandEvents(of n: NodeProcess, after: [String: Int]) throws -> [EventReport] {
    let events =
        try ControlClient.request(
            ControlRequest.events(.init(after: after[n.name] ?? 0, limit: 1000)), socket: n.socketPath
        ).events?.events ?? []
    return events.filter { $0.kind == "command" }
}

/// When each node's last command event ending in `suffix` after `after` was logged (wall-clock milliseconds).
func startTimes(_ nodes: [NodeProcess], _ suffix: String, after: [String: Int]) throws -> [String: Int64] {
    var times: [String: Int64] = [:]
    for n in nodes {
        if let e = try commandEvents(of: n, after: after).last(where: { $0.text.hasSuffix(suffix) }) {
            times[n.name] = e.timeMs
        }
    }
    return times
}

/// Each node's command events after `after`, as `name  HH:MM:SS.mmm  text` lines.
func commandEventLines(_ nodes: [NodeProcess], after: [String: Int]) throws -> [String] {
    let format = DateFormatter()
    format.dateFormat = "HH:mm:ss.SSS"
    format.timeZone = TimeZone(identifier: "UTC")
    return try nodes.flatMap { n in
        try commandEvents(of: n, after: after).map {
            "\(n.name)  \(format.string(from: Date(timeIntervalSince1970: Double($0.timeMs) / 1000)))  \($0.text)"
        }
    }
}

/// How many drones fly the geofence in force at the station (their link-state advertisements say which they use).
func dronesFlyingTheFenceInForce(station socket: String) throws -> Int {
    let report = try ControlClient.request(ControlRequest.geofence, socket: socket, timeout: .seconds(2)).geofence
    return (report?.nodes ?? []).filter { $0.role == "drone" && $0.current }.count
}

/// Each node's own bytes on the air (its `fleetmesh status` traffic out, averaged over the last 5 s) and their sum:
/// what the mesh costs the radio while the fleet flies.
func airtimeLine(_ nodes: [NodeProcess]) -> String {
    var parts: [String] = []
    var total = 0.0
    for node in nodes {
        guard let traffic = (try? node.status())?.node.traffic else {
            parts.append("\(node.name) ?")
            continue
        }
        let kbit = traffic.bytesOutPerSecond * 8 / 1000
        total += kbit
        parts.append("\(node.name) \(String(format: "%.1f", kbit))")
    }
    return "bytes on the air, each node's own over the last 5 s: \(parts.joined(separator: ", ")) kbit/s; "
        + String(format: "%.1f kbit/s for the %d nodes", total, nodes.count)
}
