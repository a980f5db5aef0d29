// `fleetmesh-sim`: the deterministic whole-node simulations at a scale the debug test build cannot afford. Built in
// release by `make soak`, which runs `fleetmesh-sim outages --seeds 1000`: a thousand seeds of a station and 2–3
// drones (`NodeCore`: sessions, membership, reliable channels, coordinator) through link outages of every length,
// one way and both, with reconnection, rekeying, commands after every heal and stable UAV numbers checked.
import Dispatch
import Foundation
import MeshSimulation

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            """
            usage: fleetmesh-sim outages [--seeds N] [--first SEED] [--episodes N]
              runs seeds FIRST…FIRST+N−1 (default 1…1000, 2 outage episodes each) on every core; prints the recovery
              times (p50/p99) and every failure with the seed that replays it (MESHSIM_OUTAGE_SEED=n in the tests);
              exits 1 if any seed failed.
            usage: fleetmesh-sim station-traffic [--drones N] [--seconds S] [--replays R]
              a station and N drones (default 100) on the ground in a star; records S s (default 2) of the station's
              inputs in the steady state and feeds them R times (default 5) to a copy of the station, on one thread:
              what callgrind counts instructions of (`make bench-datagram-count`).

            """.utf8))
    exit(64)
}

var arguments = CommandLine.arguments.dropFirst()
if arguments.first == "station-traffic" { StationTrafficCount.run(Array(arguments.dropFirst())) }
guard arguments.popFirst() == "outages" else { usage() }
var seeds = 1000
var first: UInt64 = 1
var episodes = 2
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { usage() }
    switch flag {
    case "--seeds": seeds = Int(value) ?? { usage() }()
    case "--first": first = UInt64(value) ?? { usage() }()
    case "--episodes": episodes = Int(value) ?? { usage() }()
    default: usage()
    }
}
guard seeds > 0, episodes > 0 else { usage() }

/// Results by seed, filled from every core.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [LinkOutageSimulation.Result?]
    init(_ n: Int) { storage = Array(repeating: nil, count: n) }
    func set(_ i: Int, _ r: LinkOutageSimulation.Result) {
        lock.lock()
        storage[i] = r
        lock.unlock()
    }
    var all: [LinkOutageSimulation.Result] { storage.compactMap { $0 } }
}

let results = Results(seeds)
let started = Date()
let (firstSeed, episodeCount) = (first, episodes)
DispatchQueue.concurrentPerform(iterations: seeds) { k in
    let seed = firstSeed + UInt64(k)
    var spec = LinkOutageSimulation.Spec(seed: seed)
    spec.nodes = seed % 3 == 0 ? 4 : 3
    spec.episodes = episodeCount
    results.set(k, LinkOutageSimulation.run(spec))
}
let elapsed = Date().timeIntervalSince(started)
let all = results.all
let recoveries = all.flatMap(\.recoveries)
let failures = all.flatMap(\.failures)
let simulated = all.reduce(Duration.zero) { $0 + $1.simulated }

func percentiles(_ durations: [Duration]) -> String {
    let t = durations.map { $0 / .milliseconds(1) }.sorted()
    guard !t.isEmpty else { return "none" }
    return
        "p50 \(Int(t[t.count / 2])) ms, p99 \(Int(t[min(t.count - 1, t.count * 99 / 100)])) ms, max \(Int(t.last!)) ms"
}
let oneWay = recoveries.filter(\.oneWay).count
let longest = recoveries.map(\.outage).max() ?? .zero
print(
    """
    outages: \(seeds) seeds (\(first)…\(first + UInt64(seeds) - 1)), \(recoveries.count) heals (\(oneWay) one way), \
    outages up to \(Int(longest / .seconds(1))) s, \(Int(simulated / .seconds(1))) s simulated in \(String(format: "%.1f", elapsed)) s
      back in session:          \(percentiles(recoveries.compactMap(\.inSession)))
      messages flowing again:   \(percentiles(recoveries.compactMap(\.messagesFlowing)))
      commands completed again: \(percentiles(recoveries.compactMap(\.commandsFlowing)))
      failures: \(failures.count)
    """)
for f in failures.prefix(20) { print("  " + f) }
exit(failures.isEmpty ? 0 : 1)
