import Determinism
import MeshTypes
import Testing

@testable import SecureTransport

@Suite("Rekey and expiry")
struct RekeyTests {
    @Test func rekeyLosesNoMessageSentAcrossIt() throws {
        var net = TestNetwork()
        let a = net.addNode(1)
        let b = net.addNode(2)
        net.handshake(1, 2)
        let oldIndexAtB = try #require(net.endpoints[2]!.peers[a]?.current?.localIndex)
        net.clearLogs()
        net.now += .seconds(121)

        // Messages sealed on the old session, still in flight when the rekey happens.
        try net.send(1, [1], to: b)
        try net.send(2, [101], to: a)
        var held = net.takeInFlight()

        net.tick(1)  // initiator: session is older than rekeyAfter
        let initiation = net.takeInFlight()
        #expect(initiation.count == 1 && initiation[0].bytes[0] == MessageType.initiation.rawValue)
        _ = net.inject(initiation[0].bytes, from: 1, to: 2)
        let response = net.takeInFlight()
        #expect(response.count == 1 && response[0].bytes[0] == MessageType.response.rawValue)

        // The responder keeps sending on the old session until the new one is confirmed.
        try net.send(2, [102], to: a)
        let fromB = net.takeInFlight()
        #expect(fromB[0].bytes.bigEndianUInt32(at: 1) == net.endpoints[1]!.peers[b]!.current!.localIndex)
        held += fromB

        _ = net.inject(response[0].bytes, from: 2, to: 1)
        #expect(net.rekeys(at: 1) == [b])
        held += net.takeInFlight()  // the confirming keepalive
        try net.send(1, [2], to: b)  // on the new session
        try net.send(1, [3], to: b)
        held += net.takeInFlight()

        // Deliver everything in a scrambled order.
        var rng = SeededRandom(seed: 99)
        held.shuffle(using: &rng)
        for d in held { _ = net.inject(d.bytes, from: d.from, to: d.to) }
        #expect(net.rejections(at: 1).isEmpty && net.rejections(at: 2).isEmpty)
        #expect(Set(net.delivered(at: 2).map(\.1)) == [[1], [2], [3]])
        #expect(Set(net.delivered(at: 1).map(\.1)) == [[101], [102]])
        #expect(net.rekeys(at: 2) == [a])

        // B now sends on the new session, and the old one ages out without disturbing anything.
        try net.send(2, [103], to: a)
        #expect(net.inFlight[0].bytes.bigEndianUInt32(at: 1) != oldIndexAtB)
        net.pump()
        #expect(net.delivered(at: 1).last?.1 == [103])
        net.now += .seconds(60)  // old session is now 181 s old, the new one 60 s
        net.tickAll()
        #expect(!(net.log[1] ?? []).contains(.expired(b)))
        try net.send(1, [4], to: b)
        net.pump()
        #expect(net.delivered(at: 2).last?.1 == [4])
    }

    @Test func sessionsOlderThanRejectAfterAreNeverUsed() throws {
        var net = TestNetwork()
        let a = net.addNode(1)
        let b = net.addNode(2)
        net.handshake(1, 2)
        net.now += .seconds(179)
        try net.send(1, [1], to: b)
        let late = net.takeInFlight()[0]
        net.now += .seconds(1)  // 180 s
        do {
            let ok = net.inject(late.bytes, from: 1, to: 2) == [.rejected(1, .sessionExpired(peer: a))]
            #expect(ok)
        }
        #expect(throws: SecureTransportError.noSession(b)) { try net.send(1, [2], to: b) }
        #expect(!net.endpoints[1]!.hasSession(with: b, now: net.now))
        net.tickAll()
        #expect(net.log[1]!.contains(.expired(b)))
        #expect(net.log[2]!.contains(.expired(a)))
        #expect(net.endpoints[1]!.sessions.isEmpty)
        #expect(net.delivered(at: 2).isEmpty)
    }

    @Test func initiatorRekeysAfterMessageLimit() throws {
        var net = TestNetwork()
        net.addNode(1, configuration: SecureTransportConfiguration(rekeyAfterMessages: 5))
        let b = net.addNode(2)
        net.handshake(1, 2)  // the confirming keepalive used counter 0
        net.tick(1)
        #expect(net.inFlight.isEmpty)
        for i in 0..<4 { try net.send(1, [UInt8(i)], to: b) }
        net.pump()
        net.tick(1)
        #expect(net.inFlight.count == 1 && net.inFlight[0].bytes[0] == MessageType.initiation.rawValue)
        net.pump()
        #expect(net.rekeys(at: 1) == [b])
        #expect(net.endpoints[1]!.peers[b]!.current!.sendCounter == 1)
    }

    @Test func responderRekeysWhenInitiatorDoesNot() {
        var net = TestNetwork()
        net.addNode(1, configuration: SecureTransportConfiguration(rekeyAfter: .seconds(1000)))
        let b = net.addNode(2)
        net.handshake(1, 2)
        net.now += .seconds(150)
        net.tick(2)
        #expect(net.inFlight.count == 1 && net.inFlight[0].bytes[0] == MessageType.initiation.rawValue)
        net.pump()
        #expect(net.rekeys(at: 2) == [net.id(1)])
        #expect(net.rekeys(at: 1) == [b])
        #expect(net.endpoints[2]!.peers[net.id(1)]!.current!.isInitiator)
    }

    @Test func nextDeadlineDrivesTheRekey() {
        var net = TestNetwork()
        net.addNode(1)
        net.addNode(2)
        let start = net.now
        net.handshake(1, 2)
        #expect(net.endpoints[1]!.nextDeadline == start + .seconds(120))
        #expect(net.endpoints[2]!.nextDeadline == start + .seconds(150))
    }
}
