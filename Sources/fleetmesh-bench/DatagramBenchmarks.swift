import Foundation
import MeshSimulation
import MeshTypes
import NodeCore
import SecureTransport

/// The station's cost per datagram, in process: a station and N drones on the ground (`StationTraffic`, the lab's
/// star of `station`) run on a virtual clock to the steady state; the station's inputs of 5 s are recorded and fed
/// again, three times, to copies of the station as it was, each input timed alone. What this leaves out is the socket,
/// NIO and the actor (the lab's `station` figure has them). Baseline in the same run: the secure endpoint's `open` of
/// the same datagrams alone (session lookup, replay window, ChaCha20-Poly1305), into a buffer.
enum DatagramBenchmarks {
    static let clock = ContinuousClock()

    static func run(_ out: BenchOutput) async throws {
        out.heading("Per datagram: the station's NodeCore under drones on the ground (in process, virtual clock)")
        for n in [10, 100] {
            try measure(drones: n, out)
        }
    }

    static func measure(drones n: Int, _ out: BenchOutput) throws {
        var traffic = StationTraffic(spec: .init(drones: n))
        guard traffic.settle() else {
            throw BenchError("only \(traffic.liveDrones) of \(n) drones live in the station's picture after 60 s")
        }
        let before = traffic.station
        let seconds = 5
        let trace = traffic.record(for: .seconds(seconds))
        guard traffic.malformed.isEmpty else { throw BenchError("malformed: \(traffic.malformed.prefix(3))") }
        let replays = 3
        var datagram = Samples(), meshTick = Samples(), coordinatorTick = Samples()
        var busy = Duration.zero
        var sent = 0
        for _ in 0..<replays {
            var station = before
            for r in trace {
                let t0 = clock.now
                let effects = StationTraffic.feed(r.input, to: &station, now: r.at)
                let d = clock.now - t0
                busy += d
                sent += effects.count
                switch r.input {
                case .datagram: datagram.add(d)
                case .meshTick: meshTick.add(d)
                case .coordinatorTick: coordinatorTick.add(d)
                }
            }
        }
        blackHole(sent)
        // The baseline: the same datagrams opened by a copy of the station's endpoint, nothing else.
        var open = Samples()
        let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer { plain.deallocate() }
        var opened = 0
        for _ in 0..<replays {
            var endpoint = before.mesh.endpoint
            for r in trace {
                guard case .datagram(let bytes, let from) = r.input else { continue }
                bytes.withUnsafeBytes { d in
                    let t0 = clock.now
                    let o = try? endpoint.open(d, from: from, into: plain, now: r.at)
                    open.add(clock.now - t0)
                    if case .delivered = o { opened += 1 }
                }
            }
        }
        let perSecond = Double(datagram.count / replays) / Double(seconds)
        out.line(
            "station, \(n) drones: inputs per second",
            String(
                format: "%.0f datagrams, %.0f mesh ticks, %.0f coordinator ticks", perSecond,
                Double(meshTick.count / replays) / Double(seconds),
                Double(coordinatorTick.count / replays) / Double(seconds)))
        out.latency("  per received datagram (receive → handled)", datagram, unit: .microseconds)
        out.latency("  per 10 ms mesh tick", meshTick, unit: .microseconds)
        out.latency("  per 50 ms coordinator tick", coordinatorTick, unit: .microseconds)
        out.latency("  baseline: open alone, same datagrams", open, unit: .microseconds)
        out.ratio("  per datagram / open alone, p50", datagram.p50 / open.p50, against: "open alone")
        out.line(
            "  the core's CPU for this traffic",
            String(
                format: "%.1f %% of one core (%.1f %% datagrams, %.1f %% ticks)",
                busy.seconds / Double(replays * seconds) * 100,
                datagram.seconds.reduce(0, +) / Double(replays * seconds) * 100,
                (meshTick.seconds.reduce(0, +) + coordinatorTick.seconds.reduce(0, +)) / Double(replays * seconds)
                    * 100))
        if opened != datagram.count {
            out.line("  note", "\(datagram.count - opened) of \(datagram.count) datagrams did not open alone")
        }
    }
}
