import Foundation

/// Runs `body` once per seed on every core (up to four lanes, each taking every n-th seed), and returns the outcomes
/// in no particular order. What every seeded simulation, soak and randomized test uses to run its seeds.
public func runSeeds<Outcome: Sendable>(
    _ seeds: [UInt64], _ body: @escaping @Sendable (UInt64) -> Outcome
) async -> [Outcome] {
    let lanes = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
    return await withTaskGroup(of: [Outcome].self) { group in
        for lane in 0..<lanes {
            let mine = stride(from: lane, to: seeds.count, by: lanes).map { seeds[$0] }
            group.addTask { mine.map(body) }
        }
        var all: [Outcome] = []
        for await part in group { all += part }
        return all
    }
}
