import ControlProtocol
import Foundation
import LabKit

/// Bytes on the air: real `fleetmesh run` processes in the namespaced lab, one station and N simulated drones, each
/// host's link counters (eth0's transmitted bytes and packets in its `/proc/net/dev`: every frame it put on the shared
/// segment, Ethernet header included) summed over a window, on the ground and flying. The curve, not a point: fleet
/// sizes from FLEETMESH_BENCH_AIRTIME_SIZES (default 4,8,12,16), window FLEETMESH_BENCH_AIRTIME_SECONDS (default 10).
/// The exponent is the log–log slope from the smallest to the largest fleet (1: linear in N, 2: every node talks to
/// every node). The baseline, in the same run: the same build with the group channel off (`[network] group = false`:
/// per-peer unicast), for the fleet sizes in FLEETMESH_BENCH_AIRTIME_BASELINE (default 4,8; empty: none). Each window
/// also gives the share of a core the station's process used, and a drone's on average. The formation (from the start
/// to every drone numbered and live at the station, plus 2 s) is reported too: how long it took, the CPU all the
/// nodes and all the hosts' avahi-daemons used, and the datagrams the kernel dropped because a node's mesh socket
/// receive buffer was full (the `drops` column of each host's /proc/net/udp and udp6: a node never sees them).
enum AirtimeBenchmarks {
    static let clock = ContinuousClock()

    struct Row {
        var nodes: Int
        var groundBits: Double, groundPackets: Double
        var flyingBits: Double, flyingPackets: Double
        /// Drones airborne (and live at the station) when the flying window began.
        var airborne: Int
        /// Peer losses all nodes logged during each window (a formed fleet on a quiet link: none).
        var groundLosses = 0, flyingLosses = 0
        /// Share of one core the station's process used during each window, and a drone's process on average.
        var groundCPU = CPUShares(), flyingCPU = CPUShares()
        /// The formation: seconds from the start to the ground window, CPU seconds of the nodes and of the
        /// avahi-daemons in that time, and datagrams the kernel dropped on the nodes' mesh sockets.
        /// Seconds from the start until every drone was numbered at the station (live or not): the mesh formed.
        var numberedSeconds = 0.0
        var formationSeconds = 0.0, formationNodeCPU = 0.0, formationAvahiCPU = 0.0, formationDrops = 0
        /// Datagrams the kernel dropped on the mesh sockets during each window.
        var groundDrops = 0, flyingDrops = 0
        /// At the end, the kernel's drops on the mesh sockets as /proc counts them, and the datagrams the nodes
        /// themselves count as lost unread (`fleetmesh status`: dropped by the kernel, and by their queues).
        var procDrops = 0, reportedKernelDrops = 0, reportedQueueDrops = 0
    }

    /// Shares of one core (1: a whole core) over a window.
    struct CPUShares {
        var station = Double.nan, drone = Double.nan
        var text: String {
            String(format: "station %.1f %%, a drone %.1f %% of a core", station * 100, drone * 100)
        }
    }

    static func run(_ out: BenchOutput) async throws {
        let environment = ProcessInfo.processInfo.environment
        let sizes = (environment["FLEETMESH_BENCH_AIRTIME_SIZES"] ?? "4,8,12,16").split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        let window = Double(environment["FLEETMESH_BENCH_AIRTIME_SECONDS"] ?? "") ?? 10
        out.heading("Bytes on the air: 1 station + N simulated drones, every host's transmitted frames summed")
        out.line("load average at start (1/5/15 min)", MeshLabBenchmarks.loadAverage())
        let baseline = (environment["FLEETMESH_BENCH_AIRTIME_BASELINE"] ?? "4,8").split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        var unicast: [Int: Row] = [:]
        for n in baseline where n > 0 {
            let r = try await measure(drones: n, window: window, group: false)
            unicast[n] = r
            out.line(
                "baseline, group off: \(n) drones + 1 station, ground / flying",
                String(
                    format: "%7.2f / %7.2f Mbit/s  %6.1f / %6.1f kbit/s per node", r.groundBits / 1e6,
                    r.flyingBits / 1e6, r.groundBits / 1e3 / Double(r.nodes), r.flyingBits / 1e3 / Double(r.nodes)))
        }
        var rows: [Row] = []
        for n in sizes where n > 0 {
            do {
                rows.append(try await measure(drones: n, window: window, group: true))
            } catch {
                // A fleet this machine cannot carry is a finding, not the end of the run.
                out.line("\(n) drones + 1 station", "not measured: \(error)")
                continue
            }
            let r = rows[rows.count - 1]
            out.line(
                "\(n) drones + 1 station, formation",
                String(
                    format:
                        "%5.1f s to all numbered, %5.1f s to all numbered and live + 2 s; nodes %5.1f, avahi-daemons %5.1f core-seconds; %d datagrams dropped by the kernel (receive buffers full)",
                    r.numberedSeconds, r.formationSeconds, r.formationNodeCPU, r.formationAvahiCPU, r.formationDrops))
            out.line(
                "\(n) drones + 1 station, on the ground",
                String(
                    format:
                        "%7.2f Mbit/s  %7.0f packets/s  %6.1f kbit/s per node  (%d peer losses, %d kernel drops; %@)",
                    r.groundBits / 1e6, r.groundPackets, r.groundBits / 1e3 / Double(r.nodes), r.groundLosses,
                    r.groundDrops, r.groundCPU.text))
            out.line(
                "\(n) drones + 1 station, flying",
                String(
                    format:
                        "%7.2f Mbit/s  %7.0f packets/s  %6.1f kbit/s per node  (%d of %d airborne, %d peer losses, %d kernel drops; %@)",
                    r.flyingBits / 1e6, r.flyingPackets, r.flyingBits / 1e3 / Double(r.nodes), r.airborne, n,
                    r.flyingLosses, r.flyingDrops, r.flyingCPU.text))
            out.line(
                "\(n) drones + 1 station, lost unread",
                "the nodes count \(r.reportedKernelDrops) dropped by the kernel (/proc: \(r.procDrops)) and \(r.reportedQueueDrops) by their queues"
            )
            if let u = unicast[n] {
                out.line(
                    "\(n) drones: group channel vs group off",
                    String(
                        format: "%.1f x fewer bytes on the ground, %.1f x flying", u.groundBits / r.groundBits,
                        u.flyingBits / r.flyingBits))
            }
        }
        if let first = rows.first, let last = rows.last, last.nodes > first.nodes {
            let span = log(Double(last.nodes) / Double(first.nodes))
            out.line(
                "growth with the fleet (bytes ∝ N^k)",
                String(
                    format: "k = %.2f on the ground, %.2f flying (%d → %d nodes)",
                    log(last.groundBits / first.groundBits) / span, log(last.flyingBits / first.flyingBits) / span,
                    first.nodes, last.nodes))
        }
        out.line("load average at end (1/5/15 min)", MeshLabBenchmarks.loadAverage())
    }

    /// One fleet: formed, measured on the ground, taken off to 10 m, measured flying (bits and packets per second).
    static func measure(drones n: Int, window: Double, group: Bool) async throws -> Row {
        try await Lab.with(hosts: n + 1) { lab in
            let network = group ? "" : "group = false"
            let started = clock.now
            let avahiBefore = avahiCPUSeconds()
            let fleet = try lab.startFleet(stations: 1, drones: n, columns: 5, network: network)
            let station = fleet.stations[0]
            let nodes = fleet.stations + fleet.drones
            func losses() -> Int { nodes.reduce(0) { $0 + $1.peerLossesLogged } }
            var numberedAt: ContinuousClock.Instant?
            try await waitUntil(
                "\(n) drones numbered and live at the station", timeout: .seconds(30 + 3 * n), poll: .milliseconds(250)
            ) {
                let vehicles = try FleetLabBenchmarks.vehicles(station)
                if numberedAt == nil, vehicles.filter({ $0.uavNumber != nil }).count == n { numberedAt = clock.now }
                return vehicles.filter { !$0.stale && $0.uavNumber != nil }.count == n
            }
            let numberedSeconds = ((numberedAt ?? clock.now) - started).seconds
            try await Task.sleep(for: .seconds(2))  // the formation's handshakes and adverts are not the steady state
            let pids = try nodes.map { try ChildProcess.descendant(of: $0.process.pid, named: "fleetmesh") }
            let formationSeconds = (clock.now - started).seconds
            let formationNodeCPU = try pids.reduce(0) { $0 + (try FleetLabBenchmarks.cpuSeconds(pid: $1)) }
            let formationAvahiCPU = avahiCPUSeconds() - avahiBefore
            let formationDrops = kernelDrops(pids)
            let lossesBefore = losses()
            var cpu = try CPUWindow(pids: pids)
            let ground = try await counted(lab, hosts: n + 1, seconds: window)
            let groundCPU = try cpu.shares()
            let lossesOnTheGround = losses() - lossesBefore
            let groundDrops = kernelDrops(pids) - formationDrops
            for v in try FleetLabBenchmarks.vehicles(station) {
                guard let uav = v.uavNumber else { continue }
                _ = try? ControlClient.request(
                    ControlRequest.send(.init(uav: uav, args: ["takeoff", "10"], timeoutMs: 100)),
                    socket: station.socketPath, timeout: .seconds(5))
            }
            // Measured even if not all of them make it (a saturated machine): the row then says how many flew.
            _ = try? await waitUntil("\(n) drones airborne", timeout: .seconds(30), poll: .milliseconds(250)) {
                try FleetLabBenchmarks.vehicles(station).filter { !$0.stale && $0.altitude > 9 }.count == n
            }
            let airborne = try FleetLabBenchmarks.vehicles(station).filter { !$0.stale && $0.altitude > 9 }.count
            let lossesBeforeFlying = losses()
            let dropsBeforeFlying = kernelDrops(pids)
            cpu = try CPUWindow(pids: pids)
            let flying = try await counted(lab, hosts: n + 1, seconds: window)
            let flyingCPU = try cpu.shares()
            let procDrops = kernelDrops(pids)
            let reported = nodes.compactMap { try? $0.status().node.traffic }
            return Row(
                nodes: n + 1, groundBits: ground.bytes * 8, groundPackets: ground.packets, flyingBits: flying.bytes * 8,
                flyingPackets: flying.packets, airborne: airborne, groundLosses: lossesOnTheGround,
                flyingLosses: losses() - lossesBeforeFlying, groundCPU: groundCPU, flyingCPU: flyingCPU,
                numberedSeconds: numberedSeconds, formationSeconds: formationSeconds,
                formationNodeCPU: formationNodeCPU,
                formationAvahiCPU: formationAvahiCPU, formationDrops: formationDrops, groundDrops: groundDrops,
                flyingDrops: procDrops - dropsBeforeFlying, procDrops: procDrops,
                reportedKernelDrops: reported.reduce(0) { $0 + ($1.droppedByKernel ?? 0) },
                reportedQueueDrops: reported.reduce(0) { $0 + ($1.droppedByQueue ?? 0) })
        }
    }

    /// CPU seconds used so far by every avahi-daemon on the machine: the lab's (none runs on the host's own network).
    static func avahiCPUSeconds() -> Double {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.reduce(0) { sum, entry in
            guard let pid = Int32(entry),
                (try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "avahi-daemon"
            else { return sum }
            return sum + ((try? FleetLabBenchmarks.cpuSeconds(pid: pid)) ?? 0)
        }
    }

    /// Datagrams the kernel dropped so far on the mesh sockets (port 47800) of the nodes `pids`, each seen in its own
    /// network namespace (/proc/PID/net/udp and udp6: the last column counts datagrams dropped for a full receive
    /// buffer, for each socket).
    static func kernelDrops(_ pids: [Int32]) -> Int {
        pids.reduce(0) { sum, pid in
            ["udp", "udp6"].reduce(sum) { sum, table in
                let text = (try? String(contentsOfFile: "/proc/\(pid)/net/\(table)", encoding: .utf8)) ?? ""
                return text.split(separator: "\n").dropFirst().reduce(sum) { sum, line in
                    let fields = line.split(separator: " ")
                    guard fields.count > 2, fields[1].hasSuffix(":BAB8"), let drops = Int(fields[fields.count - 1])
                    else { return sum }
                    return sum + drops
                }
            }
        }
    }

    /// The CPU time of the fleet's processes (the station's first) from now until `shares()`.
    struct CPUWindow {
        let pids: [Int32]
        let start: ContinuousClock.Instant
        let used: [Double]

        init(pids: [Int32]) throws {
            self.pids = pids
            start = clock.now
            used = try pids.map { try FleetLabBenchmarks.cpuSeconds(pid: $0) }
        }

        func shares() throws -> CPUShares {
            let wall = (clock.now - start).seconds
            let shares = try zip(pids, used).map { (try FleetLabBenchmarks.cpuSeconds(pid: $0) - $1) / wall }
            let drones = shares.dropFirst()
            return CPUShares(station: shares[0], drone: drones.reduce(0, +) / Double(max(1, drones.count)))
        }
    }

    /// Bytes and packets per second that every host transmitted on its link over `seconds`.
    static func counted(_ lab: Lab, hosts: Int, seconds: Double) async throws -> (bytes: Double, packets: Double) {
        let rate = try await lab.transmissionRate(hosts: hosts, seconds: seconds)
        return (rate.bytes, rate.packets)
    }
}
