import Foundation
import MeshSimulation
import Testing

/// Link outages of every length against whole mesh layers (endpoint + membership + reliable channels) on a virtual
/// clock: every pair is back in session, with messages flowing each way, within 1 s of every heal.
@Suite("Link outages (deterministic simulation)")
struct LinkOutageTests {
    static var seeds: [UInt64] {
        let env = ProcessInfo.processInfo.environment
        if let one = env["MESHSIM_OUTAGE_SEED"].flatMap(UInt64.init) { return [one] }
        let count = env["MESHSIM_OUTAGE_SEEDS"].flatMap(UInt64.init) ?? 4
        return Array(1...count)
    }

    @Test("every pair reconnects within 1 s of every heal, whatever the outage (seeded)")
    func everyPairReconnectsAfterEveryHeal() {
        var all: [LinkOutageSimulation.Recovery] = []
        var failures: [String] = []
        for seed in Self.seeds {
            var spec = LinkOutageSimulation.Spec(seed: seed)
            spec.nodes = seed % 3 == 0 ? 4 : 3
            spec.trace = ProcessInfo.processInfo.environment["MESHSIM_OUTAGE_TRACE"] != nil
            let result = LinkOutageSimulation.run(spec)
            all += result.recoveries
            failures += result.failures
        }
        #expect(failures.isEmpty, "\(failures.prefix(10).joined(separator: "\n")) (replay: MESHSIM_OUTAGE_SEED=n)")
        // The draw must really cover every kind of outage, or the test proves little.
        #expect(all.contains { $0.outage > .seconds(20) }, "no outage longer than the forget interval was drawn")
        #expect(all.contains { $0.outage > .seconds(180) }, "no outage longer than the session lifetime was drawn")
        #expect(all.contains { $0.outage < .milliseconds(750) }, "no outage shorter than loss detection was drawn")
        #expect(all.contains { $0.oneWay } && all.contains { !$0.oneWay })
        let times = all.compactMap(\.messagesFlowing).map { $0 / .milliseconds(1) }.sorted()
        if !times.isEmpty {
            print(
                "link outages: \(all.count) heals, messages flowing again p50 \(Int(times[times.count / 2])) ms, "
                    + "p99 \(Int(times[min(times.count - 1, times.count * 99 / 100)])) ms, max \(Int(times.last!)) ms")
        }
    }

    @Test("a bound tighter than one probe interval is missed: the check can fail")
    func theCheckCanFail() {
        // Outages past loss detection need a probe (every 500 ms) to recover, so some heal must take over 20 ms.
        var spec = LinkOutageSimulation.Spec(seed: 7)
        spec.episodes = 3
        spec.bound = .milliseconds(20)
        #expect(!LinkOutageSimulation.run(spec).failures.isEmpty)
    }
}
