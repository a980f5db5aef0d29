import Determinism
import Foundation
import MeshSimulation
import Testing

@Suite("Random seeds")
struct RandomSeedTests {
    /// `MESHSIM_SEED=n` replays one seed; `MESHSIM_SEEDS=n` sets how many seeds run (default 1,000).
    @Test("every invariant holds on every seed")
    func seeds() async {
        let env = ProcessInfo.processInfo.environment
        let seeds: [UInt64]
        if let one = env["MESHSIM_SEED"].flatMap({ UInt64($0) }) {
            seeds = [one]
        } else {
            let count = env["MESHSIM_SEEDS"].flatMap { Int($0) } ?? 1000
            seeds = (0..<UInt64(count)).map { $0 &* 0x9E37_79B9 &+ 1 }
        }
        let outcomes = await runSeeds(seeds) { RandomScenario.run(seed: $0) }
        let failing = outcomes.filter { !$0.violations.isEmpty }.sorted { $0.seed < $1.seed }
        for f in failing.prefix(5) {
            let lines = f.violations.prefix(8).joined(separator: "\n")
            Issue.record("replay with MESHSIM_SEED=\(f.seed):\n\(lines)")
        }
        #expect(failing.isEmpty)
        // The runs must have exercised commands, acknowledgements and traffic, or they prove nothing.
        #expect(outcomes.allSatisfy { $0.messagesDelivered > 0 })
        if seeds.count >= 100 {
            #expect(outcomes.reduce(0) { $0 + $1.commandsAcknowledged } > 2 * seeds.count)
        }
    }

    @Test("a seed replays identically")
    func deterministic() {
        let a = RandomScenario.run(seed: 424242), b = RandomScenario.run(seed: 424242)
        #expect(a.messagesDelivered == b.messagesDelivered)
        #expect(a.commandsAcknowledged == b.commandsAcknowledged)
        #expect(a.violations == b.violations)
    }
}
