import Determinism
import Foundation
import MeshSimulation
import Testing

/// Link outages of every length against whole nodes (`NodeCore`: endpoint, membership, reliable channels and the
/// coordinator) on a virtual clock: every pair is back in session, with messages flowing each way and the station's
/// commands answered, within 1 s of every heal, and no UAV number changes.
@Suite("Link outages (deterministic simulation)")
struct LinkOutageTests {
    static var seeds: [UInt64] {
        let env = ProcessInfo.processInfo.environment
        if let one = env["MESHSIM_OUTAGE_SEED"].flatMap(UInt64.init) { return [one] }
        let count = env["MESHSIM_OUTAGE_SEEDS"].flatMap(UInt64.init) ?? 4
        return Array(1...count)
    }

    @Test("every pair reconnects and is commanded again within 1 s of every heal, whatever the outage (seeded)")
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
        print(
            "link outages: \(all.count) heals; "
                + Self.summary("messages flowing again", all.compactMap(\.messagesFlowing)) + "; "
                + Self.summary("commands completed again", all.compactMap(\.commandsFlowing)))
    }

    /// `MESHSIM_COMPRESSED_SEEDS=n` sets how many run (default 300; `make soak` runs 3,000); `MESHSIM_COMPRESSED_SEED=n`
    /// replays one.
    @Test("300 seeds with the field's timings compressed: loss, outages of every length, rekeys (seeded)")
    func compressedSeeds() async {
        let env = ProcessInfo.processInfo.environment
        let seeds: [UInt64]
        if let one = env["MESHSIM_COMPRESSED_SEED"].flatMap(UInt64.init) {
            seeds = [one]
        } else {
            seeds = Array(1...(env["MESHSIM_COMPRESSED_SEEDS"].flatMap(UInt64.init) ?? 300))
        }
        let trace = env["MESHSIM_OUTAGE_TRACE"] != nil
        let results = await runSeeds(seeds) {
            var spec = LinkOutageSimulation.Spec.compressed(seed: $0)
            spec.trace = trace
            return LinkOutageSimulation.run(spec)
        }
        let failures = results.flatMap(\.failures)
        #expect(failures.isEmpty, "\(failures.prefix(10).joined(separator: "\n")) (replay: MESHSIM_COMPRESSED_SEED=n)")
        let all = results.flatMap(\.recoveries)
        let spec = LinkOutageSimulation.Spec.compressed(seed: 1)
        if seeds.count >= 100 {
            // The draw must cover every kind of outage and the sessions must really have been rekeyed.
            #expect(all.contains { $0.outage > spec.forgetAfter }, "no outage longer than the forget interval")
            #expect(all.contains { $0.outage > spec.transport.rejectAfter }, "no outage past the session lifetime")
            #expect(all.contains { $0.outage < .milliseconds(750) }, "no outage shorter than loss detection")
            #expect(all.contains { $0.oneWay } && all.contains { !$0.oneWay })
            #expect(results.filter { $0.rekeys > 0 }.count > seeds.count / 2, "sessions were not rekeyed")
        }
        let simulated = results.reduce(Duration.zero) { $0 + $1.simulated }
        print(
            "compressed link outages: \(seeds.count) seeds, \(all.count) heals, "
                + "\(results.reduce(0) { $0 + $1.rekeys }) rekeys, \(Int(simulated / .seconds(1))) s simulated; "
                + Self.summary("messages flowing again", all.compactMap(\.messagesFlowing)) + "; "
                + Self.summary("commands completed again", all.compactMap(\.commandsFlowing)))
    }

    static func summary(_ what: String, _ durations: [Duration]) -> String {
        let t = durations.map { $0 / .milliseconds(1) }.sorted()
        guard !t.isEmpty else { return "\(what): none" }
        return "\(what) p50 \(Int(t[t.count / 2])) ms, p99 \(Int(t[min(t.count - 1, t.count * 99 / 100)])) ms, "
            + "max \(Int(t.last!)) ms"
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
