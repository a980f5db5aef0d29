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
        out.note("max over peers of NodeStatus.peers[].establishedAtMs (ms since the node's MeshNode was created)")
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

    // MARK: 2. Avahi's own figures, same lab

    static func avahiFigures(_ lab: Lab, _ out: BenchOutput, samples: Int) async throws {
        let (publisherHost, browserHost) = (4, 3)
        let tag = "fmb\(getpid() % 10000)"
        // For (b, cold), published now: its announcements must be over before a restarted daemon could catch them.
        let coldName = "\(tag)-cold"
        let coldPublisher = try ChildProcess(
            lab.onHost(browserHost, ["avahi-publish", "-s", coldName, "_fmbench._udp", "8998"]), outputFD: devNull)
        defer {
            coldPublisher.signal(SIGKILL)
            coldPublisher.wait()
        }
        // (a) A browser already runs on B; a service is published on A.
        let browser = try LineStream(
            lab.onHost(browserHost, ["stdbuf", "-oL", "avahi-browse", "-rp", "_fmbench._udp"]))
        defer { browser.stop() }
        try await Task.sleep(for: .seconds(1))
        var publishToResolved = Samples()
        var failures = 0
        for i in 0..<samples {
            let name = "\(tag)-\(i)"
            let mark = browser.count
            let t0 = clock.now
            let publisher = try ChildProcess(
                lab.onHost(publisherHost, ["avahi-publish", "-s", name, "_fmbench._udp", String(9000 + i)]),
                outputFD: devNull)
            if let (at, _) = await browser.first(from: mark, timeout: .seconds(5), where: { resolved($0, name) }) {
                publishToResolved.add(at - t0)
            } else {
                failures += 1
            }
            let removalMark = browser.count
            // Children inherit a mask that blocks SIGTERM; the daemon withdraws on disconnect.
            publisher.signal(SIGKILL)
            publisher.wait()
            _ = await browser.first(from: removalMark, timeout: .seconds(3)) {
                $0.hasPrefix("-;") && field($0, 3) == name
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...300)))
        }

        // (b) The service is already published on A; a fresh browser on B (-t: exits when done) resolves it.
        let staticName = "\(tag)-static"
        let publisher = try ChildProcess(
            lab.onHost(publisherHost, ["avahi-publish", "-s", staticName, "_fmbench._udp", "8999"]), outputFD: devNull)
        defer {
            publisher.signal(SIGKILL)
            publisher.wait()
        }
        let mark = browser.count
        guard await browser.first(from: mark, timeout: .seconds(5), where: { resolved($0, staticName) }) != nil else {
            throw LabError("avahi: \(staticName) never resolved on host \(browserHost)")
        }
        browser.stop()
        var freshBrowse = Samples()
        for _ in 0..<samples {
            let t0 = clock.now
            let fresh = try LineStream(
                lab.onHost(browserHost, ["stdbuf", "-oL", "avahi-browse", "-rpt", "_fmbench._udp"]))
            if let (at, _) = await fresh.first(from: 0, timeout: .seconds(5), where: { resolved($0, staticName) }) {
                freshBrowse.add(at - t0)
            } else {
                failures += 1
            }
            fresh.stop()
            try await Task.sleep(for: .milliseconds(Int.random(in: 100...200)))
        }

        // (b, cold) The same with an empty cache: the service published on host 3 at the start (its announcements
        // long over) and the browser's daemon (host 4) restarted 1.5 s before each fresh browser (not timed).
        var coldBrowse = Samples()
        for _ in 0..<samples {
            try lab.lab("avahi-stop", String(publisherHost))
            try lab.lab("avahi-start", String(publisherHost))
            try await Task.sleep(for: .milliseconds(1500))
            let t0 = clock.now
            let fresh = try LineStream(
                lab.onHost(publisherHost, ["stdbuf", "-oL", "avahi-browse", "-rpt", "_fmbench._udp"]))
            if let (at, _) = await fresh.first(from: 0, timeout: .seconds(5), where: { resolved($0, coldName) }) {
                coldBrowse.add(at - t0)
            } else {
                failures += 1
            }
            fresh.stop()
        }
        out.latency("avahi: publish on A → resolved on B", publishToResolved)
        out.note(
            "spawn of `avahi-publish -s NAME _fmbench._udp PORT` on host \(publisherHost) until the running `avahi-browse -rp` on host \(browserHost) prints its '=' line (unique name per sample; reference here earlier: p50 900 ms, p95 960 ms)"
        )
        out.latency("avahi: fresh browser resolves published", freshBrowse)
        out.note(
            "spawn of `avahi-browse -rpt _fmbench._udp` on host \(browserHost) until its first '=' line for a service already published on host \(publisherHost); host \(browserHost)'s daemon cache is warm (reference here earlier: p50 170 ms, p95 230 ms)"
        )
        out.latency("avahi: fresh browser, cold daemon cache", coldBrowse)
        out.note(
            "same on host \(publisherHost) for a service published on host \(browserHost), host \(publisherHost)'s avahi-daemon restarted 1.5 s before each browser (empty cache)"
        )
        out.line("avahi samples not resolved within 5 s", "\(failures) of \(3 * samples)")
        out.ratio(
            "node restart p50 (own) vs avahi publish→resolve", lastStartP50 / publishToResolved.p50,
            against: "avahi publish→resolve p50, same run")
        out.ratio(
            "node restart p50 (own) vs avahi fresh browse", lastStartP50 / freshBrowse.p50,
            against: "avahi fresh browse p50, same run")
        out.ratio(
            "cold-avahi start p50 (own) vs cold browse", lastColdStartP50 / coldBrowse.p50,
            against: "avahi cold-cache browse p50, same run")
    }

    static func resolved(_ line: String, _ name: String) -> Bool { line.hasPrefix("=;") && field(line, 3) == name }

    static func field(_ line: String, _ i: Int) -> String? {
        let parts = line.split(separator: ";", omittingEmptySubsequences: false)
        return parts.count > i ? String(parts[i]) : nil
    }

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

/// A child process whose output lines are collected, each stamped on arrival by a reader thread.
final class LineStream: @unchecked Sendable {
    private let process: ChildProcess
    private let lock = NSLock()
    private var lines: [(ContinuousClock.Instant, String)] = []
    private let readFD: Int32

    init(_ arguments: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw LabError("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        do {
            process = try ChildProcess(arguments, outputFD: fds[1])
        } catch {
            close(fds[0])
            close(fds[1])
            throw error
        }
        close(fds[1])
        readFD = fds[0]
        let thread = Thread { [self] in self.readLoop() }
        thread.start()
    }

    private func readLoop() {
        let clock = ContinuousClock()
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = read(readFD, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            let at = clock.now
            pending += buffer[0..<n]
            while let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                lock.lock()
                lines.append((at, line))
                lock.unlock()
            }
        }
        close(readFD)
    }

    var count: Int { lock.withLock { lines.count } }

    private func lines(from index: Int) -> [(ContinuousClock.Instant, String)] {
        lock.withLock { index < lines.count ? Array(lines[index...]) : [] }
    }

    /// The first line at index ≥ `from` matching `predicate`, with its arrival time; nil after `timeout`.
    func first(from: Int, timeout: Duration, where predicate: (String) -> Bool) async -> (
        ContinuousClock.Instant, String
    )? {
        let clock = ContinuousClock()
        let start = clock.now
        var next = from
        while clock.now - start < timeout {
            let fresh = lines(from: next)
            next += fresh.count
            if let hit = fresh.first(where: { predicate($0.1) }) { return hit }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// SIGKILL: processes spawned from Swift's concurrency threads inherit a signal mask that blocks SIGTERM.
    func stop() {
        process.signal(SIGKILL)
        process.wait()
    }
}
