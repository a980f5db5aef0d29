import ControlProtocol
import Foundation
import LabKit
import Node
import Testing

/// The coordinator at fleet scale in real processes: five drones and two stations, a killed station's leases and the
/// failsafe, exactly-once commands at 30 % loss on every link, and a numbering clash across a healed partition.
@Suite(.serialized) struct FleetLabTests {
    func vehicles(_ node: NodeProcess) throws -> [VehicleReport] {
        try ControlClient.request(ControlRequest.vehicles, socket: node.socketPath, timeout: .seconds(2)).vehicles ?? []
    }

    func send(_ station: NodeProcess, _ args: [String], timeout: Int = 15) throws -> (status: Int32, output: String) {
        try shell([try fleetmeshBinary(), "send", "--node", station.socketPath, "--timeout", String(timeout)] + args)
    }

    /// The number each drone reports for itself, once all of them have one and `stations` see them all, live.
    func settledNumbers(_ drones: [NodeProcess], seenBy stations: [NodeProcess], timeout: Duration = .seconds(20))
        async throws -> [String: Int]
    {
        var numbers: [String: Int] = [:]
        try await waitUntil(
            "\(drones.count) drones with distinct numbers, seen live by every station", timeout: timeout,
            poll: .milliseconds(100)
        ) {
            numbers = [:]
            for d in drones { numbers[d.name] = try d.status().node.uavNumber }
            guard numbers.count == drones.count, Set(numbers.values).count == drones.count else { return false }
            return try stations.allSatisfy { s in
                let live = try vehicles(s).filter { !$0.stale }
                return numbers.allSatisfy { name, n in live.contains { $0.name == name && $0.uavNumber == n } }
            }
        }
        return numbers
    }

    /// When each drone's vehicle took the command whose verdict event ends with `suffix` (`takeoff 4 accepted`), from the
    /// drones' own event logs: wall-clock milliseconds, and every lab host shares one clock.
    func startTimes(_ drones: [NodeProcess], _ suffix: String, after: [String: Int] = [:]) throws -> [String: Int64] {
        var times: [String: Int64] = [:]
        for d in drones {
            let events =
                try ControlClient.request(
                    ControlRequest.events(.init(after: after[d.name] ?? 0, limit: 1000)), socket: d.socketPath,
                    timeout: .seconds(2)
                ).events?.events ?? []
            if let e = events.last(where: { $0.kind == "command" && $0.text.hasSuffix(suffix) }) {
                times[d.name] = e.timeMs
            }
        }
        return times
    }

    /// The latest event number of each drone, to read only what comes after.
    func latestEvents(_ drones: [NodeProcess]) throws -> [String: Int] {
        try Dictionary(
            uniqueKeysWithValues: drones.map { d in
                (
                    d.name,
                    try ControlClient.request(
                        ControlRequest.events(.init(after: 0, limit: 1)), socket: d.socketPath, timeout: .seconds(2)
                    ).events?.latest ?? 0
                )
            })
    }

    func spread(_ times: [String: Int64]) -> Int64 { (times.values.max() ?? 0) - (times.values.min() ?? 0) }

    /// Also the group command at one moment (issue #14): five drones, one of them (drone-7) out of station-a's range
    /// and reached through a relay, start a scheduled takeoff and hover together; their start moments, from their own
    /// event logs on the lab's one clock, lie within 50 ms. The same hover sent the unscheduled way (five `send`
    /// requests at once, as the page used to) is measured for comparison.
    @Test func fiveDronesTwoStationsAndAKilledStationsLeasesAndFailsafe() async throws {
        try await Lab.with(hosts: 7) { lab in
            // station-a cannot hear drone-7: its commands go through a relay.
            try lab.lab("block", "1", "7")
            let a = try lab.startNode(host: 1, name: "station-a", role: "station")
            let b = try lab.startNode(host: 2, name: "station-b", role: "station")
            let drones = try (3...7).map { try lab.startNode(host: $0, name: "drone-\($0)", logLevel: "info") }
            let clock = ContinuousClock()
            let started = clock.now
            let numbers = try await settledNumbers(drones, seenBy: [a, b])
            print(
                "5 drones + 2 stations: numbers \(numbers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")) settled and seen by both stations \(clock.now - started) after start"
            )
            #expect(numbers.values.allSatisfy { (1...250).contains($0) })
            // Stations carry no number.
            #expect(try a.status().node.uavNumber == nil && b.status().node.uavNumber == nil)

            // station-a flies all five at one moment: a takeoff scheduled 1.5 s ahead on every drone's clock.
            let all = drones.map { String(numbers[$0.name]!) }.joined(separator: ",")
            let up = try send(a, ["--together", "--json", all, "takeoff", "4"])
            #expect(up.status == 0, "\(up.output)")
            let group = try JSONDecoder().decode(GroupCommandReport.self, from: Data(up.output.utf8))
            #expect(group.commands.count == 5 && group.succeeded)
            let takeoff = try startTimes(drones, "takeoff 4 accepted")
            #expect(takeoff.count == 5, "\(takeoff)")
            // Every drone started on its own clock at the station's moment (the log's milliseconds truncate).
            #expect(takeoff.values.allSatisfy { abs($0 - group.startsAtMs) <= 50 }, "\(takeoff) vs \(group.startsAtMs)")
            #expect(spread(takeoff) <= 50, "\(takeoff)")
            #expect(drones[4].log.contains("starts as scheduled"))
            // The unscheduled way: five sends at once, one per drone.
            let before = try latestEvents(drones)
            let uavs = drones.map { numbers[$0.name]! }
            let socket = a.socketPath
            await withTaskGroup(of: Void.self) { tasks in
                for n in uavs {
                    tasks.addTask {
                        _ = try? ControlClient.request(
                            ControlRequest.send(.init(uav: n, args: ["hover"], timeoutMs: 10_000)), socket: socket,
                            timeout: .seconds(15))
                    }
                }
            }
            let unscheduled = try startTimes(drones, "hover accepted", after: before)
            #expect(unscheduled.count == 5, "\(unscheduled)")
            let beforeGroup = try latestEvents(drones)
            let hover = try send(a, ["--together", "--lead", "1", all, "hover"])
            #expect(hover.status == 0, "\(hover.output)")
            let scheduled = try startTimes(drones, "hover accepted", after: beforeGroup)
            #expect(scheduled.count == 5 && spread(scheduled) <= 50, "\(scheduled)")
            let timers = drones.flatMap { d in
                d.log.split(separator: "\n").filter { $0.contains("starts as scheduled") }.compactMap {
                    $0.split(separator: "(").last.map { "\(d.name) \($0.prefix { $0 != " " })" }
                }
            }
            print(
                "group commands to 5 drones (drone-7 relayed): start spread scheduled takeoff \(spread(takeoff)) ms (each from the station's moment: \(takeoff.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value - group.startsAtMs)" }.joined(separator: ", ")) ms), scheduled hover \(spread(scheduled)) ms, unscheduled hover (5 sends at once) \(spread(unscheduled)) ms; timers fired late by (ms) \(timers.joined(separator: ", "))"
            )
            // Right after an outage: drone-3's link cut until station-a sees it lost and 2 s more (its clock samples,
            // kept for 2 s, are all gone), restored, and the group sent the moment the pair is back in session. Until
            // drone-3's next heartbeat arrives station-a has no estimate of its clock, and a copy sent then loses its
            // start on the way and is refused; the station sends it again, 100 ms apart (in the demo, three resends
            // at once were all refused alike, 2026-11-29). Here the heartbeat usually wins the race (two runs with no
            // resends at all passed): this checks that a group right after an outage starts together, whichever way.
            try lab.lab("cut", "3")
            try await waitUntil("station-a sees drone-3 lost", timeout: .seconds(5), poll: .milliseconds(20)) {
                a.peerState("drone-3") == "lost"
            }
            // The outage's length: the scenario's time, not a wait for a condition.
            try await Task.sleep(for: .seconds(2))
            try lab.lab("restore", "3")
            try await waitUntil("drone-3 back in session", timeout: .seconds(10), poll: .milliseconds(5)) {
                a.peerState("drone-3") == "established"
            }
            let beforeReturn = try latestEvents(drones)
            let afterOutage = try send(a, ["--together", "--lead", "1", all, "hover"])
            #expect(afterOutage.status == 0, "\(afterOutage.output)")
            let returned = try startTimes(drones, "hover accepted", after: beforeReturn)
            #expect(returned.count == 5 && spread(returned) <= 50, "\(returned) \(afterOutage.output)")
            print("group hover sent the moment drone-3 was back from an outage: start spread \(spread(returned)) ms")

            // Both stations see station-a controlling every drone ("this node" at station-a).
            try await waitUntil("both stations show station-a controlling the five", timeout: .seconds(3)) {
                let seenByA = try vehicles(a).filter { $0.role == "drone" }
                let seenByB = try vehicles(b).filter { $0.role == "drone" }
                return seenByA.count == 5 && seenByB.count == 5
                    && seenByA.allSatisfy { $0.controller == "station-a" && $0.controlledHere == true }
                    && seenByB.allSatisfy { $0.controller == "station-a" && $0.controlledHere == false }
            }

            // Bytes on the air with five drones airborne (predictions flowing) and two stations: every host's frames
            // counted. Per-peer unicast (before the group channel) put 2.9 Mbit/s on this segment, growing as N²; by
            // group each node's share is about the same whatever the fleet's size (BENCHMARKS.md §10).
            let air = try await lab.transmissionRate(hosts: 7, seconds: 3)
            print(
                "bytes on the air, 5 drones flying + 2 stations: \(Int(air.bytes * 8 / 1000)) kbit/s, \(Int(air.packets)) frames/s (\(Int(air.bytes * 8 / 7000)) kbit/s per node)"
            )
            #expect(air.bytes * 8 <= 7 * 64_000, "over the linear budget of 64 kbit/s per node")

            // station-b is refused while station-a lives.
            let x = numbers["drone-3"]!
            let refused = try send(b, [String(x), "hover"])
            #expect(refused.status == 1 && refused.output.contains("controlled by station-a"), "\(refused.output)")

            // station-a crashes: its lease ends when the drone loses it, and station-b commands without a takeover.
            a.kill()
            let killed = clock.now
            var refusals = 0
            try await waitUntil(
                "station-b's hover is accepted after station-a died", timeout: .seconds(5), poll: .milliseconds(100)
            ) {
                let r = try send(b, [String(x), "hover"])
                if r.output.contains("controlled by station-a") { refusals += 1 }
                return r.status == 0
            }
            print(
                "lease released: station-b accepted \(clock.now - killed) after station-a was killed (\(refusals) refusals before)"
            )
            #expect(clock.now - killed < .seconds(3))

            // The drones still hear station-b: no failsafe.
            #expect(!drones[0].log.contains("failsafe: no station heard"))
            // station-b goes too: the flying drone hovers after 5 s without any station; grounded drones do nothing visible.
            b.kill()
            let silent = clock.now
            try await waitUntil("drone-3 takes the hover failsafe", timeout: .seconds(8), poll: .milliseconds(50)) {
                drones[0].log.contains("failsafe: no station heard; hover")
            }
            print("failsafe \(clock.now - silent) after the last station was killed")
            #expect(clock.now - silent >= .milliseconds(4800))
            let own = try #require(try vehicles(drones[0]).first { $0.uavNumber == x })
            #expect(own.activity == "hovering" && own.armed)

            // A station comes back: the drone reports what it did.
            let back = try lab.startNode(host: 2, name: "station-b", role: "station")
            try await waitUntil(
                "the returning station hears drone-3's failsafe report", timeout: .seconds(10), poll: .milliseconds(100)
            ) {
                back.log.contains("UAV \(x) (") && back.log.contains("was without a station for")
                    && back.log.contains("hover after")
            }
        }
    }

    @Test func thirtyPercentLossOnEveryLinkExecutesEachAcknowledgedCommandExactlyOnce() async throws {
        try await Lab.with(hosts: 3) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            let drones = try (2...3).map { try lab.startNode(host: $0, name: "drone-\($0)") }
            let numbers = try await settledNumbers(drones, seenBy: [station])
            for h in 1...3 { try lab.lab("loss", String(h), "30") }
            // Every command below crosses two lossy hosts each way; retransmissions end to end and hop by hop.
            var acknowledged = 0
            var timedOut = 0
            for round in 0..<4 {
                for d in drones {
                    let n = String(numbers[d.name]!)
                    let args = round == 0 ? [n, "takeoff", "3"] : [n, "hover"]
                    let r = try send(station, args, timeout: 25)
                    if r.status == 0 { acknowledged += 1 } else { timedOut += 1 }
                    #expect(r.status == 0 || r.status == 2, "\(r.output)")
                }
            }
            print(
                "30 % loss: \(acknowledged) of 8 commands acknowledged and completed, \(timedOut) without a final answer in time"
            )
            #expect(acknowledged >= 6)
            for h in 1...3 { try lab.lab("loss", String(h), "0") }
            let sentIDs = station.log.split(separator: "\n").compactMap { line -> Substring? in
                guard let r = line.range(of: "] command "), line.contains(" to UAV ") else { return nil }
                return line[r.upperBound...].split(separator: " ").first
            }
            #expect(sentIDs.count == 8)
            // Commands whose wait timed out are still retransmitted: wait for every final answer before counting.
            try await waitUntil(
                "the station logs a final answer for every command", timeout: .seconds(20), poll: .milliseconds(100)
            ) {
                let log = station.log
                return sentIDs.allSatisfy { id in
                    [": completed", ": failed", ": rejected"].contains { log.contains("command \(id)\($0)") }
                }
            }
            var executed = 0
            for d in drones {
                var count: [Substring: Int] = [:]
                for line in d.log.split(separator: "\n")
                where line.hasSuffix(" accepted") && line.contains("] command ") {
                    let id = line[line.range(of: "] command ")!.upperBound...].split(separator: " ").first!
                    count[id, default: 0] += 1
                }
                #expect(count.values.allSatisfy { $0 == 1 }, "\(d.name) executed a command twice: \(count)")
                executed += count.count
            }
            // Every acknowledged command was executed (possibly some unacknowledged ones too, at most once each).
            #expect(executed >= acknowledged && executed <= 8)
        }
    }

    @Test func aNumberClashAcrossAPartitionHealsAndTheFlyingDroneKeepsItsNumber() async throws {
        try await Lab.with(hosts: 4) { lab in
            // {1, 2} and {3, 4} cannot hear each other; both drones start with the same persisted number.
            for (i, j) in [(1, 3), (1, 4), (2, 3), (2, 4)] { try lab.lab("block", String(i), String(j)) }
            for (host, name) in [(2, "drone-2"), (4, "drone-4")] {
                let dir = "\(lab.directory.path)/state-h\(host)-\(name)"
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try "42\n".write(toFile: dir + "/uav-number", atomically: true, encoding: .utf8)
            }
            // Every node also dials every host's address (static peers, retried every 500 ms), so the partition heals
            // as soon as packets pass, not at the next mDNS query, which can be many seconds away after a long split.
            let all = try (1...4).map { "\"\(try lab.address($0)):47800\"" }.joined(separator: ", ")
            let network = "static_peers = [\(all)]"
            let a = try lab.startNode(host: 1, name: "station-a", role: "station", network: network)
            let flyer = try lab.startNode(host: 2, name: "drone-2", network: network)
            let b = try lab.startNode(host: 3, name: "station-b", role: "station", network: network)
            let grounded = try lab.startNode(host: 4, name: "drone-4", network: network)
            _ = try await settledNumbers([flyer], seenBy: [a])
            _ = try await settledNumbers([grounded], seenBy: [b])
            #expect(try flyer.status().node.uavNumber == 42 && grounded.status().node.uavNumber == 42)
            let up = try send(a, ["42", "takeoff", "3"])
            #expect(up.status == 0, "\(up.output)")
            // Still partitioned: each side holds its own 42.
            #expect(try grounded.status().node.uavNumber == 42)
            #expect(try !b.status().peers.contains { $0.name == "drone-2" || $0.name == "station-a" })

            // Heal: the clash is resolved for the flying drone, the other one takes a new number and says so.
            let clock = ContinuousClock()
            let healed = clock.now
            for (i, j) in [(1, 3), (1, 4), (2, 3), (2, 4)] { try lab.lab("unblock", String(i), String(j)) }
            print("unblocking took \(clock.now - healed)")
            let numbers = try await settledNumbers([flyer, grounded], seenBy: [a, b])
            print("partition healed: numbers distinct again after \(clock.now - healed): \(numbers)")
            #expect(numbers["drone-2"] == 42)
            #expect(numbers["drone-4"] != 42)
            #expect(grounded.log.contains("UAV number 42 → \(numbers["drone-4"]!) (lost a clash"))
            // The stations see the new numbers in the drones' telemetry first; a command is addressed through the
            // link-state database, where drone-4's new advertisement can arrive a few hundred ms later (its copy
            // through a relay is held 150 ms per hop, PROTOCOL.md §7.1): until then 42 is still contested there. The
            // drone that receives the command checks its own database too (it refuses a number it sees contested), so
            // the flyer must hold drone-4's new advertisement as well: seen in make test, station-b's database was
            // right and drone-2 refused "UAV number 42 is contested" 2 ms later.
            try await waitUntil(
                "both stations' and the flyer's link-state databases hold the new numbers", timeout: .seconds(5)
            ) {
                try [a, b, flyer].allSatisfy { n in
                    let peers = try n.status().peers
                    return (n === flyer || peers.contains { $0.name == "drone-2" && $0.uavNumber == 42 })
                        && peers.contains { $0.name == "drone-4" && $0.uavNumber == numbers["drone-4"] }
                }
            }
            // Both stations now address 42 as the flying drone.
            let hover = try send(b, ["--takeover", "42", "hover"])
            #expect(hover.status == 0, "\(hover.output)")
            #expect(flyer.log.contains("hover accepted"))
            #expect(!grounded.log.contains("hover accepted"))
        }
    }

    @Test func aManualControlStreamAt100HzArrivesWholeAndMovesTheDrone() async throws {
        try await Lab.with(hosts: 2) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            let drone = try lab.startNode(host: 2, name: "drone-2")
            let n = try await settledNumbers([drone], seenBy: [station])["drone-2"]!
            #expect(try send(station, [String(n), "takeoff", "5"]).status == 0)
            let before = try #require(try vehicles(station).first { $0.uavNumber == n })
            // Forward at half deflection for 2 s.
            let r = try shell([
                try fleetmeshBinary(), "manual", "--node", station.socketPath, "--rate", "100", "--seconds", "2",
                "--x", "500", "--json", String(n),
            ])
            #expect(r.status == 0, "\(r.output)")
            let report = try JSONDecoder().decode(ManualStreamReport.self, from: Data(r.output.utf8))
            #expect(report.samplesPerUAV >= 195 && report.samplesPerUAV <= 201 && report.unreachable.isEmpty)
            let seen = try #require(try drone.status().manualControl)
            print(
                "manual control 100 Hz for 2 s: sent \(report.samplesPerUAV) at \(report.sentRateHz) Hz; drone obeyed \(seen.received), rate \(seen.rateHz ?? 0) Hz, latency p50 \(seen.latencyP50Ms ?? -1) ms p99 \(seen.latencyP99Ms ?? -1) ms, gap p99 \(seen.gapP99Ms ?? -1) ms"
            )
            #expect(seen.received == report.samplesPerUAV)
            #expect(abs((seen.rateHz ?? 0) - 100) < 5)
            #expect((seen.latencyP99Ms ?? 1000) < 50)
            try await waitUntil("the drone moved north", timeout: .seconds(5)) {
                guard let v = try vehicles(station).first(where: { $0.uavNumber == n }) else { return false }
                return (v.latitude - before.latitude) * 111_200 > 2
            }
            // A number nobody holds: nothing is sent, exit 1.
            let none = try shell([
                try fleetmeshBinary(), "manual", "--node", station.socketPath, "--seconds", "0.1",
                String(uavNumberNobodyHolds([n])),
            ])
            #expect(none.status == 1 && none.output.contains("unreachable"), "\(none.output)")

            // The longest trajectory the CLI takes: 200 waypoints, 2.4 KB of points, a datagram larger than the 2,048
            // bytes a node read before (the rest was cut, the datagram failed authentication and the reliable
            // channel to the drone stalled for good: this command and every one after it timed out).
            // Taken once the drone has stopped: a drone still braking from the stream can end up a metre or more
            // north of the first waypoint, and the trajectory then turns it about (4 s at 45°/s), flies it back and
            // turns it again (a first leg under 1 m is flown without turning).
            var still: VehicleReport?
            try await waitUntil("drone-2 stopped after the stream", timeout: .seconds(10)) {
                still = try vehicles(station).first { $0.uavNumber == n && !$0.stale && $0.speed < 0.1 }
                return still != nil
            }
            let here = try #require(still)
            let waypoints = (1...200).map {
                String(format: "%.7f,%.7f,5", here.latitude + Double($0) * 0.1 / 111_200, here.longitude)
            }
            // Flying 200 steps of 10 cm takes longer than this test waits: it is sent, taken, and a hover ends it.
            _ = try send(station, [String(n), "trajectory"] + waypoints, timeout: 3)
            try await waitUntil("drone-2 took the 200-waypoint trajectory", timeout: .seconds(10)) {
                drone.log.split(separator: "\n").contains { $0.contains("trajectory") && $0.hasSuffix("accepted") }
            }
            // Each 10 cm leg starts and ends at rest (about 0.5 s): 1 m takes some 6 s.
            try await waitUntil("drone-2 flew north along it", timeout: .seconds(15)) {
                guard let v = try vehicles(station).first(where: { $0.uavNumber == n }) else { return false }
                return (v.latitude - here.latitude) * 111_200 > 1
            }
            // The channel goes on: the next command is answered.
            let hover = try send(station, [String(n), "hover"])
            #expect(hover.status == 0, "\(hover.output)")
        }
    }

    @Test func aNodeWhoseControlSocketCannotBeBoundStopsWithThatError() async throws {
        try await Lab.with(hosts: 1) { lab in
            let config = lab.directory.appendingPathComponent("bad-socket.toml").path
            try """
            [node]
            name = "station"
            role = "station"
            key_file = "\(lab.keyPath)"
            state_dir = "\(lab.directory.path)/state-bad"
            control_socket = "/proc/fleetmesh-cannot-exist/station.sock"
            """.write(toFile: config, atomically: true, encoding: .utf8)
            let node = try lab.start(host: 1, tag: "bad-socket", [try fleetmeshBinary(), "run", "--config", config])
            try await waitUntil("the node exits", timeout: .seconds(10)) { !node.process.isRunning }
            #expect(node.process.wait() == 1)
            #expect(
                node.output.contains("control socket /proc/fleetmesh-cannot-exist/station.sock failed"),
                "\(node.output)")
            // The log names the failed part and says the node stops (it does not run on without its control socket).
            #expect(node.output.contains("stopping the node"))
        }
    }
}
