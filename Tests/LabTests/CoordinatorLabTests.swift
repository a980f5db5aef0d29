import ControlProtocol
import Foundation
import LabKit
import Node
import Testing

/// The coordinator in real nodes: UAV numbering over real sessions, the persisted number, commands from a station
/// to a simulated drone. Serialized, like the other lab suite: the time bounds assume no other lab shares the cores.
@Suite(.serialized) struct CoordinatorLabTests {
    func vehicles(_ node: NodeProcess) throws -> [VehicleReport] {
        let r = try ControlClient.request(ControlRequest.vehicles, socket: node.socketPath, timeout: .seconds(2))
        guard let v = r.vehicles else { throw LabError(r.error ?? "no vehicles in the answer") }
        return v
    }

    /// Waits until `station` hears a drone's live telemetry with a UAV number, and returns that number.
    func numberOfTheOnlyDrone(seenBy station: NodeProcess) async throws -> Int {
        var number = 0
        try await waitUntil("the station sees the drone's telemetry with a number", timeout: .seconds(10)) {
            guard let v = try vehicles(station).first(where: { !$0.stale && $0.uavNumber != nil }) else { return false }
            number = v.uavNumber!
            return true
        }
        return number
    }

    @Test func dronesSettleOnDistinctNumbersAndKeepThemAcrossARestart() async throws {
        try await Lab.with(hosts: 4) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            let drones = try (2...4).map { try lab.startNode(host: $0, name: "drone-\($0)") }
            let settled = try await waitUntil(
                "the station sees 3 drones with distinct numbers 1–250", timeout: .seconds(15)
            ) {
                let peers = try station.status().peers.filter { $0.role == "drone" && $0.state == "established" }
                let numbers = peers.compactMap(\.uavNumber)
                let live = try vehicles(station).filter { !$0.stale }.compactMap(\.uavNumber)
                return numbers.count == 3 && Set(numbers).count == 3 && numbers.allSatisfy { (1...250).contains($0) }
                    && Set(live) == Set(numbers)
            }
            print("numbers settled \(settled) after start (station status and fleet picture)")
            // The drones' DNS-SD records carry their numbers (TXT `uav`), as the station's avahi-daemon resolves them.
            let numbered = try await waitUntil(
                "host 1's avahi resolves every drone's TXT uav", timeout: .seconds(5), poll: .milliseconds(200)
            ) {
                let r = try shell([
                    "bash", labScript, "--name", lab.name, "exec", "1", "avahi-browse", "-ptkr", "_fleetmesh._udp",
                ])
                return try drones.allSatisfy { d in
                    guard let n = try d.status().node.uavNumber else { return false }
                    return r.output.split(separator: "\n").contains {
                        $0.hasPrefix("=") && $0.contains(";\(d.name);") && $0.contains("\"uav=\(n)\"")
                    }
                }
            }
            print("TXT records carry the numbers \(numbered) later")
            // Each drone reports the number the station sees for it.
            let seen = try station.status().peers
            for d in drones {
                let own = try d.status().node.uavNumber
                #expect(own != nil)
                #expect(seen.first { $0.name == d.name }?.uavNumber == own)
            }

            // drone-2 stops cleanly and starts again: it claims its persisted number at once instead of listening.
            let number = try #require(try drones[0].status().node.uavNumber)
            let file = "\(lab.directory.path)/state-h2-drone-2/uav-number"
            #expect(
                (try String(contentsOfFile: file, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
                    == "\(number)")
            #expect(try await drones[0].stop() == 0)
            let again = try lab.startNode(host: 2, name: "drone-2")
            let back = try await waitUntil("restarted drone-2 is back with UAV \(number)", timeout: .seconds(10)) {
                let peer = try station.status().peers.first { $0.name == "drone-2" }
                let own = try again.status().node
                let live = try vehicles(station)
                // The station holds the new incarnation's session, and the old life's telemetry would be stale by now.
                return own.uavNumber == number && own.uptimeMs > 1200 && peer?.state == "established"
                    && peer?.incarnation == own.incarnation && peer?.uavNumber == number
                    && live.contains { $0.uavNumber == number && !$0.stale && $0.name == "drone-2" }
            }
            print("restarted drone back with its number after \(back)")
            expectQuietLogs(lab.nodes)
            #expect(!again.log.contains("(claimed)"))
            let numbers = try station.status().peers.filter { $0.role == "drone" && $0.state == "established" }
                .compactMap(\.uavNumber)
            #expect(Set(numbers).count == 3)
        }
    }

    @Test func stationSendsATakeoffAndUnknownNumbersAreRejected() async throws {
        try await Lab.with(hosts: 2) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            _ = try lab.startNode(host: 2, name: "drone-2")
            let number = try await numberOfTheOnlyDrone(seenBy: station)
            let cli = try fleetmeshBinary()
            let clock = ContinuousClock()
            let start = clock.now
            let sent = try shell([
                cli, "send", "--node", station.socketPath, "--timeout", "15", String(number), "takeoff", "10",
            ])
            let roundTrip = clock.now - start
            print("send takeoff 10: \(roundTrip)\n\(sent.output)")
            #expect(sent.status == 0, "\(sent.output)")
            let lines = sent.output.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.first?.contains("takeoff 10: accepted") == true)
            #expect(lines.last?.contains("takeoff 10: completed") == true)

            // The station's fleet picture shows the drone hovering near 10 m.
            try await waitUntil("the station sees UAV \(number) hovering near 10 m", timeout: .seconds(5)) {
                let json = try shell([cli, "vehicles", "--json", "--node", station.socketPath])
                guard json.status == 0 else { return false }
                let list = try JSONDecoder().decode([VehicleReport].self, from: Data(json.output.utf8))
                guard let v = list.first(where: { $0.uavNumber == number }) else { return false }
                return !v.stale && v.armed && v.activity == "hovering" && abs(v.altitude - 10) < 1
            }
            let airspace = try ControlClient.request(ControlRequest.airspace, socket: station.socketPath).airspace ?? []
            #expect(airspace.contains { $0.uavNumber == number && $0.points.count == 40 })

            // A number nobody holds: rejected at once, non-zero exit.
            let unknown = uavNumberNobodyHolds([number])
            let bad = try shell([cli, "send", "--node", station.socketPath, String(unknown), "takeoff", "10"])
            #expect(bad.status == 1, "\(bad.output)")
            #expect(bad.output.contains("rejected (unknown UAV number \(unknown))"))
            // Malformed input gets a precise error and the node keeps running.
            let junk = try shell([cli, "send", "--node", station.socketPath, String(number), "takeoff", "high"])
            #expect(junk.status == 1)
            #expect(junk.output.contains("ALT must be a number, found 'high'"))
            #expect(station.process.isRunning)

            // A target 6 m north of the drone: it flies there.
            let here = try #require(try vehicles(station).first { $0.uavNumber == number })
            let north = here.latitude + 6 / 111_200
            let aimed = try shell([
                cli, "target", "--node", station.socketPath, "--uav", String(number),
                String(north), String(here.longitude), "10",
            ])
            #expect(aimed.status == 0, "\(aimed.output)")
            let arrived = try await waitUntil("UAV \(number) reaches the target", timeout: .seconds(8)) {
                guard let v = try vehicles(station).first(where: { $0.uavNumber == number }), !v.stale else {
                    return false
                }
                return abs(v.latitude - north) * 111_200 < 1 && abs(v.altitude - 10) < 1
            }
            print("target reached after \(arrived)")

            // --follow: the drone is told to follow (accepted, completed at once) and tracks the next target sample.
            let east = here.longitude + 5 / (111_320 * cos(here.latitude * .pi / 180))
            let follow = try shell([
                cli, "target", "--node", station.socketPath, "--uav", String(number), "--follow",
                String(north), String(east), "10",
            ])
            #expect(follow.status == 0, "\(follow.output)")
            #expect(follow.output.contains("UAV \(number) follow: accepted, completed"))
            let followed = try await waitUntil("UAV \(number) follows the target", timeout: .seconds(6)) {
                guard let v = try vehicles(station).first(where: { $0.uavNumber == number }), !v.stale else {
                    return false
                }
                return v.activity == "following"
                    && abs(v.longitude - east) * 111_320 * cos(here.latitude * .pi / 180) < 1
            }
            print("following the target after \(followed)")
            expectQuietLogs(lab.nodes)
        }
    }

    @Test func droneCrashedAndRestartedAtOnceIsCommandableAgain() async throws {
        try await Lab.with(hosts: 2) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            let drone = try lab.startNode(host: 2, name: "drone-2")
            let number = try await numberOfTheOnlyDrone(seenBy: station)
            // A crash (no goodbye) and an immediate restart: the station may never see the drone lost.
            drone.kill()
            let again = try lab.startNode(host: 2, name: "drone-2")
            let clock = ContinuousClock()
            let start = clock.now
            try await waitUntil("the restarted drone is in session with the station", timeout: .seconds(5)) {
                let own = try again.status().node
                return try station.status().peers.contains {
                    $0.name == "drone-2" && $0.incarnation == own.incarnation && $0.state == "established"
                }
            }
            // Until the station holds the drone's new link-state advertisement, it addresses the old life and the drone
            // refuses ("target drone restarted": never executed twice). Both sides must swap databases at once, not at
            // the next 10 s refresh.
            var sent: (status: Int32, output: String) = (0, "")
            var refused = 0
            let known = try await waitUntil(
                "a takeoff reaches the restarted drone", timeout: .seconds(5), poll: .milliseconds(100)
            ) {
                sent = try shell([
                    try fleetmeshBinary(), "send", "--node", station.socketPath, "--timeout", "15",
                    String(number), "takeoff", "5",
                ])
                if sent.output.contains("target drone restarted") {
                    refused += 1
                    return false
                }
                return true
            }
            print(
                "crash and restart: \(refused) takeoff(s) refused as target-restarted first; answered takeoff done \(known) after the session, \(clock.now - start) after the restart\n\(sent.output)"
            )
            #expect(sent.status == 0, "\(sent.output)")
            #expect(sent.output.contains("takeoff 5: completed"))
        }
    }

    @Test func commandsReachADroneOutOfRangeThroughARelay() async throws {
        try await Lab.with(hosts: 3) { lab in
            // 1 — 2 — 3 in a line: the station on host 1 cannot hear host 3 at all (not even its mDNS).
            try lab.lab("block", "1", "3")
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            _ = try lab.startNode(host: 2, name: "relay")
            let far = try lab.startNode(host: 3, name: "far")
            var number = 0
            try await waitUntil("the station sees the far drone's telemetry through the relay", timeout: .seconds(15)) {
                guard let n = try far.status().node.uavNumber else { return false }
                number = n
                return try vehicles(station).contains { $0.uavNumber == n && !$0.stale }
            }
            // No direct session: everything goes through the relay, and the status says so.
            try await waitUntil("the station's status lists the far drone as relayed, 2 hops", timeout: .seconds(5)) {
                try station.status().peers.contains {
                    $0.name == "far" && $0.state == "relayed" && $0.hops == 2
                        && $0.address == "via relay" && $0.uavNumber == number
                }
            }
            #expect(try station.status().peers.filter { $0.name == "far" }.count == 1)
            let sent = try shell([
                try fleetmeshBinary(), "send", "--node", station.socketPath, "--timeout", "20",
                String(number), "takeoff", "5",
            ])
            #expect(sent.status == 0, "\(sent.output)")
            #expect(sent.output.contains("takeoff 5: accepted"))
            #expect(sent.output.contains("takeoff 5: completed"))
            try await waitUntil("the station sees the far drone airborne", timeout: .seconds(5)) {
                try vehicles(station).contains { $0.uavNumber == number && $0.altitude > 4 && !$0.stale }
            }
        }
    }

    @Test func oneStationControlsADroneUntilAnotherTakesOver() async throws {
        try await Lab.with(hosts: 3) { lab in
            let a = try lab.startNode(host: 1, name: "station-a", role: "station")
            let b = try lab.startNode(host: 2, name: "station-b", role: "station")
            let drone = try lab.startNode(host: 3, name: "drone")
            var number = 0
            try await waitUntil("both stations see the drone", timeout: .seconds(15)) {
                guard let n = try drone.status().node.uavNumber else { return false }
                number = n
                return try [a, b].allSatisfy { s in try vehicles(s).contains { $0.uavNumber == n && !$0.stale } }
            }
            func send(_ station: NodeProcess, _ args: [String]) throws -> (status: Int32, output: String) {
                try shell([try fleetmeshBinary(), "send", "--node", station.socketPath, "--timeout", "15"] + args)
            }
            let first = try send(a, [String(number), "takeoff", "3"])
            #expect(first.status == 0, "\(first.output)")
            /// Whom each station reports as the drone's controller, and whether it says it is itself.
            func controller(seenBy station: NodeProcess) throws -> (String?, Bool?) {
                let v = try vehicles(station).first { $0.uavNumber == number }
                return (v?.controller, v?.controlledHere)
            }
            try await waitUntil("both stations report station-a as the controller", timeout: .seconds(3)) {
                try controller(seenBy: a) == ("station-a", true) && controller(seenBy: b) == ("station-a", false)
            }
            // station-a holds the lease: station-b is refused, naming the holder, and nothing is executed.
            let refused = try send(b, [String(number), "hover"])
            #expect(refused.status == 1)
            #expect(refused.output.contains("controlled by station-a"), "\(refused.output)")
            // An explicit takeover moves the lease; then station-a is the one refused.
            let taken = try send(b, ["--takeover", String(number), "hover"])
            #expect(taken.status == 0, "\(taken.output)")
            let moved = try await waitUntil("both stations report the new holder", timeout: .seconds(3)) {
                try controller(seenBy: a) == ("station-b", false) && controller(seenBy: b) == ("station-b", true)
            }
            print("both stations report station-b as the controller \(moved) after the takeover's answer")
            let table = try shell([try fleetmeshBinary(), "vehicles", "--node", b.socketPath])
            #expect(table.output.contains("station-b (this node)"), "\(table.output)")
            try await waitUntil(
                "station-a is refused after the takeover", timeout: .seconds(5), poll: .milliseconds(200)
            ) {
                let r = try send(a, [String(number), "hover"])
                return r.status == 1 && r.output.contains("controlled by station-b")
            }
        }
    }

    @Test func flyingDroneHoversWhenItHearsNoStation() async throws {
        try await Lab.with(hosts: 2) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            let drone = try lab.startNode(host: 2, name: "drone-2")
            let number = try await numberOfTheOnlyDrone(seenBy: station)
            let up = try shell([
                try fleetmeshBinary(), "send", "--node", station.socketPath, String(number), "takeoff", "3",
            ])
            #expect(up.status == 0, "\(up.output)")
            // Silence starts with the last packet the drone heard from the station, just before this SIGTERM.
            let clock = ContinuousClock()
            let stopped = clock.now
            #expect(try await station.stop() == 0)
            try await waitUntil("the drone takes the hover failsafe", timeout: .seconds(8), poll: .milliseconds(50)) {
                drone.log.contains("failsafe: no station heard; hover")
            }
            let after = clock.now - stopped
            print("hover failsafe \(after) after the station stopped")
            // Silence counts from the last packet the drone heard from the station, which left up to one heartbeat
            // (50 ms) before the SIGTERM; polling the log adds up to 50 ms on the other side.
            #expect(after >= .milliseconds(4900) && after < .seconds(6.5))
            let own = try #require(try vehicles(drone).first { $0.uavNumber == number })
            #expect(own.activity == "hovering" && own.armed)
        }
    }
}
