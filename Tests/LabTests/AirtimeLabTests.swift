import ControlProtocol
import Foundation
import LabKit
import Testing

/// Bytes on the air of a flying fleet on real processes (issue #16): every lab host's transmitted frames summed (its
/// `eth0` counters: Ethernet, IP and UDP headers, mDNS and neighbour discovery included), counted, not timed.
@Suite(.serialized) struct AirtimeLabTests {
    /// The linear budget: 20 kbit/s per node (issue #16's goal for the simulated fleet, where only the mesh's own
    /// datagrams count), plus a stated margin of 50 % for what the lab's link adds (mDNS, IPv6 neighbour discovery)
    /// and for the unicast heartbeats a loaded node falls back to when a peer's group datagram comes late (this test
    /// runs the debug build on two cores shared by ten nodes). Measured: 21.2–23.5 kbit/s per node here, 19.2 with the
    /// release build (BENCHMARKS.md §10.6); per-peer unicast (`group = false`) needs about 450 kbit/s per node at this
    /// size, and grows with the fleet.
    static let budgetPerNode = 20_000.0 * 1.5

    /// What each node sends, holds of its peers and refused: where the bytes went.
    static func picture(_ nodes: [NodeProcess]) -> String {
        nodes.map { n -> String in
            guard let st = try? n.status() else { return "\(n.name): no status" }
            let states = Dictionary(grouping: st.peers, by: \.state).mapValues(\.count)
            let out = st.node.traffic.map {
                String(
                    format: "%.1f kbit/s in %.1f datagrams/s", $0.bytesOutPerSecond * 8 / 1e3, $0.datagramsOutPerSecond)
            }
            return
                "\(n.name): sends \(out ?? "?"), peers \(states.sorted { $0.key < $1.key }), refused \(st.node.rejections)"
        }.joined(separator: "; ")
    }

    /// Two stations and eight simulated drones, started at once, formed, numbered and airborne: once the formation's
    /// tail has passed, over 10 s of steady flight the fleet stays within the linear budget, every node keeps every
    /// peer (no loss logged), and the stations still see every drone live.
    @Test func aFlyingFleetStaysWithinTheLinearBudgetAndWhole() async throws {
        let drones = 8
        let hosts = drones + 2
        try await Lab.with(hosts: hosts) { lab in
            let fleet = try lab.startFleet(stations: 2, drones: drones, columns: 4)
            let stations = fleet.stations
            let nodes = fleet.stations + fleet.drones
            func losses() -> [String: Int] {
                Dictionary(uniqueKeysWithValues: nodes.map { ($0.name, $0.peerLossesLogged) })
            }
            try await waitUntil("\(drones) drones numbered and live at both stations", timeout: .seconds(60)) {
                // Distinct numbers: just after a clash a station can still list a renumbered drone under the number
                // it lost (three drones claimed one number in a fresh-clone run; a takeoff went twice to it).
                try stations.allSatisfy { s in
                    let live = try s.vehicles().filter { !$0.stale && $0.uavNumber != nil }
                    return live.count == drones && Set(live.compactMap(\.uavNumber)).count == drones
                }
            }
            for v in try stations[0].vehicles() {
                let uav = try #require(v.uavNumber)
                let r = try ControlClient.request(
                    ControlRequest.send(.init(uav: uav, args: ["takeoff", "10"], timeoutMs: 100)),
                    socket: stations[0].socketPath, timeout: .seconds(5))
                let refused = r.command?.answers.contains { $0.answer == "rejected" } ?? true
                #expect(!refused, "takeoff of UAV \(uav): \(String(describing: r.command ?? nil)) \(r.error ?? "")")
            }
            try await waitUntil("\(drones) drones airborne at 10 m, seen by both stations", timeout: .seconds(40)) {
                try stations.allSatisfy { s in try s.vehicles().filter { !$0.stale && $0.altitude > 9 }.count == drones
                }
            }
            // The formation's tail (handshakes, database exchanges, floods) can run on for a few seconds on a loaded
            // machine; the budget is for the flying fleet once it has passed. A fleet that never calms fails here.
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(60)
            var sample = try await lab.transmissionRate(hosts: hosts, seconds: 2)
            while sample.bytes * 8 / Double(hosts) > Self.budgetPerNode {
                guard clock.now < deadline else {
                    Issue.record(
                        "the fleet did not calm within 60 s of flight: \(Int(sample.bytes * 8 / Double(hosts))) bit/s per node over the last 2 s; \(Self.picture(nodes))"
                    )
                    return
                }
                sample = try await lab.transmissionRate(hosts: hosts, seconds: 2)
            }
            let before = losses()
            let rate = try await lab.transmissionRate(hosts: hosts, seconds: 10)
            let after = losses()
            let perNode = rate.bytes * 8 / Double(hosts)
            // Each node's own mesh datagrams (its status: UDP payload, the last 5 s), to tell them from mDNS and
            // neighbour discovery in the link's count.
            let own = try nodes.map { n -> String in
                let t = try #require(try n.status().node.traffic)
                return String(
                    format: "%@ %.1f kbit/s in %.1f datagrams/s", n.name, t.bytesOutPerSecond * 8 / 1e3,
                    t.datagramsOutPerSecond)
            }
            print("airtime: each node's own mesh datagrams out (UDP payload): \(own.joined(separator: "; "))")
            print(
                String(
                    format:
                        "airtime: %d drones + 2 stations flying: %.1f kbit/s in all, %.1f kbit/s per node, %.0f frames/s",
                    drones, rate.bytes * 8 / 1e3, perNode / 1e3, rate.packets))
            if perNode > Self.budgetPerNode {
                Issue.record(
                    "\(Int(perNode)) bit/s per node over 10 s of flight, budget \(Int(Self.budgetPerNode)); \(Self.picture(nodes))"
                )
            }
            let lost = after.filter { $0.value > before[$0.key] ?? 0 }.map {
                "\($0.key): \($0.value - before[$0.key]!)"
            }
            #expect(lost.isEmpty, "peer losses logged during the flight window: \(lost.sorted())")
            for s in stations {
                let live = try s.vehicles().filter { !$0.stale && $0.altitude > 9 }.count
                #expect(live == drones, "\(s.name) sees \(live) of \(drones) drones live and airborne")
            }
        }
    }
}
