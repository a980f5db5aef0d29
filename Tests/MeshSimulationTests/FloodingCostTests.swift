import Coordinator
import MeshSimulation
import MeshTypes
import Testing

@Suite("Simulation: flooding cost")
struct FloodingCostTests {
    /// A full mesh started at once: every link carries each advertisement about once, not once per node.
    @Test("link-state floods in a full mesh stay within one copy per link per version")
    func fullMeshAdvertisements() {
        let n = 20
        let specs = (0..<n).map { i in SimNodeSpec(role: i == 0 ? .station : .drone, name: "n\(i)") }
        var links: [(Int, Int)] = []
        for a in 0..<n { for b in (a + 1)..<n { links.append((a, b)) } }
        let sim = MeshSimulation(seed: 7, nodes: specs, links: links)
        sim.run(for: .seconds(5))
        let perLink = sim.linkStateSends.values
        // Without suppression every node repeats every version to every neighbour (about 20,000 sends here).
        print(
            "full mesh of \(n): \(perLink.reduce(0, +)) advertisements in 5 s, at most \(perLink.max() ?? 0) per link and direction"
        )
        // With summaries and requests on session-up (PROTOCOL.md §7.1a): 1,740 here; answering each summary with
        // every advertisement it lacked when it was sent, 5,857.
        #expect(perLink.reduce(0, +) < 3_000, "\(perLink.reduce(0, +)) advertisements")
        #expect((perLink.max() ?? 0) <= 20)
        // And the mesh still agrees: unique numbers, routes to everyone.
        let numbers = (1..<n).compactMap { sim.core($0)?.uavNumber }
        #expect(Set(numbers).count == n - 1)
        #expect(sim.core(0)!.routes.count == n - 1)
    }
}
