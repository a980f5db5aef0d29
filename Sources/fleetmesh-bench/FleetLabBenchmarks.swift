import ControlProtocol
import Foundation
import LabKit
import Node

/// The coordinator's figures on real processes in the lab: command round trips direct and through a relay, a
/// 100 Hz manual-control stream to 10 drones, and a station's CPU under fleets of emulated drones.
enum FleetLabBenchmarks {
    static let clock = ContinuousClock()

    static var samples: Int {
        max(1, Int(ProcessInfo.processInfo.environment["FLEETMESH_BENCH_LAB_SAMPLES"] ?? "") ?? 30)
    }

    static func commands(_ out: BenchOutput) async throws {
        out.heading("Fleet: command round trip on real processes (station — near — far, lab)")
        out.line("load average at start (1/5/15 min)", MeshLabBenchmarks.loadAverage())
        try await commandRoundTrips(out, samples: samples * 2)
    }

    static func manual(_ out: BenchOutput) async throws {
        out.heading("Fleet: manual control at 100 Hz to 10 drones (11 lab hosts)")
        out.line("load average at start (1/5/15 min)", MeshLabBenchmarks.loadAverage())
        try await manualControl(out)
    }

    /// The same stream while the station also carries 100 emulated drones on the ground (issue #16).
    static func manualUnderFleet(_ out: BenchOutput) async throws {
        out.heading("Fleet: manual control at 100 Hz to 10 drones while the station carries 100 more (12 lab hosts)")
        out.line("load average at start (1/5/15 min)", MeshLabBenchmarks.loadAverage())
        try await manualControl(out, emulated: 100)
    }

    /// The same with the 100 emulated drones on the station's link (`startEmulatorOnTheLink`), as in the field.
    static func manualUnderFleetOnTheLink(_ out: BenchOutput) async throws {
        out.heading("Fleet: manual control at 100 Hz to 10 drones while the station carries 100 more on its link")
        out.line("load average at start (1/5/15 min)", MeshLabBenchmarks.loadAverage())
        try await manualControl(out, emulated: 100, onTheLink: true)
    }

    /// Starts `emulate-drones` for `n` drones on the lab's shared link: `scripts/lab bare` makes a namespace for each
    /// (host numbers 101…), and the emulator, run outside the lab's hosts (their mount namespaces do not see
    /// namespaces made after them), makes each drone's socket in its own. Its output goes to `emulator.log`.
    static func startEmulatorOnTheLink(
        _ lab: Lab, drones n: Int, station: String, seconds: Int
    ) throws -> ChildProcess {
        try lab.lab("bare", "101", String(100 + n))
        let log = lab.directory.appendingPathComponent("emulator.log").path
        let fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LabError("cannot create \(log)") }
        defer { close(fd) }
        return try ChildProcess(
            [
                CommandLine.arguments[0], "emulate-drones", String(n), station, lab.keyPath,
                lab.directory.path + "/emu", String(seconds), "--group-namespaces", "/run/netns/\(lab.name)-b", "101",
            ], outputFD: fd)
    }

    static func station(_ out: BenchOutput) async throws {
        out.heading("Fleet: station CPU under emulated drones (star: the station relays every prediction)")
        out.line("load average at start (1/5/15 min)", MeshLabBenchmarks.loadAverage())
        try await stationLoad(out)
    }

    static func vehicles(_ node: NodeProcess) throws -> [VehicleReport] {
        try ControlClient.request(ControlRequest.vehicles, socket: node.socketPath, timeout: .seconds(2)).vehicles ?? []
    }

    static func number(of drone: NodeProcess, seenBy station: NodeProcess) async throws -> Int {
        var n = 0
        try await waitUntil("\(station.name) sees \(drone.name) live with a number", timeout: .seconds(20)) {
            guard let own = try drone.status().node.uavNumber else { return false }
            n = own
            return try vehicles(station).contains { $0.uavNumber == own && !$0.stale }
        }
        return n
    }

    static func send(_ station: NodeProcess, _ n: Int, _ words: [String]) throws -> CommandReport {
        let r = try ControlClient.request(
            ControlRequest.send(.init(uav: n, args: words, timeoutMs: 20_000)),
            socket: station.socketPath, timeout: .seconds(25))
        guard let c = r.command else { throw LabError(r.error ?? "no command report") }
        return c
    }

    // MARK: Command round trip

    /// station — near — far (block 1 3): `hover` to an airborne drone, accepted and completed at once, so the control
    /// request's wall time is the mesh round trip plus the control socket. Baseline: a `status` request on the same
    /// socket in the same run (the control socket alone).
    static func commandRoundTrips(_ out: BenchOutput, samples: Int) async throws {
        try await Lab.with(hosts: 3) { lab in
            try lab.lab("block", "1", "3")
            let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "warning")
            let near = try lab.startNode(host: 2, name: "near", logLevel: "warning")
            let far = try lab.startNode(host: 3, name: "far", logLevel: "warning")
            let nearN = try await number(of: near, seenBy: station)
            let farN = try await number(of: far, seenBy: station)
            for n in [nearN, farN] {
                let up = try send(station, n, ["takeoff", "3"])
                guard up.succeeded else { throw LabError("takeoff of UAV \(n) failed: \(up)") }
            }
            var socket = Samples(), direct = Samples(), relayed = Samples()
            for _ in 0..<samples {
                var t0 = clock.now
                _ = try station.status()
                socket.add(clock.now - t0)
                t0 = clock.now
                guard try send(station, nearN, ["hover"]).succeeded else { throw LabError("hover refused") }
                direct.add(clock.now - t0)
                t0 = clock.now
                guard try send(station, farN, ["hover"]).succeeded else { throw LabError("hover refused") }
                relayed.add(clock.now - t0)
            }
            out.latency("control socket alone (status request)", socket)
            out.latency("command round trip, direct (send → done)", direct)
            out.latency("command round trip, one relay", relayed)
            out.ratio("relay / direct, p50", relayed.p50 / direct.p50, against: "direct")
            out.ratio("SSH at ~1 s / direct p50", 1.0 / direct.p50, against: "the SSH link it replaces")
        }
    }

    // MARK: Manual control

    /// One station streams 100 Hz to 10 drones for 5 s; each drone reports what it obeyed. With `emulated` drones
    /// (`emulate-drones` on host 12, the station their only peer, on the ground) the station carries them too; the
    /// stream starts once it hears all of them live, and the station's CPU during the stream is reported. `onTheLink`:
    /// the emulated drones share the station's link (and the ten drones') instead.
    static func manualControl(_ out: BenchOutput, emulated: Int = 0, onTheLink: Bool = false) async throws {
        try await Lab.with(hosts: emulated > 0 && !onTheLink ? 12 : 11) { lab in
            var linked: ChildProcess?
            defer { linked?.signal(SIGKILL) }
            let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "warning")
            let drones = try (2...11).map { try lab.startNode(host: $0, name: "d\($0)", logLevel: "warning") }
            var numbers: [Int] = []
            // Ten drones starting together may briefly claim the same number (the mesh settles it): ask again until
            // the ten are distinct.
            let deadline = clock.now + .seconds(20)
            repeat {
                numbers = []
                for d in drones { numbers.append(try await number(of: d, seenBy: station)) }
                if Set(numbers).count == drones.count { break }
                try await Task.sleep(for: .milliseconds(500))
            } while clock.now < deadline
            guard Set(numbers).count == drones.count else { throw LabError("UAV numbers not distinct: \(numbers)") }
            for n in numbers {
                let up = try send(station, n, ["takeoff", "5"])
                guard up.succeeded else { throw LabError("takeoff of UAV \(n) failed: \(up.answers)") }
            }
            if emulated > 0 && onTheLink {
                // Every drone hears the station, none another drone (a station in the middle of its fleet): the ten
                // drones would otherwise each hold a session with all 100 emulated ones, 1,000 more sessions than the
                // machine's two cores carry.
                for host in 2...11 { try lab.lab("isolate", String(host)) }
                linked = try startEmulatorOnTheLink(
                    lab, drones: emulated, station: "\(try lab.address(1)):47800", seconds: 120)
            } else if emulated > 0 {
                _ = try lab.start(
                    host: 12, tag: "emulator",
                    [
                        CommandLine.arguments[0], "emulate-drones", String(emulated), "\(try lab.address(1)):47800",
                        lab.keyPath, lab.directory.path + "/emu", "120",
                    ])
            }
            if emulated > 0 {
                let total = emulated + drones.count
                try await waitUntil(
                    "the station hears \(total) live drones", timeout: .seconds(60), poll: .milliseconds(250)
                ) {
                    try vehicles(station).filter { !$0.stale && $0.uavNumber != nil }.count == total
                }
                // A few seconds of the steady state before the stream.
                try await Task.sleep(for: .seconds(3))
            }
            let pid = try ChildProcess.descendant(of: station.process.pid, named: "fleetmesh")
            let (t0, cpu0) = (clock.now, try cpuSeconds(pid: pid))
            let request = ControlRequest.manual(
                .init(uavs: numbers, rateHz: 100, durationMs: 5000, axes: [200, 0, 0, 0]))
            let r = try ControlClient.request(request, socket: station.socketPath, timeout: .seconds(15))
            guard let sent = r.manual else { throw LabError(r.error ?? "no manual report") }
            let stationShare = (try cpuSeconds(pid: pid) - cpu0) / (clock.now - t0).seconds
            var rates: [Double] = [], p50s: [Double] = [], p99s: [Double] = [], gaps: [Double] = [], lost: [Int] = []
            var maxGaps: [Double] = []
            for d in drones {
                guard let m = try d.status().manualControl else { throw LabError("\(d.name) got no manual control") }
                rates.append(m.rateHz ?? 0)
                p50s.append(m.latencyP50Ms ?? .nan)
                p99s.append(m.latencyP99Ms ?? .nan)
                gaps.append(m.gapP99Ms ?? .nan)
                maxGaps.append(m.gapMaxMs ?? .nan)
                lost.append(sent.samplesPerUAV - m.received)
            }
            out.line(
                "manual control: sent per drone",
                String(format: "%d samples at %.1f Hz (10 drones, 5 s)", sent.samplesPerUAV, sent.sentRateHz))
            out.line(
                "  rate held at the drones (min / max)", String(format: "%.1f / %.1f Hz", rates.min()!, rates.max()!))
            out.line("  samples lost (sum over 10 drones)", "\(lost.reduce(0, +))")
            out.line(
                "  latency p50 (median / worst drone)", String(format: "%.2f / %.2f ms", p50s.sorted()[5], p50s.max()!))
            out.line(
                "  latency p99 (median / worst drone)", String(format: "%.2f / %.2f ms", p99s.sorted()[5], p99s.max()!))
            out.line("  gap between samples p99 (worst drone)", String(format: "%.2f ms (period 10 ms)", gaps.max()!))
            out.line("  gap between samples max (worst drone)", String(format: "%.2f ms", maxGaps.max()!))
            out.line(
                "  station CPU during the stream",
                String(
                    format: "%.1f %% of one core (%d drones live in its picture)", stationShare * 100,
                    try vehicles(station).filter { !$0.stale }.count))
        }
    }

    // MARK: Station load

    /// A station on host 1 and N emulated drones (`emulate-drones`, one process on host 2, each drone its own node
    /// and socket, the station its only peer: a star). On the ground they send 10 Hz telemetry and heartbeats; flying,
    /// each also publishes 5 Hz predictions that the station relays to every other drone (N² messages). The
    /// station's CPU time over 10 s comes from /proc; baseline: the same station with no drones.
    ///
    /// A fleet marked `l` is on the station's link instead: each drone in a network namespace of its own on the lab's
    /// bridge, on the group channel (`startEmulatorOnTheLink`), as drones sharing a radio segment with their station.
    static func stationLoad(_ out: BenchOutput) async throws {
        let bench = CommandLine.arguments[0]
        // FLEETMESH_BENCH_STATION picks the fleets: a number of drones, `f` flying, `l` on the station's link.
        let fleets =
            (ProcessInfo.processInfo.environment["FLEETMESH_BENCH_STATION"]
            ?? "0,10,50,100,10f,25f,100l,25lf")
            .split(separator: ",").compactMap { item -> (Int, Bool, Bool)? in
                Int(item.filter(\.isNumber)).map { ($0, item.contains("f"), item.contains("l")) }
            }
        for (n, flying, onTheLink) in fleets {
            try await Lab.with(hosts: 2) { lab in
                let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "warning")
                let address = try lab.address(1)
                var emulator: LabProgram?
                var linked: ChildProcess?
                defer { linked?.signal(SIGKILL) }
                if n > 0 && onTheLink {
                    linked = try startEmulatorOnTheLink(lab, drones: n, station: "\(address):47800", seconds: 90)
                } else if n > 0 {
                    emulator = try lab.start(
                        host: 2, tag: "emulator",
                        [
                            bench, "emulate-drones", String(n), "\(address):47800",
                            lab.keyPath, lab.directory.path + "/emu", "90",
                        ])
                }
                if n > 0 {
                    // Measured even if not all of them make it: the figure then says how many were live.
                    _ = try? await waitUntil(
                        "the station hears \(n) live drones", timeout: .seconds(40), poll: .milliseconds(250)
                    ) {
                        try vehicles(station).filter { !$0.stale && $0.uavNumber != nil }.count == n
                    }
                    if flying {
                        for v in try vehicles(station) {
                            guard let uav = v.uavNumber else { continue }
                            _ = try? ControlClient.request(
                                ControlRequest.send(.init(uav: uav, args: ["takeoff", "5"], timeoutMs: 100)),
                                socket: station.socketPath, timeout: .seconds(5))
                        }
                        _ = try? await waitUntil(
                            "\(n) drones airborne", timeout: .seconds(20), poll: .milliseconds(250)
                        ) {
                            try vehicles(station).filter { !$0.stale && $0.altitude > 4 }.count == n
                        }
                    }
                } else {
                    try await Task.sleep(for: .seconds(2))
                }
                let pid = try ChildProcess.descendant(of: station.process.pid, named: "fleetmesh")
                let t0 = clock.now
                let cpu0 = try cpuSeconds(pid: pid)
                let emulatorPid =
                    try emulator.map {
                        try ChildProcess.descendant(of: $0.process.pid, named: "fleetmesh-bench")
                    } ?? linked?.pid
                let emu0 = try emulatorPid.map { try cpuSeconds(pid: $0) }
                try await Task.sleep(for: .seconds(10))
                let wall = (clock.now - t0).seconds
                let share = (try cpuSeconds(pid: pid) - cpu0) / wall
                let live = try vehicles(station).filter { !$0.stale }
                var note =
                    "\(live.count) live in the fleet picture"
                    + (flying ? ", \(live.filter { $0.altitude > 4 }.count) airborne" : "")
                if let emu0, let emulatorPid {
                    let emuShare = (try cpuSeconds(pid: emulatorPid) - emu0) / wall
                    note += String(format: "; emulator process %.0f %% of a core", emuShare * 100)
                }
                // What the station's socket carried: a figure far from about 22 datagrams in and 20 out per drone on
                // the ground says the mesh misbehaved, not the station's CPU.
                if let traffic = try? station.status().node.traffic {
                    note += String(
                        format: "; station datagrams in %.0f/s, out %.0f/s", traffic.datagramsInPerSecond,
                        traffic.datagramsOutPerSecond)
                }
                let label =
                    "station CPU, \(n) drones " + (flying ? "flying" : "on the ground")
                    + (onTheLink ? ", on its link" : "")
                out.line(label, String(format: "%5.1f %% of one core  (%@)", share * 100, note))
            }
        }
    }

    /// utime + stime of `pid`, in seconds.
    static func cpuSeconds(pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15 (1-based over the whole line).
        let utime = Double(fields[11])!, stime = Double(fields[12])!
        return (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
