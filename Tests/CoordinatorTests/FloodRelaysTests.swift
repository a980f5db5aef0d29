import Determinism
import MeshTypes
import Testing

@testable import Coordinator

/// The flood relays: a connected set that every node is in or next to, so a flood forwarded by the relays alone reaches
/// every node — checked on lines, full meshes and random fields of radios, where it must also be small.
@Suite struct FloodRelaysTests {
    /// A graph's nodes (random NodeIDs, so that priority is not position) and each one's neighbours.
    struct Graph {
        var ids: [NodeID]
        var adjacency: [[Int]]

        var database: [NodeID: LinkStateAdvertisement] {
            var out: [NodeID: LinkStateAdvertisement] = [:]
            for (i, id) in ids.enumerated() {
                out[id] = LinkStateAdvertisement(
                    origin: id, incarnation: 1, sequence: 1, role: .drone, name: "n\(i)", uavNumber: nil,
                    numberPinned: false, flying: true, neighbours: adjacency[i].map { ids[$0] }.sorted())
            }
            return out
        }

        /// Which nodes relay, each deciding from the same database.
        func relays(database: [NodeID: LinkStateAdvertisement]? = nil) -> Set<Int> {
            let db = database ?? self.database
            return Set(
                ids.indices.filter { i in
                    var others = db
                    others[ids[i]] = nil
                    return FloodRelays.isRelay(
                        me: ids[i], ownNeighbours: adjacency[i].map { ids[$0] }, database: others)
                })
        }

        /// The nodes a flood from `origin` reaches when the origin and the relays transmit it once each.
        func flood(from origin: Int, relays: Set<Int>) -> Set<Int> {
            var reached: Set<Int> = [origin]
            var transmit = [origin]
            while let t = transmit.popLast() {
                for n in adjacency[t] where reached.insert(n).inserted && relays.contains(n) { transmit.append(n) }
            }
            return reached
        }

        static func make(_ count: Int, seed: UInt64, edges: (Int, Int) -> Bool) -> Graph {
            var rng = SeededRandom(seed: seed)
            let ids = (0..<count).map { _ in NodeID(high: rng.next(), low: rng.next()) }
            var adjacency: [[Int]] = Array(repeating: [], count: count)
            for i in 0..<count {
                for j in 0..<count where j != i && edges(i, j) { adjacency[i].append(j) }
            }
            return Graph(ids: ids, adjacency: adjacency)
        }

        /// `count` radios placed at random in a `width` × `height` m field, each hearing those within `range` m.
        static func field(_ count: Int, width: Double, height: Double, range: Double, seed: UInt64) -> Graph {
            var rng = SeededRandom(seed: seed &+ 1000)
            let places = (0..<count).map { _ in
                (Double.random(in: 0..<width, using: &rng), Double.random(in: 0..<height, using: &rng))
            }
            return make(count, seed: seed) { i, j in
                let dx = places[i].0 - places[j].0
                let dy = places[i].1 - places[j].1
                return dx * dx + dy * dy <= range * range
            }
        }

        var isConnected: Bool { flood(from: 0, relays: Set(ids.indices)).count == ids.count }
    }

    @Test("on one link nobody relays: the origin's transmission reaches everyone")
    func fullMeshHasNoRelays() {
        let g = Graph.make(8, seed: 1) { _, _ in true }
        #expect(g.relays().isEmpty)
    }

    @Test("in a line every inner node relays, the ends do not")
    func lineRelaysItsInnerNodes() {
        let g = Graph.make(6, seed: 2) { i, j in abs(i - j) == 1 }
        #expect(g.relays() == [1, 2, 3, 4])
        #expect(g.flood(from: 0, relays: g.relays()).count == 6)
    }

    @Test(
        "in random fields the relays reach every node from every origin, and are under a third of the nodes",
        arguments: [(60, 2 as UInt64), (80, 3), (120, 4), (160, 5)])
    func randomFieldsAreCovered(count: Int, seed: UInt64) {
        // 60 m radios over 300 × 150 m: 4–8 hops across, 5–20 neighbours each.
        let g = Graph.field(count, width: 300, height: 150, range: 60, seed: seed)
        #expect(g.isConnected, "the seed's field is in one piece")
        let relays = g.relays()
        for origin in g.ids.indices {
            let reached = g.flood(from: origin, relays: relays)
            #expect(reached.count == count, "from \(origin): \(count - reached.count) of \(count) not reached")
        }
        #expect(relays.count * 3 < count, "\(relays.count) relays of \(count) nodes")
    }

    @Test("a node that lacks a neighbour's advertisement relays (it cannot tell whom that neighbour reaches)")
    func unknownNeighbourMakesARelay() {
        // Four nodes that all hear each other: nobody relays.
        let g = Graph.make(4, seed: 3) { _, _ in true }
        #expect(g.relays().isEmpty)
        // Node 0 without node 3's advertisement cannot tell that 3 hears the others: it relays.
        var db = g.database
        db[g.ids[3]] = nil
        #expect(FloodRelays.isRelay(me: g.ids[0], ownNeighbours: (1...3).map { g.ids[$0] }, database: db))
        // A node with a single neighbour joins nobody, whatever it knows.
        #expect(!FloodRelays.isRelay(me: g.ids[0], ownNeighbours: [g.ids[1]], database: [:]))
    }
}
