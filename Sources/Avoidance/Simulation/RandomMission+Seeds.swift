import Determinism

extension RandomMission {
    /// The mission of `seed` as the test suite, the soak and the benchmark fly it: every 25th seed publishes the
    /// navigator's own predictions (as a drone node does), the others the motion model's.
    public static func standard(seed: UInt64, kind: Kind) -> RandomMission {
        RandomMission(seed: seed, kind: kind, predictionSource: seed % 25 == 0 ? .navigator : .model)
    }

    /// Flies the standard mission of every seed, on every core; outcomes in no particular order.
    public static func fly(_ seeds: [UInt64], kind: Kind) async -> [Outcome] {
        await runSeeds(seeds) { standard(seed: $0, kind: kind).run() }
    }
}
