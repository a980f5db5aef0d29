import ControlProtocol
import Foundation
import LabKit
import Node

extension MeshLabBenchmarks {
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
