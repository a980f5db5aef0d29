import Coordinator
import Determinism
import Foundation
import MeshSimulation
import MeshTypes

/// Coordinator figures: UAV-number settling at 10/100/1,000 nodes, command round trips in the simulation,
/// and the core's telemetry throughput.
enum CoordinatorBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        out.heading("Coordinator: UAV number settling (simulated, from cold start, no numbers persisted)")
        for n in [10, 100, 1000] { settling(out, nodes: n) }
        out.heading("Coordinator: clash resolution after a partition heals (simulated)")
        healSettling(out, drones: 40)
        out.heading("Coordinator: command round trip, virtual time (5 ms ± 3 ms per hop, vehicle verdict 10 ms)")
        roundTrip(out)
        out.heading("Coordinator: core throughput")
        throughputFigures(out)
    }

    /// A random connected world of bounded depth: node i hangs off one of the first i/8 nodes, plus a few cross links.
    static func world(nodes n: Int, seed: UInt64) -> (specs: [SimNodeSpec], links: [(Int, Int)]) {
        var rng = SeededRandom(seed: seed)
        let drones = min(n - max(1, n / 10), 240)
        let stations = n - drones
        let specs: [SimNodeSpec] = (0..<stations).map { .station("GS-\($0)") } + (0..<drones).map { .drone("D\($0)") }
        var links: [(Int, Int)] = []
        var order = Array(0..<n)
        order.shuffle(using: &rng)
        for k in 1..<n { links.append((order[rng.int(in: 0...max(0, k / 8 - 1))], order[k])) }
        for _ in 0..<(n / 5) { links.append((rng.int(in: 0...(n - 1)), rng.int(in: 0...(n - 1)))) }
        return (specs, links)
    }

    static func settling(_ out: BenchOutput, nodes n: Int) {
        let (specs, links) = world(nodes: n, seed: UInt64(n))
        let clock = ContinuousClock()
        let start = clock.now
        let sim = MeshSimulation(
            seed: UInt64(n), nodes: specs, links: links, network: NetworkProfile(encodeOnWire: false))
        sim.recordsDirectives = false
        let settled = sim.runUntilNumbersSettle(step: .milliseconds(50), limit: .seconds(60))
        let wall = clock.now - start
        let drones = specs.filter { $0.role == .drone }.count
        let label = "settle \(n) nodes (\(drones) drones)"
        if let settled {
            out.line(
                label,
                String(
                    format: "%7.2f s virtual  %8.2f s wall  (%d messages)", settled.seconds, wall.seconds,
                    sim.deliveredMessages))
        } else {
            out.line(label, "did not settle within 60 s virtual")
        }
    }

    static func healSettling(_ out: BenchOutput, drones: Int) {
        // Two halves with the same persisted numbers 1…drones/2 each; heal and time until no clash is left.
        let half = drones / 2
        var specs: [SimNodeSpec] = [.station("GS-1"), .station("GS-2")]
        for k in 0..<drones { specs.append(.drone("D\(k)", persisted: UInt8(k % half + 1), flying: k % 3 == 0)) }
        var links: [(Int, Int)] = []
        for k in 0..<drones { links.append((k < half ? 0 : 1, k + 2)) }
        links.append((2, 2 + half))
        var samples = Samples()
        for seed in 1...5 {
            let sim = MeshSimulation(
                seed: UInt64(seed), nodes: specs, links: links, network: NetworkProfile(encodeOnWire: false))
            sim.recordsDirectives = false
            sim.partition([[0] + (2..<(2 + half)).map { $0 }, [1] + ((2 + half)..<(2 + drones)).map { $0 }])
            sim.run(for: .seconds(2))
            sim.healAllLinks()
            if let d = sim.runUntilNumbersSettle(step: .milliseconds(10), limit: .seconds(10)) { samples.add(d) }
        }
        out.latency("heal \(drones) drones, \(half) clashes", samples)
    }

    static func roundTrip(_ out: BenchOutput) {
        for (label, specs, links) in [
            ("direct GS—D", [SimNodeSpec.station("GS"), .drone("D", persisted: 1, flying: true)], [(0, 1)]),
            (
                "one relay GS—R—D",
                [SimNodeSpec.station("GS"), .station("R"), .drone("D", persisted: 1, flying: true)], [(0, 1), (1, 2)]
            ),
        ] {
            let sim = MeshSimulation(seed: 9, nodes: specs, links: links)
            sim.recordsDirectives = false
            sim.run(for: .seconds(2))
            var accept = Samples(), complete = Samples()
            for _ in 0..<300 {
                guard let id = sim.sendCommand(from: 0, .hover, toUAV: 1) else { continue }
                sim.run(for: .milliseconds(500))
                if let t = sim.answerTimes[id], let s = sim.sentAt[id], t.count == 2 {
                    accept.add(t[0] - s)
                    complete.add(t[1] - s)
                }
            }
            out.latency("\(label): accepted", accept)
            out.latency("\(label): completed (vehicle 300 ms)", complete)
        }
    }

    static func throughputFigures(_ out: BenchOutput) {
        let me = NodeID(high: 0, low: 1)
        let neighbours = (2...4).map { NodeID(high: 0, low: UInt64($0)) }
        var core = CoordinatorCore(
            configuration: CoordinatorConfiguration(nodeID: me, role: .station, name: "GS"),
            incarnation: 1, persistedUAVNumber: nil, now: MeshInstant(nanoseconds: 0))
        for n in neighbours { _ = core.onNeighbourUp(n, now: MeshInstant(nanoseconds: 0)) }
        let origins = (0..<50).map { NodeID(high: 9, low: UInt64($0)) }
        let state = VehicleState(
            position: GeoPoint(latitude: 47, longitude: 8, altitude: 20), activity: .hovering, armed: true)
        var seq: UInt64 = 0
        var t: UInt64 = 0
        func next() -> CoordinatorMessage {
            seq += 1
            let env = Envelope(
                origin: origins[Int(seq % 50)], originIncarnation: 1, sequence: seq / 50 + 1, destination: .broadcast,
                ttl: 8)
            return .routed(env, .telemetry(uavNumber: UInt8(seq % 50 + 1), state: state))
        }
        let valueRate = throughput(seconds: 0.5) {
            t += 100_000
            blackHole(core.onMessage(next(), from: neighbours[0], now: MeshInstant(nanoseconds: t)))
        }
        out.rate("telemetry processed + flooded (values)", perSecond: valueRate)
        let encoded = (0..<10_000).map { _ in next().encode() }
        var k = 0
        let bytesRate = throughput(seconds: 0.5) {
            t += 100_000
            let (type, payload) = encoded[k % encoded.count]
            k += 1
            // Each sample is new to the core: shift its sequence past everything seen.
            if case .routed(var env, let body)? = try? CoordinatorMessage(type: type, payload: payload) {
                seq += 1
                env.sequence = seq
                blackHole(core.onMessage(.routed(env, body), from: neighbours[0], now: MeshInstant(nanoseconds: t)))
            }
        }
        out.rate("telemetry decoded + processed + flooded", perSecond: bytesRate)
        let decodeRate = throughput(seconds: 0.5) {
            let (type, payload) = encoded[k % encoded.count]
            k += 1
            blackHole(try? CoordinatorMessage(type: type, payload: payload))
        }
        out.rate("telemetry decode only (baseline)", perSecond: decodeRate)
        out.ratio("full pipeline cost vs decode only", decodeRate / bytesRate, against: "decode only")
        let dupRate = throughput(seconds: 0.5) {
            blackHole(
                core.onMessage(
                    .routed(
                        Envelope(
                            origin: origins[0], originIncarnation: 1, sequence: 1, destination: .broadcast, ttl: 8),
                        .telemetry(uavNumber: 1, state: state)), from: neighbours[0], now: MeshInstant(nanoseconds: t)))
        }
        out.rate("duplicate telemetry dropped", perSecond: dupRate)
    }
}
