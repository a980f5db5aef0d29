import Foundation
import MeshTypes
import SecureTransport

/// Figures for the secure transport: AEAD round trips (array and buffer forms, sessions and the group channel) against
/// a plain copy and against Python's `cryptography` doing the same seal and open, handshake latency, replay-window rate.
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

        // Seal + open of a 200-byte payload through both endpoints: the array forms (`send`/`receive`: a new datagram,
        // plaintext and directive array each time) and the buffer forms (`seal`/`open` into buffers kept by the caller).
        let payload = (0..<200).map { UInt8(truncatingIfNeeded: $0) }
        var delivered = 0
        let sealOpen = throughput(seconds: 1.0, batch: 500) {
            let datagram = sends(try! a.send(payload, to: idB, now: now))[0]
            for d in b.receive(datagram, from: 1, now: now) {
                if case .deliver(let p, _) = d { delivered += p.count }
            }
        }
        let datagramBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        let plainBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer {
            datagramBuffer.deallocate()
            plainBuffer.deallocate()
        }
        func buffersRoundTrip(_ p: UnsafeRawBufferPointer) {
            let s = try! a.seal(p, to: idB, into: datagramBuffer, now: now)
            let o = try! b.open(.init(rebasing: datagramBuffer[0..<s.count]), from: 1, into: plainBuffer, now: now)
            if case .delivered(let n, _) = o { delivered += n }
        }
        let sealOpenBuffers = payload.withUnsafeBytes { p in
            throughput(seconds: 1.0, batch: 5000) { buffersRoundTrip(p) }
        }
        // One at a time, to see the spread (each sample includes two clock reads, about 40 ns).
        var perOp = Samples()
        let clock = ContinuousClock()
        payload.withUnsafeBytes { p in
            for _ in 0..<100_000 {
                let start = clock.now
                buffersRoundTrip(p)
                perOp.add(clock.now - start)
            }
        }
        // The group channel's datagram (33-byte header as associated data), buffer forms.
        var groupSender = GroupChannel(meshKey: key, localID: idA, incarnation: 1)
        var groupReceiver = GroupChannel(meshKey: key, localID: idB, incarnation: 2)
        let groupSealOpen = payload.withUnsafeBytes { p in
            throughput(seconds: 1.0, batch: 5000) {
                let n = try! groupSender.seal(p, into: datagramBuffer)
                if case .success(let m) = try! groupReceiver.open(
                    .init(rebasing: datagramBuffer[0..<n]), into: plainBuffer)
                {
                    delivered += m.count
                }
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
        let python = try pythonCryptography()
        out.rate(
            "seal+open 200 B, buffers (endpoint to endpoint)", perSecond: sealOpenBuffers,
            note: String(format: "%.1f MB/s of payload", sealOpenBuffers * 200 / 1e6))
        out.latency("seal+open 200 B, buffers, one at a time", perOp, unit: .nanoseconds)
        out.rate(
            "seal+open 200 B, arrays (send / receive)", perSecond: sealOpen,
            note: String(format: "%.1f MB/s of payload", sealOpen * 200 / 1e6))
        out.rate("group datagram seal+open 200 B, buffers", perSecond: groupSealOpen)
        out.rate(
            "Python cryptography seal+open 200 B", perSecond: python.bare,
            note: "cryptography \(python.version), \(python.openssl); 33 B AD, nonce and AD fixed")
        out.rate(
            "Python cryptography, nonce and AD per datagram", perSecond: python.perDatagram,
            note: "as FleetMesh does: built from the counter each time")
        out.ratio(
            "seal+open buffers vs Python cryptography", sealOpenBuffers / max(python.bare, python.perDatagram),
            against: "Python's faster figure (x faster)")
        out.rate("baseline: copy 200 B into a new array", perSecond: copy)
        out.ratio("seal+open (buffers) cost vs copy", copy / sealOpenBuffers, against: "plain copy (x slower)")

        // Handshake latency, in process.
        var samples = Samples()
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

    /// Python's `cryptography` sealing and opening 200-byte datagrams with 33 bytes of associated data, on one core
    /// (Tools/chacha-bench.py): datagrams per second with the nonce and header built per datagram, and bare.
    static func pythonCryptography() throws -> (perDatagram: Double, bare: Double, version: String, openssl: String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/chacha-bench.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "1.0", "200", "33"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let perDatagram = json["per_datagram"] as? Double, let bare = json["bare"] as? Double
        else {
            throw BenchFailure(
                "Tools/chacha-bench.py failed (status \(process.terminationStatus)); cryptography installed? (make setup)"
            )
        }
        return (perDatagram, bare, json["cryptography"] as? String ?? "?", json["openssl"] as? String ?? "?")
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
