// Seal+open of a 200-byte datagram through the secure transport, measured by ordo-one/benchmark with its malloc
// interposer: wall clock and mallocs per datagram (`.kilo`: 1,000 datagrams an iteration, figures per datagram).
//
//   swift package --package-path Benchmarks benchmark          (or: make bench-mallocs)
//
// The buffer forms must show 0 mallocs per datagram; the array forms (`send`/`receive`, `GroupChannel.seal`/`open` of
// arrays) show what a new datagram, plaintext and directive array cost.
import Benchmark
import MeshTypes
import SecureTransport

/// Two endpoints with a session both ways, and a group channel pair, keyed by one mesh key; buffers for the datagram
/// and the plaintext. Made once, before any measurement.
final class Link: @unchecked Sendable {
    let idA = NodeID(high: 1, low: 1)
    let idB = NodeID(high: 2, low: 2)
    var a: SecureEndpoint<Int>
    var b: SecureEndpoint<Int>
    var groupSender: GroupChannel
    var groupReceiver: GroupChannel
    let now = MeshInstant.after(.seconds(1))
    let payload = (0..<200).map { UInt8(truncatingIfNeeded: $0) }
    let datagram = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
    let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)

    init() {
        let key = MeshKey.generate()
        a = SecureEndpoint(key: key, localID: idA, incarnation: 1, role: .station)
        b = SecureEndpoint(key: key, localID: idB, incarnation: 2, role: .drone)
        groupSender = GroupChannel(meshKey: key, localID: idA, incarnation: 1)
        groupReceiver = GroupChannel(meshKey: key, localID: idB, incarnation: 2)
        var toB = Self.sends(a.connect(to: 2, expecting: idB, now: now, wallClockMicros: 1_800_000_000_000_000))
        while !toB.isEmpty {
            var toA: [[UInt8]] = []
            for d in toB { toA += Self.sends(b.receive(d, from: 1, now: now)) }
            toB = []
            for d in toA { toB += Self.sends(a.receive(d, from: 2, now: now)) }
        }
        precondition(a.hasSession(with: idB, now: now) && b.hasSession(with: idA, now: now), "handshake failed")
        // The group receiver learns the sender (its key and replay window) before anything is measured.
        _ = groupReceiver.open(groupSender.seal(payload))
    }

    static func sends(_ directives: [SecureEndpoint<Int>.Directive]) -> [[UInt8]] {
        directives.compactMap { if case .send(let bytes, _) = $0 { bytes } else { nil } }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 1,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1000
    )
    let link = Link()

    Benchmark("seal+open 200 B, buffers (SecureEndpoint.seal/open)") { benchmark in
        link.payload.withUnsafeBytes { p in
            for _ in benchmark.scaledIterations {
                let s = try! link.a.seal(p, to: link.idB, into: link.datagram, now: link.now)
                let o = try! link.b.open(
                    .init(rebasing: link.datagram[0..<s.count]), from: 1, into: link.plain, now: link.now)
                blackHole(o)
            }
        }
    }

    Benchmark("seal+open 200 B, arrays (SecureEndpoint.send/receive)") { benchmark in
        for _ in benchmark.scaledIterations {
            let d = Link.sends(try! link.a.send(link.payload, to: link.idB, now: link.now))[0]
            blackHole(link.b.receive(d, from: 1, now: link.now))
        }
    }

    Benchmark("group seal+open 200 B, buffers (GroupChannel.seal/open)") { benchmark in
        link.payload.withUnsafeBytes { p in
            for _ in benchmark.scaledIterations {
                let n = try! link.groupSender.seal(p, into: link.datagram)
                blackHole(try! link.groupReceiver.open(.init(rebasing: link.datagram[0..<n]), into: link.plain))
            }
        }
    }

    Benchmark("group seal+open 200 B, arrays (GroupChannel.seal/open)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(link.groupReceiver.open(link.groupSender.seal(link.payload)))
        }
    }
}
