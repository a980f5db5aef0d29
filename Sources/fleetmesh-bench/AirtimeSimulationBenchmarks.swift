import Coordinator
import Foundation
import MeshSimulation
import MeshTypes

/// Bytes on the air in the deterministic simulation (`AirtimeSimulation`: whole nodes, real crypto, a virtual clock
/// and one shared link), counted like the lab's link counters: 2 stations and N flying drones, 3 s formed (10 s from 100 drones), 10 s
/// counted; with the group channel for FLEETMESH_BENCH_AIRSIM_SIZES (default 10,25,50,100,200) and, as the baseline
/// in the same run, with it off (per-peer unicast) for FLEETMESH_BENCH_AIRSIM_BASELINE (default 10,25). Formation is
/// reported for each (time, datagrams and bytes until every node is in session with every other), also with the
/// nodes started over FLEETMESH_BENCH_AIRSIM_SPREAD seconds (default 2) for FLEETMESH_BENCH_AIRSIM_SPREAD_SIZES
/// (default 25,50). And a fleet spread over a field, several hops across (FLEETMESH_BENCH_AIRSIM_FIELD, default
/// 25,50 drones, about 30 s of wall time; 100 and 200 take minutes each; `fieldRows`), and along a strip longer than a
/// prediction's reach (FLEETMESH_BENCH_AIRSIM_STRIP, default 50,100; `stripRows`).
enum AirtimeSimulationBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        let environment = ProcessInfo.processInfo.environment
        func sizes(_ key: String, _ fallback: String) -> [Int] {
            (environment[key] ?? fallback).split(separator: ",").compactMap {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
        }
        out.heading("Bytes on the air, simulated: 2 stations + N flying drones on one link (AirtimeSimulation)")
        var unicast: [Int: AirtimeSimulation.Result] = [:]
        for n in sizes("FLEETMESH_BENCH_AIRSIM_BASELINE", "10,25") {
            let r = AirtimeSimulation.run(drones: n, group: false)
            unicast[n] = r
            out.line("baseline, group off: \(n) drones", describe(r))
        }
        var rows: [AirtimeSimulation.Result] = []
        for n in sizes("FLEETMESH_BENCH_AIRSIM_SIZES", "10,25,50,100,200") {
            let clock = ContinuousClock()
            let t0 = clock.now
            let r = AirtimeSimulation.run(drones: n, group: true, settle: .seconds(n > 50 ? 10 : 3))
            rows.append(r)
            out.line("\(n) drones", describe(r) + "  (simulated in \(clock.now - t0))")
            if let u = unicast[n] {
                out.line(
                    "\(n) drones: group channel vs group off",
                    String(format: "%.1f x fewer bytes", u.bitsPerSecond / r.bitsPerSecond))
            }
        }
        // Formation when the nodes start over a few seconds instead of at one instant: each node's neighbour list
        // grows while its advertisements flood (issue #16's formation at scale).
        let spread = Double(environment["FLEETMESH_BENCH_AIRSIM_SPREAD"] ?? "") ?? 2
        for n in sizes("FLEETMESH_BENCH_AIRSIM_SPREAD_SIZES", "25,50") {
            let r = AirtimeSimulation.run(
                drones: n, group: true, startSpread: .milliseconds(Int(spread * 1000)),
                settle: .seconds(spread + 5))
            out.line("\(n) drones started over \(spread) s", describe(r))
        }
        let baselines = Baselines(
            hold: sizes("FLEETMESH_BENCH_AIRSIM_HOLD_BASELINE", "50"),
            refresh: sizes("FLEETMESH_BENCH_AIRSIM_REFRESH_BASELINE", ""),
            rate: sizes("FLEETMESH_BENCH_AIRSIM_RATE_BASELINE", "100"),
            prune: sizes("FLEETMESH_BENCH_AIRSIM_PRUNE_BASELINE", "50"),
            telemetry: sizes("FLEETMESH_BENCH_AIRSIM_TELEMETRY_BASELINE", "50"))
        fieldRows(out, sizes("FLEETMESH_BENCH_AIRSIM_FIELD", "25,50"), baselines)
        let strip = sizes("FLEETMESH_BENCH_AIRSIM_STRIP", "50,100")
        stripRows(
            out, strip, baselines,
            baseline: environment["FLEETMESH_BENCH_AIRSIM_STRIP_BASELINE"] == nil
                ? strip : sizes("FLEETMESH_BENCH_AIRSIM_STRIP_BASELINE", ""),
            parts: sizes("FLEETMESH_BENCH_AIRSIM_PARTS", ""))
        growth(out, "growth with the fleet (bytes ∝ N^k)", rows.map { ($0.nodes, $0.bitsPerSecond) })
    }

    /// A fleet spread over a field instead of one link: 2 stations and N drones on a grid 10 wide, 20 m apart, each
    /// hearing the nodes within 50 m (radio range: 20 neighbours inside the grid), so routes are several hops long and
    /// every advertisement floods across the whole fleet. 10 s to form, 10 s counted; then the same with link-state
    /// refreshes every 60 s (age limit 200 s) instead of 10 s, which leaves them out of the window: the difference is
    /// what the 10 s refresh flood costs as the fleet grows.
    static func fieldRows(_ out: BenchOutput, _ sizes: [Int], _ baselines: Baselines) {
        guard !sizes.isEmpty else { return }
        let layout = AirtimeSimulation.Layout.field(columns: 10, spacing: 20, range: 50)
        var rows: [(nodes: Int, r: AirtimeSimulation.Result)] = []
        var baseline: [(nodes: Int, r: AirtimeSimulation.Result)] = []
        for n in sizes {
            let clock = ContinuousClock()
            let t0 = clock.now
            let r = spread(n, layout)
            rows.append((n + 2, r))
            out.line("field, \(n) drones", describe(r) + "  (simulated in \(clock.now - t0))")
            let slow = spread(n, layout) {
                $0.linkStateRefreshInterval = .seconds(60)
                $0.linkStateMaxAge = .seconds(200)
            }
            out.line("field, \(n) drones, no refresh in the window", describe(slow))
            let everyone = spread(n, layout) {
                $0.selectsFloodRelays = false
            }
            baseline.append((n + 2, everyone))
            out.line("field, \(n) drones, baseline: every node forwards floods", describe(everyone))
            out.line(
                "field, \(n) drones: bytes with relays vs every node forwarding",
                String(format: "%.2f x", r.bitsPerSecond / everyone.bitsPerSecond))
            baselineRows(out, "field", n, layout, r, baselines)
        }
        growth(out, "field: growth with the fleet (bytes ∝ N^k)", rows.map { ($0.nodes, $0.r.bitsPerSecond) })
        growth(
            out, "field, baseline (every node forwards): growth", baseline.map { ($0.nodes, $0.r.bitsPerSecond) })
    }

    /// A fleet along a strip 4 wide, 40 m apart, each radio reaching 100 m (the hop limit of 8 then reaches about
    /// 700 m), longer than a prediction's reach (300 m) from 30 drones on: predictions stop where they cannot matter,
    /// so each node's share should stop growing with the fleet. The baseline in the same run forwards predictions
    /// without a bound (`predictionReach = 0`), as far as the hop limit.
    static func stripRows(
        _ out: BenchOutput, _ sizes: [Int], _ baselines: Baselines, baseline baselineSizes: [Int],
        parts partSizes: [Int]
    ) {
        guard !sizes.isEmpty else { return }
        let layout = AirtimeSimulation.Layout.field(columns: 4, spacing: 40, range: 100)
        var rows: [(nodes: Int, bitsPerSecond: Double)] = []
        var baseline: [(nodes: Int, bitsPerSecond: Double)] = []
        for n in sizes {
            let clock = ContinuousClock()
            let t0 = clock.now
            let r = spread(n, layout)
            rows.append((n + 2, r.bitsPerSecond))
            out.line(
                "strip, \(n) drones (\(Int((Double(n + 2) / 4).rounded(.up) * 40)) m long)",
                describe(r) + "  (simulated in \(clock.now - t0))")
            baselineRows(out, "strip", n, layout, r, baselines)
            if partSizes.contains(n) { partRows(out, "strip", n, layout, r) }
            guard baselineSizes.contains(n) else { continue }
            let unbounded = spread(n, layout) {
                $0.predictionReach = 0
            }
            baseline.append((n + 2, unbounded.bitsPerSecond))
            out.line("strip, \(n) drones, baseline: predictions without a bound", describe(unbounded))
            out.line(
                "strip, \(n) drones: bytes with the bound vs without",
                String(format: "%.2f x", r.bitsPerSecond / unbounded.bitsPerSecond))
        }
        growth(out, "strip: growth with the fleet (bytes ∝ N^k)", rows)
        growth(out, "strip, baseline (no bound): growth", baseline)
    }

    /// The fleet sizes at which each baseline runs, in the same run as the fleet it is compared with
    /// (FLEETMESH_BENCH_AIRSIM_HOLD_BASELINE, _REFRESH_, _RATE_, _PRUNE_ and _TELEMETRY_BASELINE; the last, default 50:
    /// one telemetry message per station instead of one for all of them).
    struct Baselines {
        var hold: [Int]
        var refresh: [Int]
        var rate: [Int]
        var prune: [Int]
        var telemetry: [Int]
    }

    /// Every baseline `baselines` asks for at `n` drones, each against `r`.
    static func baselineRows(
        _ out: BenchOutput, _ label: String, _ n: Int, _ layout: AirtimeSimulation.Layout,
        _ r: AirtimeSimulation.Result, _ baselines: Baselines
    ) {
        if baselines.hold.contains(n) { holdRow(out, label, n, layout, r) }
        if baselines.refresh.contains(n) {
            changedRow(out, label, n, layout, r, "refreshes whole", "refreshes without contents") {
                $0.compactRefreshes = false
            }
        }
        if baselines.rate.contains(n) { rateRow(out, label, n, layout, r) }
        if baselines.prune.contains(n) {
            // Every relay forwards what it holds.
            changedRow(out, label, n, layout, r, "every relay forwards", "repeated floods pruned") {
                $0.prunesRepeatedFloods = false
            }
        }
        if baselines.telemetry.contains(n) {
            // One telemetry message per station, each along its whole route.
            changedRow(out, label, n, layout, r, "telemetry per station", "telemetry shared") {
                $0.sharesTelemetryCopies = false
            }
        }
    }

    /// The same fleet with `change` made to every node's configuration, compared with `r` (`baseline` names the
    /// change's side, `name` the fleet's).
    static func changedRow(
        _ out: BenchOutput, _ label: String, _ n: Int, _ layout: AirtimeSimulation.Layout,
        _ r: AirtimeSimulation.Result, _ baseline: String, _ name: String,
        _ change: (inout CoordinatorConfiguration) -> Void
    ) {
        compare(out, "\(label), \(n) drones", baseline, name, r, spread(n, layout, configure: change))
    }

    /// The baseline for forwards held one mesh tick and packed (`NodeCore.forwardHold`: the same fleet with each
    /// forward leaving at once in a datagram of its own; FLEETMESH_BENCH_AIRSIM_HOLD_BASELINE, default 50 drones), in
    /// the same run.
    static func holdRow(
        _ out: BenchOutput, _ label: String, _ n: Int, _ layout: AirtimeSimulation.Layout, _ r: AirtimeSimulation.Result
    ) {
        let atOnce = spread(n, layout, forwardHold: .zero)
        compare(out, "\(label), \(n) drones", "forwards at once", "forwards held", r, atOnce)
    }

    /// The baselines for rates falling with distance (FLEETMESH_BENCH_AIRSIM_RATE_BASELINE, default 100: the
    /// 100-drone strip), in the same run: every prediction forwarded as far as the reach (`predictionFullRateReach` 0),
    /// and besides that every telemetry sample to every station (`telemetryFullRateHops` 0).
    static func rateRow(
        _ out: BenchOutput, _ label: String, _ n: Int, _ layout: AirtimeSimulation.Layout, _ r: AirtimeSimulation.Result
    ) {
        changedRow(out, label, n, layout, r, "every prediction forwarded", "both rates falling") {
            $0.predictionFullRateReach = 0
        }
        changedRow(out, label, n, layout, r, "every rate full", "both rates falling") {
            $0.predictionFullRateReach = 0
            $0.telemetryFullRateHops = 0
        }
    }

    /// Where a fleet's bytes go (FLEETMESH_BENCH_AIRSIM_PARTS, default none): the same fleet again without
    /// predictions, without telemetry, and without either (what is left: presence, link state, acknowledgements); each
    /// difference against the whole is what that part costs.
    static func partRows(
        _ out: BenchOutput, _ label: String, _ n: Int, _ layout: AirtimeSimulation.Layout, _ r: AirtimeSimulation.Result
    ) {
        let never = Duration.seconds(100_000)
        let variants: [(String, (inout CoordinatorConfiguration) -> Void)] = [
            ("without predictions", { $0.predictionInterval = never }),
            ("without telemetry", { $0.telemetryInterval = never }),
            (
                "without either",
                {
                    $0.predictionInterval = never
                    $0.telemetryInterval = never
                }
            ),
        ]
        for (name, change) in variants {
            let v = spread(n, layout, configure: change)
            out.line("\(label), \(n) drones, \(name)", describe(v))
            out.line(
                "\(label), \(n) drones: what that leaves out",
                String(
                    format: "%.1f kbit/s per node (%.0f %% of the bytes)",
                    (r.bitsPerSecondPerNode - v.bitsPerSecondPerNode) / 1e3,
                    100 * (1 - v.bitsPerSecond / r.bitsPerSecond)))
        }
    }

    /// 2 stations and `n` flying drones spread over `layout`: 10 s to form, 10 s counted.
    static func spread(
        _ n: Int, _ layout: AirtimeSimulation.Layout, forwardHold: Duration = .milliseconds(10),
        configure: (inout CoordinatorConfiguration) -> Void = { _ in }
    ) -> AirtimeSimulation.Result {
        AirtimeSimulation.run(
            drones: n, group: true, settle: .seconds(10), layout: layout, forwardHold: forwardHold,
            configure: configure)
    }

    static func compare(
        _ out: BenchOutput, _ label: String, _ baseline: String, _ change: String, _ r: AirtimeSimulation.Result,
        _ base: AirtimeSimulation.Result
    ) {
        out.line("\(label), baseline: \(baseline)", describe(base))
        out.line(
            "\(label): bytes with \(change) vs \(baseline)",
            String(
                format: "%.2f x bytes, %.2f x datagrams", r.bitsPerSecond / base.bitsPerSecond,
                r.framesPerSecond / base.framesPerSecond))
    }

    /// The log–log slope of bytes against nodes from the smallest fleet to the largest (1: linear, 2: quadratic).
    static func growth(_ out: BenchOutput, _ label: String, _ rows: [(nodes: Int, bitsPerSecond: Double)]) {
        guard let first = rows.first, let last = rows.last, last.nodes > first.nodes else { return }
        let k = log(last.bitsPerSecond / first.bitsPerSecond) / log(Double(last.nodes) / Double(first.nodes))
        out.line(label, String(format: "k = %.2f (%d → %d nodes)", k, first.nodes, last.nodes))
    }

    static func describe(_ r: AirtimeSimulation.Result) -> String {
        String(
            format: "%7.2f Mbit/s  %7.0f frames/s  %6.1f kbit/s per node", r.bitsPerSecond / 1e6, r.framesPerSecond,
            r.bitsPerSecondPerNode / 1e3)
            + String(
                format: " (group %d frames/s of %.0f B, unicast %d frames/s of %.0f B)",
                Int(Double(r.groupFrames) / r.seconds), Double(r.groupBytes) / Double(max(r.groupFrames, 1)),
                Int(Double(r.unicastFrames) / r.seconds), Double(r.unicastBytes) / Double(max(r.unicastFrames, 1)))
            + "  \(r.whole ? "whole" : "NOT whole"), \(r.flaps) flaps, \(r.predictionsMissing) predictions missing"
            + phase("formed in", r.formedAfter, r.formationFrames, r.formationBytes, missing: "NOT formed")
            + phase(
                "databases agree after", r.convergedAfter, r.convergenceFrames, r.convergenceBytes,
                missing: "databases NOT in agreement")
    }

    /// `; formed in 0.1 s, 8928 datagrams, 1.60 MB`, or `; NOT formed within the settling time`.
    static func phase(_ label: String, _ after: Duration?, _ frames: Int, _ bytes: Int, missing: String) -> String {
        guard let after else { return "; \(missing) within the settling time" }
        return String(
            format: "; \(label) %.1f s, %d datagrams, %.2f MB", after.secondsDouble, frames, Double(bytes) / 1e6)
    }
}
