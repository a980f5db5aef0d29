import MeshTypes
import SecureTransport

/// Figures for the secure transport: AEAD round trips against a plain copy, handshake latency, replay-window rate.
enum SecureTransportBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        out.heading("Secure transport")
        let key = MeshKey.generate()
        let idA = NodeID(high: 1, low: 1)
        let idB = NodeID(high: 2, low: 2)
        var a = SecureEndpoint<Int>(key: key, localID: idA, incarnation: 1, role: .station)
        var b = SecureEndpoint<Int>(key: key, localID: idB, incarnation: 2, role: .drone)
        var now = MeshInstant.after(.seconds(1))
        var wall: UInt64 = 1_800_000_000_000_000

        /// Runs one complete handshake A→B; returns whether both sides ended up established.
        func handshake() -> Bool {
            wall += 1
            var toB = sends(a.connect(to: 2, expecting: idB, now: now, wallClockMicros: wall))
            var established = 0
            while !toB.isEmpty {
                var toA: [[UInt8]] = []
                for d in toB {
                    let ds = b.receive(d, from: 1, now: now)
                    established += ds.filter(isEstablished).count
                    toA += sends(ds)
                }
                toB = []
                for d in toA {
                    let ds = a.receive(d, from: 2, now: now)
                    established += ds.filter(isEstablished).count
                    toB += sends(ds)
                }
            }
            return established == 2
        }

        guard handshake() else { throw BenchFailure("handshake did not complete") }

        // Seal + open of a 200-byte payload through both endpoints, against copying the same bytes.
        let payload = (0..<200).map { UInt8(truncatingIfNeeded: $0) }
        var delivered = 0
        let sealOpen = throughput(seconds: 1.0, batch: 500) {
            let datagram = sends(try! a.send(payload, to: idB, now: now))[0]
            for d in b.receive(datagram, from: 1, now: now) {
                if case .deliver(let p, _) = d { delivered += p.count }
            }
        }
        let copy = throughput(seconds: 1.0, batch: 5000) {
            let copied = [UInt8](unsafeUninitializedCapacity: payload.count) { buffer, count in
                payload.withUnsafeBytes { source in
                    buffer.baseAddress!.update(
                        from: source.bindMemory(to: UInt8.self).baseAddress!, count: source.count)
                }
                count = payload.count
            }
            blackHole(copied)
        }
        blackHole(delivered)
        out.rate(
            "seal+open 200 B (endpoint to endpoint)", perSecond: sealOpen,
            note: String(format: "%.1f MB/s of payload", sealOpen * 200 / 1e6))
        out.rate("baseline: copy 200 B into a new array", perSecond: copy)
        out.ratio("seal+open cost vs copy", copy / sealOpen, against: "plain copy (x slower)")

        // Handshake latency, in process.
        var samples = Samples()
        let clock = ContinuousClock()
        for _ in 0..<2000 {
            a.forget(idB)
            b.forget(idA)
            now += .milliseconds(1)
            let start = clock.now
            let ok = handshake()
            samples.add(clock.now - start)
            if !ok { throw BenchFailure("handshake did not complete") }
        }
        out.latency("handshake initiation→response→established", samples, unit: .microseconds)

        // Replay window: mostly in order with some reordering, as on a real link.
        var window = ReplayWindow()
        var counter: UInt64 = 0
        var accepted = 0
        let checks = throughput(seconds: 0.5, batch: 10_000) {
            counter &+= 1
            let c = counter % 16 == 0 ? counter &- 40 : counter
            if window.canAccept(c), window.record(c) { accepted += 1 }
        }
        blackHole(accepted)
        out.rate("replay window check+record", perSecond: checks)
    }

    private static func sends(_ directives: [SecureEndpoint<Int>.Directive]) -> [[UInt8]] {
        directives.compactMap { if case .send(let bytes, _) = $0 { bytes } else { nil } }
    }

    private static func isEstablished(_ d: SecureEndpoint<Int>.Directive) -> Bool {
        if case .established = d { true } else { false }
    }

    struct BenchFailure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}
