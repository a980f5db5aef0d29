import Determinism
import MeshCore
import MeshTypes
import NodeCore
import SecureTransport
import Testing

@testable import Coordinator

/// Whole nodes (`NodeCore`) with the segment's group channel, on one virtual link where a group datagram reaches every
/// other node: presence and floods go once by group; unicast heartbeats come back only where the group fails.
@Suite struct GroupChannelNodeTests {
    static let key = try! MeshKey(bytes: Array(repeating: 0x3C, count: 32))

    /// A station and `drones` flying drones, each publishing a prediction.
    struct Segment {
        var nodes: [NodeCore<Int>] = []
        var now = MeshInstant(nanoseconds: 1_000_000)
        var inFlight: [(to: Int, from: Int, bytes: [UInt8])] = []
        /// Whether group datagrams pass (multicast working on the link).
        var groupPasses = true
        /// Unicast and group datagrams sent by each node in the current count.
        var unicast: [Int] = []
        var group: [Int] = []
        /// Unicast datagrams between two drones (neither is the station) in the current count.
        var droneToDrone = 0

        init(drones: Int, group settings: GroupSettings?) {
            for i in 0...drones {
                let id = NodeID(high: UInt64(i + 1), low: 99)
                let role: NodeRole = i == 0 ? .station : .drone
                let mesh = MeshCore<Int>(
                    key: GroupChannelNodeTests.key, localID: id, incarnation: UInt64(500 + i), role: role,
                    name: "n\(i)", uavNumber: nil, group: settings, random: SeededRandom(seed: UInt64(i)))
                let coordinator = CoordinatorCore(
                    configuration: CoordinatorConfiguration(nodeID: id, role: role, name: "n\(i)"),
                    incarnation: UInt64(500 + i), persistedUAVNumber: nil, now: now)
                nodes.append(NodeCore(mesh: mesh, coordinator: coordinator))
            }
            unicast = Array(repeating: 0, count: nodes.count)
            group = unicast
            for i in nodes.indices {
                for j in nodes.indices where j != i {
                    carry(
                        nodes[i].onDiscovered(
                            id: nodes[j].mesh.localID, incarnation: nil, name: "n\(j)", role: nil, uavNumber: nil,
                            address: j, now: now), at: i)
                }
            }
            for i in nodes.indices.dropFirst() {
                carry(nodes[i].withCoordinator(now: now) { $0.onFlyingChanged(true, now: now) }, at: i)
            }
        }

        mutating func carry(_ effects: [NodeCore<Int>.Effect], at i: Int) {
            for e in effects {
                switch e {
                case .datagram(let bytes, let to):
                    unicast[i] += 1
                    if i != 0, to != 0 { droneToDrone += 1 }
                    inFlight.append((to, i, bytes))
                case .groupDatagram(let bytes):
                    group[i] += 1
                    guard groupPasses else { continue }
                    for to in nodes.indices where to != i { inFlight.append((to, i, bytes)) }
                default: break
                }
            }
        }

        mutating func run(for span: Duration) {
            let end = now + span
            var tick = 0
            while now < end {
                now = now + .milliseconds(10)
                tick += 1
                for i in nodes.indices {
                    carry(nodes[i].onMeshTick(now: now, wallClockMicros: now.nanoseconds / 1000), at: i)
                    if tick % 5 == 0 {
                        if i > 0 {
                            let here = GeoPoint(latitude: 50 + Double(i) * 1e-4, longitude: 14, altitude: 10)
                            let state = VehicleState(position: here, activity: .hovering, armed: true)
                            let t = now
                            carry(
                                nodes[i].withCoordinator(now: t) {
                                    _ = $0.onLocalVehicleState(state, now: t)
                                    return $0.onLocalPrediction(
                                        TrajectoryPrediction(points: Array(repeating: here, count: 40)), now: t)
                                }, at: i)
                        }
                        carry(nodes[i].onCoordinatorTick(now: now), at: i)
                    }
                }
                while !inFlight.isEmpty {
                    let d = inFlight.removeFirst()
                    carry(nodes[d.to].onDatagram(d.bytes, from: d.from, now: now), at: d.to)
                }
            }
        }

        mutating func resetCounts() {
            unicast = Array(repeating: 0, count: nodes.count)
            group = unicast
            droneToDrone = 0
        }

        /// Every pair in session both ways.
        var whole: Bool {
            nodes.indices.allSatisfy { i in
                nodes.indices.allSatisfy { j in
                    i == j || nodes[i].mesh.membership.peers[nodes[j].mesh.localID]?.state == .established
                }
            }
        }

        /// Drones whose predictions node `i` holds.
        func predictionsHeld(at i: Int) -> Int {
            nodes[i].coordinator.airspace(now: now).filter { $0.node != nodes[i].mesh.localID }.count
        }
    }

    @Test("with the group, nodes hear each other's presence, predictions and telemetry without unicast datagrams")
    func presenceAndFloodsGoByGroup() {
        var segment = Segment(drones: 4, group: GroupSettings())
        segment.run(for: .seconds(3))
        #expect(segment.whole)
        segment.resetCounts()
        segment.run(for: .seconds(11))
        #expect(segment.whole)
        // Over 11 s every node refreshed its link-state advertisement (every 10 s): by group, like the presence, the
        // predictions and the telemetry for the station. Nothing at all went unicast.
        #expect(segment.unicast == [0, 0, 0, 0, 0], "unicast datagrams in 11 s: \(segment.unicast)")
        #expect(segment.nodes.allSatisfy { $0.coordinator.database.count == 4 })
        for i in segment.nodes.indices.dropFirst() {
            let drone = segment.nodes[i].mesh.localID
            #expect(segment.nodes[0].coordinator.fleetVehicle(drone, now: segment.now)?.isStale == false)
            // Telemetry for the station is heard by every drone on the segment, and dropped: not on its route.
            for j in segment.nodes.indices.dropFirst() where j != i {
                #expect(segment.nodes[j].coordinator.fleetVehicle(drone, now: segment.now) == nil)
            }
        }
        // 10 group datagrams per second per node: a drone's presence rides with its predictions (5 per second).
        for i in segment.nodes.indices {
            #expect((95...118).contains(segment.group[i]), "node \(i): \(segment.group[i])")
        }
        for i in segment.nodes.indices.dropFirst() { #expect(segment.predictionsHeld(at: i) == 3) }
        #expect(segment.predictionsHeld(at: 0) == 4)
        // Echoes give every node a round trip and a clock offset for every peer.
        for i in segment.nodes.indices {
            for j in segment.nodes.indices where j != i {
                let peer = segment.nodes[j].mesh.localID
                #expect(segment.nodes[i].mesh.membership.peers[peer]?.rtt != nil, "rtt \(i)→\(j)")
                #expect(segment.nodes[i].mesh.clockOffset(of: peer, now: segment.now) != nil, "clock \(i)→\(j)")
            }
        }
    }

    @Test("when group datagrams stop passing, unicast heartbeats and floods take over before anyone is suspected")
    func unicastTakesOverWhenTheGroupFails() {
        var segment = Segment(drones: 3, group: GroupSettings())
        segment.run(for: .seconds(3))
        #expect(segment.whole)
        segment.groupPasses = false
        var suspected = false
        for _ in 0..<200 {
            segment.run(for: .milliseconds(10))
            suspected =
                suspected
                || segment.nodes.contains { n in n.mesh.membership.peers.values.contains { $0.state != .established } }
        }
        #expect(!suspected, "a peer left `established` when the group stopped passing")
        segment.resetCounts()
        segment.run(for: .seconds(1))
        #expect(segment.whole)
        // Heartbeats (20 per second each way) and predictions go unicast between drones again.
        #expect(segment.droneToDrone >= 100, "unicast between drones: \(segment.droneToDrone) in 1 s")
        for i in segment.nodes.indices.dropFirst() { #expect(segment.predictionsHeld(at: i) == 2) }
        // And back: the group carries it all again.
        segment.groupPasses = true
        segment.run(for: .seconds(1))
        segment.resetCounts()
        segment.run(for: .seconds(1))
        #expect(segment.droneToDrone <= 6, "unicast between drones once the group is back: \(segment.droneToDrone)")
    }

    @Test("the group costs fewer datagrams than unicast: ten nodes, the same traffic")
    func theGroupCostsLessThanUnicast() {
        var withGroup = Segment(drones: 9, group: GroupSettings())
        var without = Segment(drones: 9, group: nil)
        withGroup.run(for: .seconds(3))
        without.run(for: .seconds(3))
        withGroup.resetCounts()
        without.resetCounts()
        withGroup.run(for: .seconds(2))
        without.run(for: .seconds(2))
        let a = withGroup.unicast.reduce(0, +) + withGroup.group.reduce(0, +)
        let b = without.unicast.reduce(0, +)
        // Without: 20 heartbeats + 20 replies + 5 predictions per second per pair (8,190 in 2 s); with: 10 per node per
        // second plus the telemetry to the station (378).
        #expect(a * 15 < b, "datagrams in 2 s: \(a) with the group, \(b) without")
        #expect(withGroup.predictionsHeld(at: 0) == 9)
        #expect(without.predictionsHeld(at: 0) == 9)
    }
}
