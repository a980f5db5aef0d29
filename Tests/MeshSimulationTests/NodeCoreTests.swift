import Coordinator
import Determinism
import MeshCore
import MeshTypes
import NodeCore
import SecureTransport
import Testing

/// The rules between the layers of `NodeCore`, on two nodes wired back to back (datagrams delivered in the order
/// sent, nothing lost).
@Suite struct NodeCoreTests {
    static let key = try! MeshKey(bytes: Array(repeating: 0x5A, count: 32))

    static func node(_ i: Int, role: NodeRole, name: String, origin: MapOriginAnnouncement? = nil) -> NodeCore<Int> {
        let id = NodeID(high: UInt64(i), low: 77)
        let mesh = MeshCore<Int>(
            key: key, localID: id, incarnation: UInt64(100 + i), role: role, name: name, uavNumber: nil,
            random: SeededRandom(seed: UInt64(i)))
        var configuration = CoordinatorConfiguration(nodeID: id, role: role, name: name)
        configuration.mapOrigin = origin
        let coordinator = CoordinatorCore(
            configuration: configuration, incarnation: UInt64(100 + i), persistedUAVNumber: nil,
            now: MeshInstant(nanoseconds: 0))
        return NodeCore(mesh: mesh, coordinator: coordinator)
    }

    @Test("a datagram that waited over a second for the node is dropped unread and counted; a fresher one is read")
    func aStaleDatagramIsDroppedUnread() throws {
        var nodes = [Self.node(0, role: .station, name: "station"), Self.node(1, role: .drone, name: "d")]
        let now = MeshInstant(nanoseconds: 5_000_000_000)
        let started = nodes[0].onDiscovered(
            id: nodes[1].mesh.localID, incarnation: nil, name: "d", role: .drone, uavNumber: nil, address: 1, now: now)
        let initiation = try #require(
            started.lazy.compactMap { e -> [UInt8]? in if case .datagram(let b, 1) = e { b } else { nil } }.first)
        func answers(waited: Duration) -> Int {
            nodes[1].onDatagram(initiation, from: 0, now: now, arrivedAt: now - waited).filter {
                if case .datagram = $0 { true } else { false }
            }.count
        }
        #expect(answers(waited: MeshCore<Int>.staleDatagramAge + .milliseconds(1)) == 0)
        #expect(nodes[1].mesh.rejections[MeshCore<Int>.staleCategory] == 1)
        #expect(answers(waited: MeshCore<Int>.staleDatagramAge - .milliseconds(100)) == 1)
        #expect(nodes[1].mesh.rejections[MeshCore<Int>.staleCategory] == 1)
    }

    @Test("a node is named by its advertisement, else by its session's or DNS-SD record's name, never by nothing")
    func aNodeWithoutAdvertisementIsNamedByItsRecord() {
        var nodes = [Self.node(0, role: .station, name: "station"), Self.node(1, role: .drone, name: "d")]
        let drone = nodes[1].mesh.localID
        let now = MeshInstant(nanoseconds: 1_000_000)
        #expect(nodes[0].name(of: drone) == nil)
        var inFlight: [(to: Int, from: Int, bytes: [UInt8])] = []
        func carry(_ effects: [NodeCore<Int>.Effect], at i: Int) {
            for case .datagram(let bytes, let to) in effects { inFlight.append((to, i, bytes)) }
        }
        carry(
            nodes[0].onDiscovered(
                id: drone, incarnation: nil, name: "d-record", role: .drone, uavNumber: nil, address: 1, now: now),
            at: 0)
        // Known only from its DNS-SD record so far (as a vehicle seen in relayed telemetry before its advertisement).
        #expect(nodes[0].coordinator.advertisement(of: drone) == nil)
        #expect(nodes[0].name(of: drone) == "d-record")
        var delivered = 0
        while !inFlight.isEmpty, delivered < 200 {
            let d = inFlight.removeFirst()
            delivered += 1
            carry(nodes[d.to].onDatagram(d.bytes, from: d.from, now: now), at: d.to)
        }
        #expect(nodes[0].coordinator.advertisement(of: drone) != nil)
        #expect(nodes[0].name(of: drone) == "d")
    }

    @Test(
        "a new session's hello leaves before the coordinator's first messages: the drone knows who announced the map origin"
    )
    func helloLeavesBeforeTheCoordinatorsFirstMessages() {
        let origin = MapOriginAnnouncement(
            position: GeoPoint(latitude: 50.0755, longitude: 14.4378, altitude: 0), epoch: 1)
        var nodes = [
            Self.node(0, role: .station, name: "station", origin: origin), Self.node(1, role: .drone, name: "d"),
        ]
        let now = MeshInstant(nanoseconds: 1_000_000)
        var inFlight: [(to: Int, from: Int, bytes: [UInt8])] = []
        var announcer: String?? = nil
        func carry(_ effects: [NodeCore<Int>.Effect], at i: Int) {
            for e in effects {
                switch e {
                case .datagram(let bytes, let to): inFlight.append((to, i, bytes))
                case .coordinator(.mapOriginChanged(_, let by)) where i == 1 && announcer == nil:
                    // Who the drone's coordinator thinks announced it, at the moment it hears the origin.
                    announcer = .some(nodes[1].coordinator.advertisement(of: by)?.name)
                default: break
                }
            }
        }
        // Only the station has found the drone's DNS-SD record: it starts the handshake.
        carry(
            nodes[0].onDiscovered(
                id: nodes[1].mesh.localID, incarnation: nil, name: "d", role: .drone, uavNumber: nil, address: 1,
                now: now), at: 0)
        var delivered = 0
        while !inFlight.isEmpty, delivered < 200 {
            let d = inFlight.removeFirst()
            delivered += 1
            let effects = nodes[d.to].onDatagram(d.bytes, from: d.from, now: now)
            carry(effects, at: d.to)
        }
        #expect(nodes[1].neighbours.contains(nodes[0].mesh.localID))
        #expect(
            announcer == .some("station"), "the drone heard the origin before the station's link-state advertisement")
    }

    @Test("a lost peer's reliable channel waits: nothing is retransmitted into an outage, all of it goes on the return")
    func aLostPeersChannelWaitsAndResumesOnItsReturn() {
        var nodes = [Self.node(0, role: .station, name: "station"), Self.node(1, role: .drone, name: "d")]
        let peer = nodes[1].mesh.localID
        var now = MeshInstant(nanoseconds: 1_000_000)
        var inFlight: [(to: Int, from: Int, bytes: [UInt8])] = []
        var linkUp = true
        var transportsWhileLost = 0
        var received: [[UInt8]] = []
        func carry(_ effects: [NodeCore<Int>.Effect], at i: Int) {
            for e in effects {
                switch e {
                case .datagram(let bytes, let to):
                    if i == 0, bytes.first == 3, nodes[0].mesh.membership.peers[peer]?.state == .lost {
                        transportsWhileLost += 1
                    }
                    if linkUp { inFlight.append((to, i, bytes)) }
                case .nodeMessage(0xF1, let payload, _) where i == 1: received.append(payload)
                default: break
                }
            }
        }
        func run(until end: MeshInstant) {
            while now < end {
                now = now + .milliseconds(10)
                for i in 0..<2 { carry(nodes[i].onMeshTick(now: now, wallClockMicros: now.nanoseconds / 1000), at: i) }
                while !inFlight.isEmpty {
                    let d = inFlight.removeFirst()
                    carry(nodes[d.to].onDatagram(d.bytes, from: d.from, now: now), at: d.to)
                }
            }
        }
        carry(
            nodes[0].onDiscovered(
                id: peer, incarnation: nil, name: "d", role: .drone, uavNumber: nil, address: 1, now: now),
            at: 0)
        run(until: now + .milliseconds(200))
        #expect(nodes[0].mesh.membership.peers[peer]?.state == .established)
        // The link fails; a message waits in the window through 5 s of outage.
        linkUp = false
        carry(nodes[0].sendReliable(0xF1, [1, 2, 3], to: peer, now: now), at: 0)
        run(until: now + .seconds(6))
        #expect(nodes[0].mesh.membership.peers[peer]?.state == .lost)
        #expect(transportsWhileLost == 0, "retransmissions into the outage")
        // Back: the message arrives.
        linkUp = true
        run(until: now + .seconds(2))
        #expect(nodes[0].mesh.membership.peers[peer]?.state == .established)
        #expect(received == [[1, 2, 3]])
    }
}
