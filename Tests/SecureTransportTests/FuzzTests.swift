import Determinism
import MeshTypes
import Testing

@testable import SecureTransport

@Suite("Hostile input")
struct FuzzTests {
    /// Endpoints 1 and 2 share a session; 1 has a handshake pending towards 3, whose (undelivered) response is captured.
    struct Fixture {
        var net = TestNetwork()
        var samples: [(bytes: [UInt8], to: Int)] = []

        init() throws {
            net.addNode(1)
            let b = net.addNode(2)
            net.addNode(3)
            net.handshake(1, 2)
            net.connect(1, to: 3)
            let initiation = net.takeInFlight()[0].bytes
            _ = net.inject(initiation, from: 1, to: 3)
            let response = net.takeInFlight()[0].bytes
            try net.send(1, Array(repeating: 0x41, count: 40), to: b)
            let toB = net.takeInFlight()[0].bytes
            try net.send(2, [0x42], to: net.id(1))
            let toA = net.takeInFlight()[0].bytes
            samples = [(initiation, 2), (response, 1), (toB, 2), (toA, 1)]
            net.clearLogs()
        }
    }

    static func mutate(_ original: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
        var m = original
        switch Int.random(in: 0..<7, using: &rng) {
        case 0:  // truncate
            m = Array(m.prefix(Int.random(in: 0..<m.count, using: &rng)))
        case 1:  // flip 1–8 bits
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                m[Int.random(in: 0..<m.count, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            }
        case 2:  // extend
            m += rng.bytes(Int.random(in: 1...40, using: &rng))
        case 3:  // change the type byte
            m[0] = UInt8.random(in: 0...255, using: &rng)
        case 4:  // overwrite a random field-sized run
            let start = Int.random(in: 0..<m.count, using: &rng)
            let end = min(m.count, start + Int.random(in: 1...16, using: &rng))
            for i in start..<end { m[i] = UInt8.random(in: 0...255, using: &rng) }
        case 5:  // wholly random, plausible type and length
            m = [UInt8.random(in: 1...3, using: &rng)] + rng.bytes([98, 102, 28, 60, 12].randomElement(using: &rng)!)
        default:  // wholly random
            m = rng.bytes(Int.random(in: 0...300, using: &rng))
        }
        if m == original { m.append(0) }
        return m
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func mutatedAndRandomDatagramsAreRejectedNeverDelivered(seed: UInt64) throws {
        var fixture = try Fixture()
        var rng = SeededRandom(seed: seed)
        for case_ in 0..<2000 {
            let sample = fixture.samples.randomElement(using: &rng)!
            let datagram = Self.mutate(sample.bytes, &rng)
            let ds = fixture.net.inject(datagram, from: Int.random(in: 1...5, using: &rng), to: sample.to)
            let onlyRejections = ds.count <= 1 && ds.allSatisfy { if case .rejected = $0 { true } else { false } }
            #expect(onlyRejections, "seed \(seed) case \(case_): \(datagram) gave \(ds)")
            if !onlyRejections { return }
        }
        // The real session is unharmed: the original transport datagram still decrypts once.
        let toB = fixture.samples[2]
        do {
            let ok = fixture.net.inject(toB.bytes, from: 1, to: 2).count == 1
            #expect(ok)
        }
        #expect(fixture.net.delivered(at: 2).map(\.1) == [Array(repeating: 0x41, count: 40)])
    }

    @Test func rejectionNamesTheClaimedPeerWhenParseable() throws {
        var fixture = try Fixture()
        var initiation = fixture.samples[0].bytes
        initiation[40] ^= 0xFF
        let ds = fixture.net.inject(initiation, from: 7, to: 2)
        #expect(ds == [.rejected(7, .wrongMeshKey(claimedPeer: fixture.net.id(1)))])
        let short = fixture.net.inject(Array(initiation.prefix(50)), from: 7, to: 2)
        guard case .rejected(7, .malformed(let e, let who))? = short.first else {
            Issue.record("expected malformed, got \(short)")
            return
        }
        #expect(who == fixture.net.id(1))
        #expect(e.reason == "handshake initiation: expected 103 bytes, found 50")
        do {
            let ok = fixture.net.inject([], from: 7, to: 2) == [.rejected(7, .unknownMessageType(nil))]
            #expect(ok)
        }
        do {
            let ok = fixture.net.inject([9, 9], from: 7, to: 2) == [.rejected(7, .unknownMessageType(9))]
            #expect(ok)
        }
        var version = fixture.samples[0].bytes
        version[1] = ProtocolVersion.current + 1
        do {
            let ok =
                fixture.net.inject(version, from: 7, to: 2) == [
                    .rejected(7, .unsupportedVersion(ProtocolVersion.current + 1, claimedPeer: fixture.net.id(1)))
                ]
            #expect(ok)
        }
    }
}
