import Coordinator
import Determinism
import Membership
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
}

/// The mesh layer's answer to a datagram on a session it no longer has.
@Suite struct StaleSessionTests {
    @Test("a forgotten peer's datagrams on the old session bring a probe at once, not at the next probe slot")
    func staleSessionDatagramsBringAProbeAtOnce() throws {
        let key = try MeshKey(bytes: Array(repeating: 0x33, count: 32))
        let membership = MembershipConfiguration(forgetAfter: .seconds(3))
        var nodes = [
            MeshCore<Int>(
                key: key, localID: NodeID(high: 1, low: 1), incarnation: 1, role: .station, name: "a", uavNumber: nil,
                membership: membership, random: SeededRandom(seed: 1)),
            MeshCore<Int>(
                key: key, localID: NodeID(high: 2, low: 2), incarnation: 2, role: .drone, name: "b", uavNumber: nil,
                membership: membership, random: SeededRandom(seed: 2)),
        ]
        var now = MeshInstant.zero
        var deaf = false  // node 1 ("b") hears nothing from node 0
        var captured: [[UInt8]] = []  // what node 0 sent while node 1 was deaf
        func carry(_ directives: [MeshCore<Int>.Directive], from i: Int) {
            for d in directives {
                guard case .send(let bytes, let to) = d else { continue }
                if deaf && i == 0 {
                    captured.append(bytes)
                    continue
                }
                carry(nodes[to].onDatagram(bytes, from: i, now: now), from: to)
            }
        }
        func run(for d: Duration) {
            let end = now + d
            while now < end {
                now = now + .milliseconds(10)
                for i in 0..<2 {
                    carry(nodes[i].onTick(now: now, wallClockMicros: 1_000_000 + now.nanoseconds / 1000), from: i)
                }
            }
        }
        carry(
            nodes[0].onDiscovered(
                id: nodes[1].localID, incarnation: nil, name: "b", role: .drone, uavNumber: nil, address: 1, now: now),
            from: 0)
        run(for: .seconds(1))
        #expect(nodes[1].membership.peers[nodes[0].localID]?.state == .established)
        // Node 1 stops hearing node 0 for longer than its forget interval; node 0 still hears node 1.
        deaf = true
        run(for: .seconds(5))
        #expect(nodes[1].membership.forgotten[nodes[0].localID] != nil, "node 1 should have forgotten node 0")
        // The link is back: a datagram node 0 sends on a session node 1 no longer has arrives. Node 1 refuses it and,
        // in the same call, starts a handshake to node 0.
        deaf = false
        var stale = try #require(
            captured.last { $0.first == MessageType.transport.rawValue }, "node 0 sent nothing on its old session")
        // On a session node 1 no longer holds (dropped with the forgotten peer, expired, or from before a restart):
        // a receiver index it does not know.
        stale.replaceSubrange(1..<5, with: [0xDE, 0xAD, 0xBE, 0xEF])
        now = now + .milliseconds(300)  // not at one of node 1's probe slots, nor within 250 ms of its last initiation
        let answer = nodes[1].onDatagram(stale, from: 0, now: now)
        #expect(answer.contains { if case .rejected = $0 { true } else { false } })
        #expect(
            answer.contains {
                if case .send(let b, 0) = $0 { b.first == MessageType.initiation.rawValue } else { false }
            },
            "no initiation to node 0: \(answer)")
    }
}
