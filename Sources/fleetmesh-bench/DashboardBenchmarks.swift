import ControlProtocol
import Foundation
import LabKit

/// `fleetmesh-bench dashboard`: a station with 50 emulated drones (10 Hz telemetry each) and its dashboard, in the
/// lab. Measured: the delay of a telemetry sample from its arrival at the station to its arrival in a WebSocket
/// client, with 1 and with 10 clients (`Tools/dashboard-bench.py clients`); the station's CPU and memory with 0 and
/// with 10 clients (the same station, the same drones: the difference is what the clients cost); and the page's load
/// to its first full picture in headless Chromium. Two paces: the default (every vehicle at the live rate, 5 Hz), and
/// an operator's (one watched drone at 20 Hz, the rest at 2 Hz).
enum DashboardBenchmarks {
    static let drones = 50

    static func run(_ out: BenchOutput) async throws {
        out.heading("Dashboard: \(drones) emulated drones at 10 Hz, live pictures to WebSocket clients")
        let bench = CommandLine.arguments[0]
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/dashboard-bench.py").path
        let paces: [(name: String, subscribe: String?)] = [
            ("default pace (5 Hz each)", nil),
            (
                "watching one drone at 20 Hz, the rest at 2 Hz",
                #"{"type":"subscribe","watch":[UAV],"watchHz":20,"othersHz":2}"#
            ),
        ]
        for (pace, subscribe) in paces {
            let rate = 5
            try await Lab.with(hosts: 2) { lab in
                let station = try lab.startNode(
                    host: 1, name: "station", role: "station",
                    extra: "[dashboard]\nlive_rate_hz = \(rate)", logLevel: "warning")
                let address = try lab.address(1)
                _ = try lab.start(
                    host: 2, tag: "emulator",
                    [
                        bench, "emulate-drones", String(drones), "\(address):47800", lab.keyPath,
                        lab.directory.path + "/emu", "120",
                    ])
                try await waitUntil(
                    "the station hears \(drones) live drones", timeout: .seconds(40), poll: .milliseconds(250)
                ) {
                    try FleetLabBenchmarks.vehicles(station).filter { !$0.stale && $0.uavNumber != nil }.count
                        == drones
                }
                let pid = try station.nodePID()
                // The watched drone: the lowest UAV number in the fleet.
                let watched = try FleetLabBenchmarks.vehicles(station).compactMap(\.uavNumber).min() ?? 1
                // The station alone with its drones: the baseline.
                let (idleCPU, idleRSS) = try await usage(pid: pid, over: .seconds(8))
                for n in [1, 10] {
                    let clients = try lab.start(
                        host: 1, tag: "clients-\(n)",
                        ["python3", "-u", script, "clients", String(n), "http://127.0.0.1:8080", "10"]
                            + (subscribe.map { [$0.replacingOccurrences(of: "UAV", with: String(watched))] } ?? []))
                    try await Task.sleep(for: .seconds(1))
                    // FLEETMESH_PERF=DIR: a perf profile of the station while the clients watch (it costs CPU itself).
                    let profile = try ProcessInfo.processInfo.environment["FLEETMESH_PERF"].map { dir in
                        try ChildProcess(
                            [
                                "perf", "record", "-F", "499", "-g", "-p", String(pid), "-o",
                                "\(dir)/dashboard-\(subscribe == nil ? "default" : "watching")-\(n).data", "--",
                                "sleep", "8",
                            ])
                    }
                    let (cpu, rss) = try await usage(pid: pid, over: .seconds(8))
                    _ = profile?.wait()
                    try await waitUntil("the clients finish", timeout: .seconds(20)) { !clients.process.isRunning }
                    guard
                        let line = clients.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
                        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        let delays = report["delaysMs"] as? [Double], let messages = report["messages"] as? [Int],
                        let watchedDelays = report["watchedDelaysMs"] as? [Double],
                        let pictureDelays = report["pictureDelaysMs"] as? [Double],
                        let bytes = report["bytes"] as? [Int]
                    else { throw LabError("the clients reported nothing: \(clients.output.suffix(2000))") }
                    let who = "\(pace), \(n) client\(n == 1 ? "" : "s")"
                    for (kind, values) in [
                        ("pushed", delays), ("pushed, watched drone", watchedDelays),
                        ("first seen in a periodic picture", pictureDelays),
                    ] where !values.isEmpty {
                        var s = Samples()
                        for d in values { s.add(d / 1000) }
                        out.latency("\(who): station → client, \(kind)", s)
                    }
                    let total = delays.count + watchedDelays.count + pictureDelays.count
                    var all = Samples()
                    for d in delays + watchedDelays + pictureDelays { all.add(d / 1000) }
                    out.latency("\(who): station → client, every sample shown (\(total))", all)
                    let perClient = Double(messages.reduce(0, +)) / Double(n) / 10
                    let kBs = Double(bytes.reduce(0, +)) / Double(n) / 10 / 1000
                    out.line(
                        "\(who): station CPU, memory",
                        String(
                            format:
                                "%5.1f %% of one core (%+.1f %% over no client), RSS %+.1f MB over no client (%.1f MB per client); %.1f messages/s and %.1f kB/s per client",
                            cpu * 100, (cpu - idleCPU) * 100, (rss - idleRSS) / 1e6, (rss - idleRSS) / 1e6 / Double(n),
                            perClient, kBs))
                }
                out.line("\(pace): station CPU, no client", String(format: "%5.1f %% of one core", idleCPU * 100))
                if subscribe == nil {
                    let page = try lab.start(
                        host: 1, tag: "page",
                        ["python3", "-u", script, "page", "http://127.0.0.1:8080", String(drones), "5"])
                    try await waitUntil("the page loads", timeout: .seconds(120)) { !page.process.isRunning }
                    guard
                        let line = page.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
                        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        let times = report["firstPictureMs"] as? [Double]
                    else { throw LabError("the page reported nothing: \(page.output.suffix(2000))") }
                    var s = Samples()
                    for t in times { s.add(t / 1000) }
                    out.latency("page load → first full picture (\(drones) drones, Chromium, \(times.count) loads)", s)
                }
                _ = try await station.stop()
            }
        }
    }

    /// The share of one core `pid` used over `duration`, and its resident memory at the end (bytes).
    static func usage(pid: Int32, over duration: Duration) async throws -> (cpu: Double, rss: Double) {
        let clock = ContinuousClock()
        let t0 = clock.now
        let c0 = try FleetLabBenchmarks.cpuSeconds(pid: pid)
        try await Task.sleep(for: duration)
        let share = (try FleetLabBenchmarks.cpuSeconds(pid: pid) - c0) / (clock.now - t0).seconds
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let kB =
            status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }?.split(separator: " ").dropFirst()
            .first.flatMap { Double($0) } ?? 0
        return (share, kB * 1000)
    }
}
