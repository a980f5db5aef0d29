import ControlProtocol
import Foundation
import LabKit

/// Issue #19's figures (`fleetmesh-bench deploy`): how long a node takes from its start to telling systemd it is
/// ready (`READY=1` on a notify socket, as under `Type=notify`), against the first answer on its control socket in
/// the same run; the memory of an idle node; the station's memory with 0 and 50 drones (50 emulated drone nodes in
/// one process, `emulate-drones`).
enum DeploymentBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        out.heading("Deployment: start to ready, memory (issue #19)")
        let runs = Int(ProcessInfo.processInfo.environment["FLEETMESH_BENCH_DEPLOY_RUNS"] ?? "") ?? 7
        try await Lab.with(hosts: 3) { lab in
            _ = try lab.startNode(host: 2, name: "station", role: "station", logLevel: "warning")
            var ready = Samples()
            var answering = Samples()
            for run in 0..<runs {
                let socket = lab.directory.appendingPathComponent("notify-\(run)").path
                let receiver = try UnixDatagramReceiver(name: socket, timeout: .seconds(30))
                let clock = ContinuousClock()
                let start = clock.now
                let drone = try lab.startNode(
                    host: 1, name: "drone-1", logLevel: "warning", environment: ["NOTIFY_SOCKET": socket])
                // The control socket's first answer, polled every 2 ms, on a thread of its own (the receiver blocks).
                let firstAnswer = Thread.detachedWait {
                    while (try? drone.status()) == nil { usleep(2000) }
                    return clock.now - start
                }
                while !(try receiver.receive()).hasPrefix("READY=1") {}
                ready.add(clock.now - start)
                answering.add(await firstAnswer.value)
                receiver.close()
                if run == runs - 1 {
                    // Idle, in session with the station: its memory after 10 s.
                    try await Task.sleep(for: .seconds(10))
                    let rss = try memory(pid: try drone.nodePID())
                    out.line("idle drone node, RSS (peak)", String(format: "%.1f MiB (%.1f MiB)", rss.rss, rss.peak))
                }
                _ = try await drone.stop()
            }
            out.latency("node start → READY=1 (Avahi published)", ready)
            out.latency("baseline: start → control socket answers", answering)
        }
        for drones in [0, 50] {
            try await Lab.with(hosts: 2) { lab in
                let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "warning")
                if drones > 0 {
                    _ = try lab.start(
                        host: 2, tag: "emulator",
                        [
                            CommandLine.arguments[0], "emulate-drones", String(drones), "\(try lab.address(1)):47800",
                            lab.keyPath, lab.directory.path + "/emu", "90",
                        ])
                    _ = try? await waitUntil(
                        "the station hears \(drones) live drones", timeout: .seconds(60), poll: .milliseconds(250)
                    ) {
                        try FleetLabBenchmarks.vehicles(station).filter { !$0.stale && $0.uavNumber != nil }.count
                            == drones
                    }
                }
                try await Task.sleep(for: .seconds(10))
                let live = try FleetLabBenchmarks.vehicles(station).filter { !$0.stale }.count
                let rss = try memory(pid: try station.nodePID())
                out.line(
                    "station, \(drones) drones, RSS (peak)",
                    String(format: "%.1f MiB (%.1f MiB), %d live in its picture", rss.rss, rss.peak, live))
            }
        }
    }

    /// VmRSS and VmHWM of `pid`, in MiB.
    static func memory(pid: Int32) throws -> (rss: Double, peak: Double) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Double {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }
}

extension Thread {
    /// Runs `body` on a thread of its own and hands back its result (for blocking work beside async waits).
    static func detachedWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Task<T, Never> {
        Task {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: body()) }.start()
            }
        }
    }
}
