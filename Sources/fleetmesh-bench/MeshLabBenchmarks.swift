import ControlProtocol
import Foundation
import LabKit
import Node

/// Figures measured on real `fleetmesh run` processes in the namespaced lab (scripts/lab): each host has its own
/// network namespace and its own avahi-daemon, all on one private bridge. Nothing leaves the lab namespaces.
///
/// One lab of 4 hosts serves every figure: station-a (host 1), drone-b (host 2) and drone-c (host 3) run
/// throughout; drone-d is started and stopped on host 4. Samples per figure: FLEETMESH_BENCH_LAB_SAMPLES (default 30).
enum MeshLabBenchmarks {
    static let clock = ContinuousClock()
    static let others = ["station-a", "drone-b", "drone-c"]

    static func run(_ out: BenchOutput) async throws {
        let samples = max(1, Int(ProcessInfo.processInfo.environment["FLEETMESH_BENCH_LAB_SAMPLES"] ?? "") ?? 30)
        out.heading("Mesh lab: real processes, 4 namespaced hosts, one avahi-daemon per host")
        out.line("load average at start (1/5/15 min)", loadAverage())
        try await Lab.with(hosts: 4) { lab in
            let a = try lab.startNode(host: 1, name: "station-a", role: "station", logLevel: "info")
            let b = try lab.startNode(host: 2, name: "drone-b", logLevel: "info")
            let c = try lab.startNode(host: 3, name: "drone-c", logLevel: "info")
            let running = [a, b, c]
            try await waitUntil("station-a, drone-b and drone-c in a full mesh", timeout: .seconds(15)) {
                try running.allSatisfy { n in
                    let s = try n.status()
                    return s.peers.filter { $0.state == "established" }.count == 2
                }
            }
            try await nodeStart(lab, out, running: running, samples: samples, freshIdentity: false)
            try await nodeStart(lab, out, running: running, samples: samples, freshIdentity: true)
            try await nodeStart(lab, out, running: running, samples: samples, freshIdentity: false, coldAvahi: true)
            try await avahiFigures(lab, out, samples: samples)
            let heal = try await lossAndHeal(lab, out, a: a, b: b, samples: samples)
            let outageSamples = max(
                1, Int(ProcessInfo.processInfo.environment["FLEETMESH_BENCH_OUTAGE_SAMPLES"] ?? "") ?? 10)
            try await outageRecovery(lab, out, a: a, b: b, samples: outageSamples, baseline: heal)
        }
        out.line("load average at end (1/5/15 min)", loadAverage())
    }

    // MARK: 1. Node start → in session with every peer

    /// `coldAvahi`: host 4's avahi-daemon is restarted before each start (empty cache, as after a reboot); the node
    /// is spawned 1.5 s later, once the daemon has finished announcing its host name (not timed).
    /// `freshIdentity` false: drone-d restarts with its state dir (same node id, new incarnation).
    /// true: each start is a node never seen before (own name, empty state dir, new node id).
    static func nodeStart(
        _ lab: Lab, _ out: BenchOutput, running: [NodeProcess], samples: Int,
        freshIdentity: Bool, coldAvahi: Bool = false
    ) async throws {
        let series = coldAvahi ? "cold avahi" : freshIdentity ? "new id" : "restart"
        // The harness's own cost of starting a process on a lab host (bash scripts/lab + nsenter + exec).
        var harness = Samples()
        for _ in 0..<10 {
            let t0 = clock.now
            _ = try shell(lab.onHost(4, ["true"]))
            harness.add(clock.now - t0)
        }

        var wallAll = Samples()  // spawn → the new node's status shows all 3 peers established (5 ms polls)
        var ownAll = Samples()  // the node's own establishedAtMs, max over the 3 peers
        var ownDiscovered = Samples()  // the node's own discoveredAtMs, max over the 3 peers
        var socketUp = Samples()  // spawn → first answer on the control socket
        var peersSee = Samples()  // spawn → every running peer shows drone-d established
        var failures = 0
        // The restart series begins with one uncounted start: drone-d's first start ever is a new identity.
        for i in (freshIdentity ? 0 : -1)..<samples {
            let name = freshIdentity ? "fresh-\(i)" : "drone-d"
            if coldAvahi {
                try lab.lab("avahi-stop", "4")
                try lab.lab("avahi-start", "4")
                try await Task.sleep(for: .milliseconds(1500))
            }
            let t0 = clock.now
            let d = try lab.startNode(host: 4, name: name, logLevel: "info")
            var firstAnswer: ContinuousClock.Instant?
            var allEstablished: ContinuousClock.Instant?
            var own: (established: Int, discovered: Int)?
            var seenBy: [String: ContinuousClock.Instant] = [:]
            while clock.now - t0 < .seconds(10) {
                if allEstablished == nil, let s = try? d.status() {
                    if firstAnswer == nil { firstAnswer = clock.now }
                    let peers = others.compactMap { name in
                        s.peers.first { $0.name == name && $0.state == "established" }
                    }
                    if peers.count == others.count {
                        allEstablished = clock.now
                        own = (
                            peers.map { $0.establishedAtMs ?? Int.max }.max()!,
                            peers.map { $0.discoveredAtMs ?? Int.max }.max()!
                        )
                    }
                }
                for n in running where seenBy[n.name] == nil {
                    if n.peerState(name) == "established" { seenBy[n.name] = clock.now }
                }
                if allEstablished != nil && seenBy.count == running.count { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            if i < 0 {
                // Warm-up start, not in the percentiles (in the restart series: drone-d's first start ever, new identity).
                out.line(
                    "\(series): warm-up start (not counted)",
                    allEstablished.map {
                        String(
                            format: "all 3 sessions after %.1f ms wall clock, %d ms own clock", ($0 - t0).seconds * 1e3,
                            own?.established ?? -1)
                    } ?? "NOT in session with all 3 within 10 s (seen by \(seenBy.keys.sorted()))")
            } else if let allEstablished, let own, let firstAnswer, seenBy.count == running.count {
                wallAll.add(allEstablished - t0)
                ownAll.add(Double(own.established) / 1000)
                ownDiscovered.add(Double(own.discovered) / 1000)
                socketUp.add(firstAnswer - t0)
                peersSee.add(seenBy.values.max()! - t0)
            } else {
                failures += 1
                print(
                    "  \(series) start \(i): not in full session within 10 s (own view done: \(allEstablished != nil), seen by \(seenBy.keys.sorted()))"
                )
            }
            // Clean stop, then wait until every peer has processed the goodbye, so each start is a clean restart.
            let status = try await d.stop()
            if status != 0 { print("  start \(i): \(name) exited with status \(status) after SIGTERM") }
            try await waitUntil("peers see \(name) leave", timeout: .seconds(5), poll: .milliseconds(10)) {
                running.allSatisfy { $0.peerState(name) != "established" }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...300)))
        }
        out.line(
            "node start series (\(series))",
            coldAvahi
                ? "drone-d started \(samples)x on host 4, state dir kept, host 4's avahi-daemon restarted 1.5 s before each start (empty cache)"
                : freshIdentity
                    ? "\(samples) starts on host 4, each a new node (own name, empty state dir, new id); SIGTERM between starts"
                    : "drone-d started \(samples)x on host 4 with its state dir kept (same id, new incarnation); SIGTERM between starts"
        )
        out.latency("\(series): start → all 3 sessions, own clock", ownAll)
        out.note("max over peers of NodeStatus.peers[].establishedAtMs (ms since the node's actor was created)")
        out.latency("\(series): start → all 3 sessions, wall clock", wallAll)
        out.note(
            "from posix_spawn of `scripts/lab exec 4 fleetmesh run` until the new node's control socket first reports station-a, drone-b, drone-c all \"established\" (polled every 5 ms)"
        )
        out.latency("\(series): start → all 3 discovered, own clock", ownDiscovered)
        out.note("max of NodeStatus.peers[].discoveredAtMs: Avahi browse+resolve part of the figures above")
        out.latency("\(series): spawn → control socket answers", socketUp)
        out.note(
            "process start-up until the first status answer (includes bash + nsenter + exec + runtime init); the gap between wall clock and own clock"
        )
        out.latency("\(series): spawn → all 3 peers show it established", peersSee)
        out.note(
            "the other side's view: latest of station-a, drone-b, drone-c polled every 5 ms (polling 4 sockets per round)"
        )
        if !freshIdentity && !coldAvahi {
            out.latency("harness: scripts/lab exec 4 true", harness)
            out.note("cost of bash + nsenter alone, included in every wall-clock figure here")
        }
        out.line(
            "\(series): starts not in session in 10 s",
            "\(failures) of \(samples) (excluded from the percentiles above)")
        out.ratio("\(series): own-clock p95 vs 0.4 s target", ownAll.p95 / 0.4, against: "target (≤ 1.00 x meets it)")
        out.ratio("\(series): wall-clock p95 vs 0.4 s target", wallAll.p95 / 0.4, against: "target (≤ 1.00 x meets it)")
        if !freshIdentity && !coldAvahi { lastStartP50 = ownAll.p50 }
        if coldAvahi { lastColdStartP50 = ownAll.p50 }
    }

    nonisolated(unsafe) static var lastStartP50 = Double.nan
    nonisolated(unsafe) static var lastColdStartP50 = Double.nan

    // MARK: 3 + 4. Loss detection and heal

    @discardableResult
    static func lossAndHeal(_ lab: Lab, _ out: BenchOutput, a: NodeProcess, b: NodeProcess, samples: Int) async throws
        -> Samples
    {
        var suspect = Samples()
        var lost = Samples()
        var healA = Samples()
        var healBoth = Samples()
        var failures = 0
        for i in 0..<samples {
            try await waitUntil("station-a and drone-b in session", timeout: .seconds(10), poll: .milliseconds(10)) {
                a.peerState("drone-b") == "established" && b.peerState("station-a") == "established"
            }
            // A random phase against the 50 ms heartbeats.
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...400)))
            try lab.lab("cut", "2")
            let cut = clock.now
            var suspectAt: ContinuousClock.Instant?
            var lostAt: ContinuousClock.Instant?
            while clock.now - cut < .seconds(5) {
                let state = a.peerState("drone-b")
                if suspectAt == nil, let state, state != "established" { suspectAt = clock.now }
                if state == "lost" {
                    lostAt = clock.now
                    break
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            try lab.lab("restore", "2")
            let restored = clock.now
            if let lostAt, let suspectAt {
                lost.add(lostAt - cut)
                suspect.add(suspectAt - cut)
            } else {
                failures += 1
                print("  cut \(i): station-a did not see drone-b lost within 5 s")
            }
            guard let (aBack, bBack) = try await backInSession(a, b, since: restored) else {
                throw LabError("cut \(i): the session did not heal within 15 s of restore")
            }
            healA.add(aBack - restored)
            healBoth.add(max(aBack, bBack) - restored)
        }
        out.latency("link cut → peer lost (station-a's view)", lost)
        out.note(
            "`lab cut 2` (drone-b's port off the bridge) until station-a's status shows drone-b \"lost\", polled every 5 ms; configured: lost after 750 ms of silence, 50 ms heartbeats, 10 ms ticks; QGroundControl 3.5 s, MAVSDK 3 s for comparison"
        )
        out.latency("link cut → peer suspect (station-a's view)", suspect)
        out.note("same cuts, first status not \"established\" (suspect after 250 ms of silence)")
        out.latency("heal: restore → established (station-a)", healA)
        out.note("`lab restore 2` until station-a's status shows drone-b \"established\" again, polled every 5 ms")
        out.latency("heal: restore → established (both sides)", healBoth)
        out.note("same, until station-a sees drone-b and drone-b sees station-a established")
        out.line("cuts not detected within 5 s", "\(failures) of \(samples)")
        out.ratio(
            "QGroundControl comm-lost 3.5 s vs lost p50", 3.5 / lost.p50, against: "FleetMesh lost p50 (x faster)")
        out.ratio("MAVSDK comm-lost 3 s vs lost p50", 3.0 / lost.p50, against: "FleetMesh lost p50 (x faster)")
        return healBoth
    }

    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
        return text.split(separator: " ").prefix(3).joined(separator: " ")
            + "  (\(ProcessInfo.processInfo.activeProcessorCount) cores)"
    }

    static let devNull: Int32 = open("/dev/null", O_WRONLY | O_CLOEXEC)
}

extension BenchOutput {
    /// One line saying what the figure above it measured.
    func note(_ text: String) {
        print("    ↳ " + text)
    }
}
