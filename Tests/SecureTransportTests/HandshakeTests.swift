import Determinism
import MeshTypes
import Testing

@testable import SecureTransport

@Suite("Handshake and sessions")
struct HandshakeTests {
    @Test func handshakeEstablishesBothSidesAndDataFlowsBothWays() throws {
        var net = TestNetwork()
        let a = net.addNode(1, role: .station)
        let b = net.addNode(2, incarnation: 77, role: .drone)
        net.handshake(1, 2)

        #expect(
            net.established(at: 1) == [
                Endpoint.PeerInfo(id: b, incarnation: 77, role: .drone, address: 2, previousIncarnation: nil)
            ])
        #expect(
            net.established(at: 2) == [
                Endpoint.PeerInfo(id: a, incarnation: 1, role: .station, address: 1, previousIncarnation: nil)
            ])
        #expect(net.rejections(at: 1).isEmpty && net.rejections(at: 2).isEmpty)

        try net.send(1, Array("hello drone".utf8), to: b)
        try net.send(2, Array("hello station".utf8), to: a)
        net.pump()
        #expect(net.delivered(at: 2).map(\.1) == [Array("hello drone".utf8)])
        #expect(net.delivered(at: 2).map(\.0) == [a])
        #expect(net.delivered(at: 1).map(\.1) == [Array("hello station".utf8)])

        let rows = net.endpoints[1]!.sessions
        #expect(rows.count == 1)
        #expect(rows.first?.peer == b && rows.first?.role == .drone && rows.first?.incarnation == 77)
        #expect(rows.first?.isInitiator == true && rows.first?.lastReceived == net.now)
        #expect(net.endpoints[2]!.sessions.first?.isInitiator == false)
    }

    @Test func datagramsAreEncryptedOnTheWire() throws {
        var net = TestNetwork()
        net.addNode(1)
        let b = net.addNode(2)
        net.handshake(1, 2)
        let secret = Array("the secret rendezvous point".utf8)
        _ = try net.endpoints[1]!.send(secret, to: b, now: net.now).map { d -> Void in
            guard case .send(let bytes, _) = d else { return }
            #expect(bytes.count == 13 + secret.count + 16)
            #expect(bytes[0] == MessageType.transport.rawValue)
            // The plaintext does not appear anywhere in the datagram.
            let found = (0...(bytes.count - secret.count)).contains { Array(bytes[$0..<$0 + secret.count]) == secret }
            #expect(!found)
        }
    }

    @Test func wrongKeyIsRefusedInBothDirectionsAndNothingIsDelivered() {
        var net = TestNetwork()
        let a = net.addNode(1)
        let b = net.addNode(2, key: try! MeshKey(bytes: Array(repeating: 9, count: 32)))
        net.connect(1, to: 2)
        net.pump()
        net.connect(2, to: 1)
        net.pump()
        #expect(net.rejections(at: 2) == [.wrongMeshKey(claimedPeer: a)])
        #expect(net.rejections(at: 1) == [.wrongMeshKey(claimedPeer: b)])
        #expect(net.rejections(at: 1).first!.description.contains("different mesh key"))
        #expect(net.established(at: 1).isEmpty && net.established(at: 2).isEmpty)
        #expect(net.delivered(at: 1).isEmpty && net.delivered(at: 2).isEmpty)
        #expect(throws: SecureTransportError.noSession(b)) { try net.send(1, [1], to: b) }
    }

    @Test func forgedResponseWithWrongKeyIsRefused() {
        var net = TestNetwork()
        net.addNode(1)
        net.addNode(2)
        net.addNode(3, key: try! MeshKey(bytes: Array(repeating: 5, count: 32)))
        net.connect(1, to: 2)
        let initiation = net.takeInFlight()[0]
        // A node with another key answers the initiation (pretending to be at address 2).
        _ = net.inject(initiation.bytes, from: 1, to: 3)
        #expect(net.rejections(at: 3) == [.wrongMeshKey(claimedPeer: net.id(1))])
        #expect(net.inFlight.isEmpty)
    }

    @Test func replayedTransportDatagramIsDropped() throws {
        var net = TestNetwork()
        net.addNode(1)
        let b = net.addNode(2)
        net.handshake(1, 2)
        try net.send(1, [1, 2, 3], to: b)
        let datagram = net.takeInFlight()[0]
        _ = net.inject(datagram.bytes, from: 1, to: 2)
        let replay = net.inject(datagram.bytes, from: 1, to: 2)
        #expect(net.delivered(at: 2).count == 1)
        // Counter 0 was the keepalive that confirmed the session.
        #expect(replay == [.rejected(1, .replayedCounter(peer: net.id(1), counter: 1))])
    }

    @Test func replayedInitiationIsRejected() {
        var net = TestNetwork()
        net.addNode(1)
        net.addNode(2)
        net.connect(1, to: 2)
        let initiation = net.inFlight[0]
        net.pump()
        net.now += .seconds(5)
        let ds = net.inject(initiation.bytes, from: 1, to: 2)
        guard case .rejected(1, .replayedInitiation(let who, let ts, let highest))? = ds.first else {
            Issue.record("expected a replayed-initiation rejection, got \(ds)")
            return
        }
        #expect(who == net.id(1) && ts == highest)
        #expect(ds.count == 1)  // no response sent
    }

    @Test(arguments: [false, true])
    func simultaneousConnectYieldsOneSessionWithMatchingKeys(higherFirst: Bool) throws {
        var net = TestNetwork()
        let a = net.addNode(1)
        let b = net.addNode(2)
        if higherFirst {
            net.connect(2, to: 1)
            net.connect(1, to: 2)
        } else {
            net.connect(1, to: 2)
            net.connect(2, to: 1)
        }
        #expect(net.inFlight.count == 2)
        net.pump()
        #expect(net.established(at: 1).count == 1)
        #expect(net.established(at: 2).count == 1)
        let sa = try #require(net.endpoints[1]!.peers[b]?.current)
        let sb = try #require(net.endpoints[2]!.peers[a]?.current)
        #expect(net.endpoints[1]!.unconfirmed.isEmpty && net.endpoints[2]!.unconfirmed.isEmpty)
        // The lower NodeID (node 1) initiated the surviving session.
        #expect(sa.isInitiator && !sb.isInitiator)
        #expect(sa.localIndex == sb.remoteIndex && sb.localIndex == sa.remoteIndex)
        #expect(sa.sendKey.bytes == sb.receiveKey.bytes && sa.receiveKey.bytes == sb.sendKey.bytes)
        #expect(net.endpoints[1]!.pendingHandshakes.isEmpty && net.endpoints[2]!.pendingHandshakes.isEmpty)
        try net.send(1, [1], to: b)
        try net.send(2, [2], to: a)
        net.pump()
        #expect(net.delivered(at: 1).map(\.1) == [[2]] && net.delivered(at: 2).map(\.1) == [[1]])
    }

    @Test("the tie-break winner whose initiation was lost answers the loser's with a fresh one of its own, at once")
    func tieBreakWinnerResendsAtOnce() throws {
        var net = TestNetwork()
        let a = net.addNode(1)
        let b = net.addNode(2)
        net.connect(1, to: 2, expecting: b)
        _ = net.takeInFlight()  // node 1's initiation is lost, and it waits out its backoff (no tick here)
        net.now = net.now + .milliseconds(400)
        net.connect(2, to: 1, expecting: a)  // the loser's probe arrives at the winner
        let loser = net.takeInFlight()
        #expect(loser.count == 1)
        let answer = net.inject(loser[0].bytes, from: 2, to: 1)
        // Still no response to the loser (the lower NodeID wins), but a fresh initiation goes back at once: before,
        // nothing left node 1 until its backoff ran out, and the path was idle meanwhile.
        #expect(answer.count == 1)
        let first = try #require(answer.first)
        guard case .send(let bytes, let to) = first else {
            Issue.record("expected an initiation, found \(first)")
            return
        }
        #expect(to == 2 && bytes.first == MessageType.initiation.rawValue)
        net.pump()
        #expect(net.established(at: 1).map(\.id) == [b] && net.established(at: 2).map(\.id) == [a])
    }

    @Test(
        "a handshake pending to a peer heard by group leaves again at once, backoff started over, at most every 250 ms")
    func heardElsewhereHurriesAPendingHandshake() throws {
        var net = TestNetwork()
        let a = net.addNode(1)
        let b = net.addNode(2)
        // Node 1's handshake goes unanswered through an outage: its resends back off (250, 500, 1000 ms …).
        net.connect(1, to: 2, expecting: b)
        for _ in 0..<40 {
            net.now = net.now + .milliseconds(50)
            net.tick(1)
        }
        _ = net.takeInFlight()
        let backedOff = try #require(net.endpoints[1]!.nextDeadline)
        #expect(backedOff - net.now > .milliseconds(500))
        // Node 2 is heard again, by group only (its sessions with node 1 expired): the initiation goes now.
        net.now = net.now + .milliseconds(260)
        let hurried = net.endpoints[1]!.heardElsewhere(b, now: net.now)
        net.apply(hurried, at: 1)
        #expect(hurried.count == 1)
        // Heard again within 250 ms: nothing more (a stream of group datagrams is not a stream of handshakes).
        net.now = net.now + .milliseconds(100)
        #expect(net.endpoints[1]!.heardElsewhere(b, now: net.now).isEmpty)
        // Nothing pending to a peer: nothing to hurry.
        #expect(net.endpoints[2]!.heardElsewhere(a, now: net.now).isEmpty)
        net.pump()
        #expect(net.established(at: 1).map(\.id) == [b] && net.established(at: 2).map(\.id) == [a])
    }

    @Test func responderCountsThePeerOnlyOnceTheInitiatorUsedTheSession() throws {
        var net = TestNetwork()
        let a = net.addNode(1)
        net.addNode(2)
        net.connect(1, to: 2)
        _ = net.inject(net.takeInFlight()[0].bytes, from: 1, to: 2)
        #expect(net.established(at: 2).isEmpty)
        #expect(throws: SecureTransportError.noSession(a)) { try net.send(2, [1], to: a) }
        net.pump()  // response, then the initiator's keepalive
        #expect(net.established(at: 2).map(\.id) == [a])
    }

    @Test func relayedInitiationNeverMakesAPeerAppear() {
        var net = TestNetwork()
        let a = net.addNode(1)
        net.addNode(2)
        net.addNode(3)
        net.connect(1, to: 2)
        let initiation = net.takeInFlight()[0]
        // An eavesdropper replays node 1's initiation to node 3, which answers it…
        let ds = net.inject(initiation.bytes, from: 66, to: 3)
        #expect(ds.count == 1)
        // …but nobody can use that session without node 1's ephemeral key, so node 3 never reports node 1.
        net.takeInFlight().forEach { _ = net.inject($0.bytes, from: 3, to: 66) }
        for _ in 0..<4 {
            net.now += .seconds(60)
            net.tick(3)
        }
        #expect(net.established(at: 3).isEmpty)
        #expect(net.endpoints[3]!.unconfirmed.isEmpty)
        #expect(!net.endpoints[3]!.hasSession(with: a, now: net.now))
    }

    @Test func nodeIDMismatchIsRejected() {
        var net = TestNetwork()
        net.addNode(1)
        let b = net.addNode(2)
        let wanted = NodeID(high: 42, low: 42)
        net.connect(1, to: 2, expecting: wanted)
        net.pump()
        #expect(net.rejections(at: 1) == [.nodeIDMismatch(expected: wanted, found: b)])
        #expect(net.established(at: 1).isEmpty)
        #expect(net.endpoints[1]!.pendingHandshakes.isEmpty)
    }

    @Test func incarnationChangeIsReported() throws {
        var net = TestNetwork()
        let a = net.addNode(1)
        let b = net.addNode(2, incarnation: 100)
        net.handshake(1, 2)
        // Node 2 restarts: same NodeID, new incarnation, empty state.
        net.now += .seconds(3)
        net.addNode(2, id: b, incarnation: 200)
        net.clearLogs()
        net.handshake(2, 1)
        #expect(
            net.established(at: 1) == [
                Endpoint.PeerInfo(id: b, incarnation: 200, role: .drone, address: 2, previousIncarnation: 100)
            ])
        #expect(net.established(at: 1).first?.isNewIncarnation == true)
        #expect(net.established(at: 2).first?.isNewIncarnation == false)
        try net.send(1, [7], to: b)
        try net.send(2, [8], to: a)
        net.pump()
        #expect(net.delivered(at: 2).map(\.1) == [[7]] && net.delivered(at: 1).map(\.1) == [[8]])
    }

    @Test func roamingPeerAddressFollowsAuthenticatedData() throws {
        var net = TestNetwork()
        let a = net.addNode(1)
        net.addNode(2)
        net.handshake(1, 2)
        // Node 1's datagram arrives from a new address 11.
        try net.send(1, [5], to: net.id(2))
        let d = net.takeInFlight()[0]
        _ = net.inject(d.bytes, from: 11, to: 2)
        #expect(net.endpoints[2]!.peerInfo(a)?.address == 11)
        try net.send(2, [6], to: a)
        #expect(net.inFlight.last?.to == 11)
        // A forged datagram from yet another address does not move it.
        var forged = d.bytes
        forged[forged.count - 1] ^= 1
        _ = net.inject(forged, from: 12, to: 2)
        #expect(net.endpoints[2]!.peerInfo(a)?.address == 11)
    }

    @Test func unansweredInitiationIsRetransmittedWithBackoffThenAbandoned() {
        var net = TestNetwork()
        net.addNode(1)
        net.connect(1, to: 9)  // nobody at 9
        var sendTimes: [Duration] = [.zero]
        let start = net.now
        var sent: [[UInt8]] = [net.takeInFlight()[0].bytes]
        while let deadline = net.endpoints[1]!.nextDeadline, deadline - start < .seconds(100) {
            net.now = deadline
            net.tick(1)
            for d in net.takeInFlight() {
                sendTimes.append(net.now - start)
                sent.append(d.bytes)
            }
        }
        let gaps = zip(sendTimes.dropFirst(), sendTimes).map { $0 - $1 }
        #expect(
            Array(gaps.prefix(5)) == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(2)])
        // Each retransmission is a fresh initiation (new ephemeral key and index).
        #expect(Set(sent.map { Array($0[2..<6]) }).count == sent.count)
        #expect(Set(sent.map { Array($0[31..<63]) }).count == sent.count)
        #expect(net.log[1]!.contains(.handshakeAbandoned(9, expected: nil)))
        #expect(net.endpoints[1]!.pendingHandshakes.isEmpty)
    }

    @Test func lostResponseIsRecoveredByRetransmission() throws {
        var net = TestNetwork()
        net.addNode(1)
        let b = net.addNode(2)
        net.connect(1, to: 2)
        net.pump(drop: { $0.bytes[0] == MessageType.response.rawValue })
        #expect(net.established(at: 1).isEmpty)
        net.now += .milliseconds(250)
        net.tick(1)
        net.pump()
        #expect(net.established(at: 1).count == 1)
        try net.send(1, [1], to: b)
        net.pump()
        #expect(net.delivered(at: 2).count == 1)
    }

    @Test func forgetDropsSessions() throws {
        var net = TestNetwork()
        net.addNode(1)
        let b = net.addNode(2)
        net.handshake(1, 2)
        net.endpoints[1]!.forget(b)
        #expect(net.endpoints[1]!.sessions.isEmpty)
        #expect(throws: SecureTransportError.noSession(b)) { try net.send(1, [1], to: b) }
        // The peer's datagrams on the forgotten session are refused, not delivered.
        try net.send(2, [1], to: net.id(1))
        net.pump()
        #expect(net.delivered(at: 1).isEmpty)
        #expect(net.rejections(at: 1).count == 1)
        // And it can reconnect.
        net.handshake(2, 1)
        #expect(net.endpoints[1]!.hasSession(with: b, now: net.now))
    }

    @Test func ownNodeIDIsRejected() {
        var net = TestNetwork()
        net.addNode(1)
        net.connect(1, to: 1)  // discovered itself
        net.pump()
        #expect(net.rejections(at: 1) == [.ownNodeID])
    }

    @Test func sixtyFourPeersOnOneEndpoint() throws {
        var net = TestNetwork()
        let hub = net.addNode(0, role: .station)
        for i in 1...64 { net.addNode(i) }
        for i in 1...64 { net.connect(i, to: 0) }
        net.pump()
        #expect(net.endpoints[0]!.sessions.count == 64)
        #expect(Set(net.endpoints[0]!.sessions.map(\.address)) == Set(1...64))
        for i in 1...64 {
            try net.send(0, [UInt8(i)], to: net.id(i))
            try net.send(i, [UInt8(i), 0xFF], to: hub)
        }
        net.pump()
        for i in 1...64 {
            #expect(net.delivered(at: i).map(\.1) == [[UInt8(i)]])
        }
        let atHub = net.delivered(at: 0)
        #expect(atHub.count == 64)
        #expect(atHub.allSatisfy { from, bytes in from == net.id(Int(bytes[0])) })
        #expect(net.rejections(at: 0).isEmpty)
    }
}

extension SessionKey {
    var bytes: [UInt8] { key.withUnsafeBytes { Array($0) } }
}

@Suite("Handshake timers")
struct HandshakeTimerTests {
    @Test func severalPendingHandshakesAreAllResentInOneTick() {
        var net = TestNetwork()
        net.addNode(1)
        for target in 10..<15 { net.connect(1, to: target) }
        _ = net.takeInFlight()
        net.now += .milliseconds(250)
        net.tick(1)
        #expect(Set(net.takeInFlight().map(\.to)) == Set(10..<15))
        #expect(net.endpoints[1]!.pendingHandshakes.count == 5)
        #expect(net.endpoints[1]!.nextDeadline == net.now + .milliseconds(500))
    }
}

@Suite("Handshakes over two addresses at once")
struct ParallelHandshakeTests {
    /// Two endpoints of one mesh: a station (the lower NodeID) and a drone.
    static func pair(seed: UInt64) throws -> (Endpoint, Endpoint) {
        let key = try MeshKey(bytes: Array(repeating: UInt8(seed), count: 32))
        return (
            Endpoint(
                key: key, localID: NodeID(high: 1, low: 0), incarnation: 1, role: .station,
                random: SeededRandom(seed: seed)),
            Endpoint(
                key: key, localID: NodeID(high: 2, low: 0), incarnation: 2, role: .drone,
                random: SeededRandom(seed: seed + 1))
        )
    }

    /// The datagrams a step sends.
    func sends(_ d: [Endpoint.Directive]) -> [[UInt8]] {
        d.compactMap { if case .send(let x, _) = $0 { x } else { nil } }
    }

    /// A probes B at one address and then another (IPv4, then IPv6): the second attempt replaces the first, so
    /// whichever order B's answers arrive in, exactly one session is installed and both sides send on it. (Two
    /// handshakes completing at once, installed in different orders on the two sides, could leave each side sending
    /// on a session the other had just dropped: seen in the lab as a pair that reconnected and went silent.)
    @Test(arguments: [false, true])
    func oneAttemptPerPeerAndBothSidesAgree(reversed: Bool) throws {
        var (a, b) = try Self.pair(seed: 1)
        let (idA, idB) = (a.localID, b.localID)
        let now = MeshInstant.after(.seconds(10))
        let wall: UInt64 = 1_800_000_000_000_000
        let i1 = sends(a.connect(to: 20, expecting: idB, renew: true, now: now, wallClockMicros: wall))
        let i2 = sends(a.connect(to: 21, expecting: idB, renew: true, now: now, wallClockMicros: wall + 1))
        #expect(i1.count == 1 && i2.count == 1)
        #expect(a.pendingHandshakes == [21], "one attempt per peer: the second address replaces the first")
        let r1 = sends(b.receive(i1[0], from: 1, now: now))
        let r2 = sends(b.receive(i2[0], from: 1, now: now))
        let order = reversed ? [(r2[0], 21), (r1[0], 20)] : [(r1[0], 20), (r2[0], 21)]
        var keepalives: [[UInt8]] = []
        var established = 0
        for (r, from) in order {
            let out = a.receive(r, from: from, now: now)
            keepalives += sends(out)
            established += out.filter { if case .established = $0 { true } else { false } }.count
        }
        #expect(keepalives.count == 1 && established == 1, "exactly one handshake completes")
        // A's data before its keepalive (reordered): B confirms the session with it.
        let data = sends(try a.send(Array("after the probe".utf8), to: idB, now: now))
        let delivered = b.receive(data[0], from: 1, now: now).compactMap { d -> [UInt8]? in
            if case .deliver(let p, _) = d { p } else { nil }
        }
        #expect(delivered == [Array("after the probe".utf8)], "B could not open A's data on the session A settled on")
        _ = b.receive(keepalives[0], from: 1, now: now)
        let back = sends(try b.send(Array("heard you".utf8), to: idA, now: now))
        let got = a.receive(back[0], from: 21, now: now).compactMap { d -> [UInt8]? in
            if case .deliver(let p, _) = d { p } else { nil }
        }
        #expect(got == [Array("heard you".utf8)])
    }

    /// Both sides probe each other at once, each at a different address of the other: only the lower NodeID's
    /// handshake completes.
    @Test func simultaneousProbesAtDifferentAddressesCompleteOnce() throws {
        var (a, b) = try Self.pair(seed: 3)
        let (idA, idB) = (a.localID, b.localID)
        let now = MeshInstant.after(.seconds(10))
        let wall: UInt64 = 1_800_000_000_000_000
        let fromA = sends(a.connect(to: 20, expecting: idB, renew: true, now: now, wallClockMicros: wall))  // B's IPv4
        let fromB = sends(b.connect(to: 11, expecting: idA, renew: true, now: now, wallClockMicros: wall))  // A's IPv6
        // Each initiation arrives from the sender's *other* address.
        #expect(
            sends(a.receive(fromB[0], from: 21, now: now)).isEmpty, "the lower NodeID ignores the higher's initiation")
        let response = sends(b.receive(fromA[0], from: 10, now: now))
        #expect(
            response.count == 1 && b.pendingHandshakes.isEmpty, "the higher NodeID drops its own attempt and answers")
        let out = a.receive(response[0], from: 20, now: now)
        #expect(out.contains { if case .established = $0 { true } else { false } })
    }
}

@Suite("Handshakes on a slow path")
struct SlowPathHandshakeTests {
    struct Run {
        /// When A had a session with B, from the first attempt (nil: not within 10 s).
        var established: Duration?
        /// Initiations A sent until then.
        var initiations: Int
        /// The spacing A keeps for B afterwards.
        var spacing: Duration?
    }

    /// A connects to B the way the membership layer does (every 500 ms while B is not in session) and ticks every
    /// 10 ms; every datagram takes `oneWay` to arrive, each way.
    static func run(oneWay: Duration) throws -> Run {
        var (a, b) = try ParallelHandshakeTests.pair(seed: 5)
        let idB = b.localID
        var inFlight: [(at: MeshInstant, to: Int, bytes: [UInt8])] = []
        let start = MeshInstant.after(.seconds(10))
        var now = start
        var initiations = 0
        func wall() -> UInt64 { 1_800_000_000_000_000 + now.nanoseconds / 1000 }
        func post(_ directives: [Endpoint.Directive], from node: Int) -> Bool {
            var established = false
            for d in directives {
                switch d {
                case .send(let bytes, _):
                    if node == 1, bytes.first == MessageType.initiation.rawValue { initiations += 1 }
                    inFlight.append((now + oneWay, node == 1 ? 2 : 1, bytes))
                case .established(let info) where node == 1 && info.id == idB: established = true
                default: break
                }
            }
            return established
        }
        while now - start < .seconds(10) {
            var done = false
            for d in inFlight where d.at <= now {
                done =
                    post(
                        d.to == 1 ? a.receive(d.bytes, from: 2, now: now) : b.receive(d.bytes, from: 1, now: now),
                        from: d.to) || done
            }
            inFlight.removeAll { $0.at <= now }
            if (now - start) / .milliseconds(500) == ((now - start) / .milliseconds(500)).rounded(.down) {
                done =
                    post(a.connect(to: 2, expecting: idB, renew: true, now: now, wallClockMicros: wall()), from: 1)
                    || done
            }
            done = post(a.tick(now: now, wallClockMicros: wall()), from: 1) || done
            _ = post(b.tick(now: now, wallClockMicros: wall()), from: 2)
            if done {
                return Run(
                    established: now - start, initiations: initiations, spacing: a.slowHandshakePaths(now: now)[idB])
            }
            now = now + .milliseconds(10)
        }
        return Run(established: nil, initiations: initiations, spacing: a.slowHandshakePaths(now: now)[idB])
    }

    @Test("answers slower than the caller's retries: the next initiation is left to be answered, and completes")
    func answersSlowerThanTheRetriesStillComplete() throws {
        // 300 ms each way: every answer arrives after the next attempt (500 ms) or resend (250 ms) replaced its
        // initiation. Without spacing, no handshake ever completed.
        let slow = try Self.run(oneWay: .milliseconds(300))
        let took = try #require(slow.established, "no session within 10 s after \(slow.initiations) initiations")
        #expect(took <= .milliseconds(1500), "\(took)")
        #expect(slow.initiations <= 4)
        #expect(slow.spacing == .milliseconds(1200), "twice the round trip measured on the late answer")
    }

    @Test("a path that answers in time is not slowed: one initiation, no spacing kept")
    func aQuickPathIsNotSlowed() throws {
        let quick = try Self.run(oneWay: .milliseconds(5))
        #expect(quick.established == .milliseconds(20), "the answer, in the 10 ms steps of the run")
        #expect(quick.initiations == 1)
        #expect(quick.spacing == nil)
    }

    @Test("a forged late answer (no mesh key) measures nothing")
    func aForgedLateAnswerMeasuresNothing() throws {
        var (a, b) = try ParallelHandshakeTests.pair(seed: 6)
        let idB = b.localID
        let now = MeshInstant.after(.seconds(10))
        let wall: UInt64 = 1_800_000_000_000_000
        let first = a.connect(to: 2, expecting: idB, now: now, wallClockMicros: wall)
        guard case .send(let initiation, _) = try #require(first.first) else {
            Issue.record("no initiation")
            return
        }
        // A resend replaces it 500 ms later; B's answer to the first arrives 900 ms after it left, its MAC broken.
        _ = a.connect(to: 2, expecting: idB, now: now + .milliseconds(500), wallClockMicros: wall + 500_000)
        guard case .send(var answer, _) = try #require(b.receive(initiation, from: 1, now: now).first) else {
            Issue.record("no answer")
            return
        }
        answer[answer.count - 1] ^= 1
        _ = a.receive(answer, from: 2, now: now + .milliseconds(900))
        #expect(a.slowHandshakePaths(now: now + .milliseconds(900)).isEmpty)
        answer[answer.count - 1] ^= 1
        _ = a.receive(answer, from: 2, now: now + .milliseconds(900))
        #expect(a.slowHandshakePaths(now: now + .milliseconds(900)) == [idB: .milliseconds(1800)])
    }
}
