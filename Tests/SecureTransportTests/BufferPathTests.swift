import AllocationCounter
import Crypto
import MeshTypes
import Testing

@testable import SecureTransport

/// The zero-allocation hot path: sealing and opening between caller-provided buffers, for sessions
/// (`SecureEndpoint.seal`/`open`) and the group channel (`GroupChannel.seal`/`open`). Same bytes as the array forms,
/// same refusals, clear errors for small buffers, and no heap allocation per datagram.
@Suite struct BufferPathTests {
    static let payload = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    /// Two endpoints with a confirmed session both ways (1 = initiator, 2 = responder).
    static func pair() -> (a: Endpoint, b: Endpoint, now: MeshInstant) {
        var net = TestNetwork()
        net.addNode(1)
        net.addNode(2)
        net.handshake(1, 2)
        return (net.endpoints[1]!, net.endpoints[2]!, net.now)
    }

    @Test("seal into a buffer, open into a buffer: the plaintext arrives; same bytes as send; receive opens it too")
    func roundTrip() throws {
        var (a, b, now) = Self.pair()
        var copy = a  // the same state: sends with the same counter
        let viaArray = try #require(TestVectorTests.sent(try copy.send(Self.payload, to: b.localID, now: now)).first)
        var datagram = [UInt8](repeating: 0, count: 512)
        var plain = [UInt8](repeating: 0, count: 512)
        let sealed = try Self.payload.withUnsafeBytes { p in
            try datagram.withUnsafeMutableBytes { try a.seal(p, to: b.localID, into: $0, now: now) }
        }
        #expect(sealed == .init(count: 229, address: 2))
        #expect(Array(datagram[0..<sealed.count]) == viaArray)
        let opened = try datagram.withUnsafeBytes { d in
            try plain.withUnsafeMutableBytes {
                try b.open(.init(rebasing: d[0..<sealed.count]), from: 1, into: $0, now: now)
            }
        }
        #expect(opened == .delivered(count: 200, from: a.localID))
        #expect(Array(plain[0..<200]) == Self.payload)
        // The array forms and the buffer forms interoperate both ways.
        let next = try #require(TestVectorTests.sent(try a.send([1, 2, 3], to: b.localID, now: now)).first)
        let o2 = try next.withUnsafeBytes { d in
            try plain.withUnsafeMutableBytes { try b.open(d, from: 1, into: $0, now: now) }
        }
        #expect(o2 == .delivered(count: 3, from: a.localID) && plain[0..<3] == [1, 2, 3])
        let s3 = try [UInt8]().withUnsafeBytes { p in
            try datagram.withUnsafeMutableBytes { try a.seal(p, to: b.localID, into: $0, now: now) }
        }
        #expect(b.receive(Array(datagram[0..<s3.count]), from: 1, now: now) == [.keepalive(from: a.localID)])
    }

    @Test("an empty plaintext is a keepalive; handshake datagrams come back as directives")
    func keepaliveAndHandshake() throws {
        var (a, b, now) = Self.pair()
        var datagram = [UInt8](repeating: 0, count: 64)
        var plain = [UInt8](repeating: 0, count: 64)
        let s = try [UInt8]().withUnsafeBytes { p in
            try datagram.withUnsafeMutableBytes { try a.seal(p, to: b.localID, into: $0, now: now) }
        }
        #expect(s.count == 29)
        let o = try datagram.withUnsafeBytes { d in
            try plain.withUnsafeMutableBytes {
                try b.open(.init(rebasing: d[0..<s.count]), from: 1, into: $0, now: now)
            }
        }
        #expect(o == .keepalive(from: a.localID))
        // A handshake initiation is not a transport message: `open` answers with what `receive` would.
        var c = Endpoint(key: TestNetwork.sharedKey, localID: NodeID(high: 3, low: 3), incarnation: 1, role: .drone)
        let initiation = try #require(
            TestVectorTests.sent(c.connect(to: 2, now: now, wallClockMicros: 1_800_000_000_000_000)).first)
        let answer = try initiation.withUnsafeBytes { d in
            try plain.withUnsafeMutableBytes { try b.open(d, from: 3, into: $0, now: now) }
        }
        guard case .directives(let ds) = answer, case .send(let response, to: 3)? = ds.first else {
            Issue.record("expected a response to send, got \(answer)")
            return
        }
        #expect(response.first == MessageType.response.rawValue)
    }

    @Test("refused: a tampered tag or body, a replay, an unknown index; forgeries move nothing")
    func refusals() throws {
        var (a, b, now) = Self.pair()
        var datagram = [UInt8](repeating: 0, count: 256)
        let s = try Self.payload.withUnsafeBytes { p in
            try datagram.withUnsafeMutableBytes { try a.seal(p, to: b.localID, into: $0, now: now) }
        }
        let genuine = Array(datagram[0..<s.count])
        func open(_ d: [UInt8]) throws -> Endpoint.Opened {
            var plain = [UInt8](repeating: 0xEE, count: 256)
            let o = try d.withUnsafeBytes { d in
                try plain.withUnsafeMutableBytes { try b.open(d, from: 1, into: $0, now: now) }
            }
            if case .directives = o { #expect(plain[0..<200].allSatisfy { $0 == 0 || $0 == 0xEE }) }  // nothing leaked
            return o
        }
        var tamperedTag = genuine
        tamperedTag[tamperedTag.count - 1] ^= 0x80
        #expect(try open(tamperedTag) == .directives([.rejected(1, .decryptionFailed(peer: a.localID))]))
        var tamperedBody = genuine
        tamperedBody[50] ^= 0x01
        #expect(try open(tamperedBody) == .directives([.rejected(1, .decryptionFailed(peer: a.localID))]))
        var tamperedHeader = genuine
        tamperedHeader[12] ^= 0x40  // the counter (a fresh one): authenticated data and nonce
        #expect(try open(tamperedHeader) == .directives([.rejected(1, .decryptionFailed(peer: a.localID))]))
        #expect(try open(genuine) == .delivered(count: 200, from: a.localID))
        let counter = genuine.withUnsafeBytes { $0.bigEndianUInt64(at: 5) }
        #expect(try open(genuine) == .directives([.rejected(1, .replayedCounter(peer: a.localID, counter: counter))]))
        var unknown = genuine
        unknown[1] ^= 0xFF
        let index = unknown.withUnsafeBytes { $0.bigEndianUInt32(at: 1) }
        #expect(try open(unknown) == .directives([.rejected(1, .unknownReceiverIndex(index))]))
        #expect(try open(Array(genuine.prefix(28))) == .directives([.rejected(1, Endpoint.tooShort(28))]))
    }

    @Test("a buffer too small is a clear error that uses up nothing")
    func bufferTooSmall() throws {
        var (a, b, now) = Self.pair()
        var copy = a
        let expected = try #require(TestVectorTests.sent(try copy.send(Self.payload, to: b.localID, now: now)).first)
        var small = [UInt8](repeating: 0, count: 228)
        #expect(throws: SecureTransportError.bufferTooSmall(needed: 229, available: 228)) {
            try Self.payload.withUnsafeBytes { p in
                try small.withUnsafeMutableBytes { try a.seal(p, to: b.localID, into: $0, now: now) }
            }
        }
        #expect(
            SecureTransportError.bufferTooSmall(needed: 229, available: 228).description
                == "buffer too small: 229 bytes needed, 228 available")
        var datagram = [UInt8](repeating: 0, count: 229)
        _ = try Self.payload.withUnsafeBytes { p in
            try datagram.withUnsafeMutableBytes { try a.seal(p, to: b.localID, into: $0, now: now) }
        }
        #expect(datagram == expected)  // the same counter: the failed seal took none
        var plain = [UInt8](repeating: 0, count: 199)
        #expect(throws: SecureTransportError.bufferTooSmall(needed: 200, available: 199)) {
            try datagram.withUnsafeBytes { d in
                try plain.withUnsafeMutableBytes { try b.open(d, from: 1, into: $0, now: now) }
            }
        }
        plain = [UInt8](repeating: 0, count: 200)
        let o = try datagram.withUnsafeBytes { d in
            try plain.withUnsafeMutableBytes { try b.open(d, from: 1, into: $0, now: now) }
        }
        #expect(o == .delivered(count: 200, from: a.localID))  // the refused call did not touch the window
        #expect(throws: SecureTransportError.noSession(NodeID(high: 9, low: 9))) {
            try Self.payload.withUnsafeBytes { p in
                try datagram.withUnsafeMutableBytes { try a.seal(p, to: NodeID(high: 9, low: 9), into: $0, now: now) }
            }
        }
    }

    @Test(
        "group channel: buffer and array forms give the same bytes as swift-crypto's ChaChaPoly; refusals; small buffers"
    )
    func groupChannel() throws {
        let key = MeshKey.generate()
        let a = NodeID(high: 1, low: 1)
        var sender = GroupChannel(meshKey: key, localID: a, incarnation: 7)
        var copy = sender
        var receiver = GroupChannel(meshKey: key, localID: NodeID(high: 2, low: 2), incarnation: 9)
        var datagram = [UInt8](repeating: 0, count: 512)
        var plain = [UInt8](repeating: 0, count: 512)
        let n = try Self.payload.withUnsafeBytes { p in
            try datagram.withUnsafeMutableBytes { try sender.seal(p, into: $0) }
        }
        #expect(n == 200 + GroupChannel.overhead)
        let bytes = Array(datagram[0..<n])
        #expect(bytes == copy.seal(Self.payload))
        // An independent implementation of the same AEAD: swift-crypto's ChaChaPoly with the documented nonce and AD.
        let groupKey = SessionKey(
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: key.bytes), info: Array("fleetmesh v1 group".utf8),
                outputByteCount: 32))
        let senderKey = GroupChannel.senderKey(groupKey, a, 7)
        let nonce = try ChaChaPoly.Nonce(data: [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8))
        let box = try ChaChaPoly.seal(Self.payload, using: senderKey.key, nonce: nonce, authenticating: bytes[0..<33])
        #expect(Array(bytes[33...]) == Array(box.ciphertext) + Array(box.tag))
        // Opened into a buffer.
        let opened = try bytes.withUnsafeBytes { d in
            try plain.withUnsafeMutableBytes { try receiver.open(d, into: $0) }
        }
        #expect(
            opened == .success(.init(sender: a, incarnation: 7, count: 200, counter: 0))
                && Array(plain[0..<200]) == Self.payload)
        #expect(
            try bytes.withUnsafeBytes { d in try plain.withUnsafeMutableBytes { try receiver.open(d, into: $0) } }
                == .failure(.replayed(sender: a, counter: 0)))
        var tampered = sender.seal([1, 2, 3])
        tampered[tampered.count - 2] ^= 0x10
        #expect(
            try tampered.withUnsafeBytes { d in try plain.withUnsafeMutableBytes { try receiver.open(d, into: $0) } }
                == .failure(.badTag(claimedSender: a)))
        // Buffers too small: clear errors, nothing used up.
        var small = [UInt8](repeating: 0, count: 248)
        #expect(throws: SecureTransportError.bufferTooSmall(needed: 249, available: 248)) {
            try Self.payload.withUnsafeBytes { p in try small.withUnsafeMutableBytes { try sender.seal(p, into: $0) } }
        }
        let next = sender.seal(Self.payload)  // counter 2: the failed seal took none
        #expect(next[25..<33] == [0, 0, 0, 0, 0, 0, 0, 2])
        var smallPlain = [UInt8](repeating: 0, count: 199)
        #expect(throws: SecureTransportError.bufferTooSmall(needed: 200, available: 199)) {
            try next.withUnsafeBytes { d in try smallPlain.withUnsafeMutableBytes { try receiver.open(d, into: $0) } }
        }
        #expect((try? receiver.open(next).get().plaintext) == Self.payload)
    }

    @Test("no heap allocation per datagram: 10,000 seal+open through two endpoints and through the group channel")
    func noAllocationPerDatagram() throws {
        var (a, b, now) = Self.pair()
        let peer = b.localID
        let payload = Self.payload
        var datagram = [UInt8](repeating: 0, count: 512)
        var plain = [UInt8](repeating: 0, count: 512)
        var group = GroupChannel(meshKey: TestNetwork.sharedKey, localID: a.localID, incarnation: 1)
        var groupReceiver = GroupChannel(meshKey: TestNetwork.sharedKey, localID: peer, incarnation: 1)
        var delivered = 0
        func roundTrips(_ n: Int) throws {
            try payload.withUnsafeBytes { p in
                try datagram.withUnsafeMutableBytes { d in
                    try plain.withUnsafeMutableBytes { out in
                        for _ in 0..<n {
                            let s = try a.seal(p, to: peer, into: d, now: now)
                            let o = try b.open(.init(rebasing: d[0..<s.count]), from: 1, into: out, now: now)
                            if case .delivered(let count, _) = o { delivered += count }
                            let g = try group.seal(p, into: d)
                            if case .success(let m) = try groupReceiver.open(.init(rebasing: d[0..<g]), into: out) {
                                delivered += m.count
                            }
                        }
                    }
                }
            }
        }
        try roundTrips(10)  // first use: the group sender's key and window are made here
        allocation_counter_start()
        try roundTrips(10_000)
        let allocations = allocation_counter_stop()
        #expect(allocations == 0)
        #expect(delivered == 10_010 * 400)
        // The counter does see allocations: the array forms allocate the datagram, the plaintext and the directives.
        allocation_counter_start()
        let ds = try a.send(payload, to: peer, now: now)
        let received = b.receive(TestVectorTests.sent(ds)[0], from: 1, now: now)
        let arrayAllocations = allocation_counter_stop()
        #expect(received == [.deliver(payload, from: a.localID)])
        #expect(arrayAllocations >= 3)
    }
}
