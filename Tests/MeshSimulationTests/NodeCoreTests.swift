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
