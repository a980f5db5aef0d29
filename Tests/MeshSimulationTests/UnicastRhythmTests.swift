import Determinism
import Membership
import MeshCore
import MeshTypes
import SecureTransport
import Testing

/// Heartbeats carried by traffic (PROTOCOL.md §6.2): two mesh layers in session over a link that loses what the test
/// says, ticking every 10 ms like the node; every datagram is counted by direction.
@Suite struct UnicastRhythmTests {
    static let key = try! MeshKey(bytes: Array(repeating: 0x3C, count: 32))

    struct Pair {
        var nodes: [MeshCore<Int>]
        var now = MeshInstant(nanoseconds: 1_000_000_000)
        /// Datagrams that left each node (index: the sender), and those of them that were delivered.
        var sent = [0, 0]
        /// Whether the link carries datagrams from node i to the other.
        var up = [true, true]
        /// The share of datagrams each direction loses (drawn from a seeded generator).
        var loss = 0.0
        var random = SeededRandom(seed: 7)
        /// Reliable messages delivered at node 1, with when.
        var received: [(payload: [UInt8], at: MeshInstant)] = []
        var inFlight: [(to: Int, from: Int, bytes: [UInt8])] = []

        init() {
            nodes = []
            for i in 0..<2 {
                let role: NodeRole = i == 0 ? .station : .drone
                let id = NodeID(high: UInt64(i + 1), low: 9)
                nodes.append(
                    MeshCore<Int>(
                        key: UnicastRhythmTests.key, localID: id, incarnation: UInt64(10 + i), role: role,
                        name: "n\(i)", uavNumber: nil, random: SeededRandom(seed: UInt64(i + 3))))
            }
            let other = nodes[1].localID
            carry(
                nodes[0].onDiscovered(
                    id: other, incarnation: nil, name: "n1", role: .drone, uavNumber: nil, address: 1, now: now),
                at: 0)
        }

        var ids: [NodeID] { nodes.map(\.localID) }

        mutating func carry(_ directives: [MeshCore<Int>.Directive], at i: Int) {
            for d in directives {
                switch d {
                case .send(let bytes, let to):
                    sent[i] += 1
                    if up[i], loss == 0 || Double(random.next() % 10_000) / 10_000 >= loss {
                        inFlight.append((to, i, bytes))
                    }
                case .message(0xF1, let payload, _, _) where i == 1: received.append((payload, now))
                default: break
                }
            }
        }

        /// Runs the 10 ms timers until `end`; `each` is called at every step, before the timers.
        mutating func run(for span: Duration, each: (inout Pair) -> Void = { _ in }) {
            let end = now + span
            while now < end {
                now = now + .milliseconds(10)
                each(&self)
                for i in 0..<2 {
                    carry(nodes[i].onTick(now: now, wallClockMicros: now.nanoseconds / 1000), at: i)
                }
                while !inFlight.isEmpty {
                    let d = inFlight.removeFirst()
                    carry(nodes[d.to].onDatagram(d.bytes, from: d.from, now: now), at: d.to)
                }
            }
        }

        /// Datagrams each node sends over `span` (the steps' own sends included).
        mutating func count(over span: Duration, each: (inout Pair) -> Void = { _ in }) -> [Int] {
            let before = sent
            run(for: span, each: each)
            return [sent[0] - before[0], sent[1] - before[1]]
        }

        func state(at i: Int) -> PeerState? { nodes[i].membership.peers[ids[1 - i]]?.state }
    }

    /// A pair in session for 2 s, past its first round trips.
    static func formed() throws -> Pair {
        var pair = Pair()
        pair.run(for: .seconds(2))
        try #require(pair.state(at: 0) == .established && pair.state(at: 1) == .established)
        return pair
    }

    @Test("with nothing else to send: a heartbeat every 50 ms each way, a reply twice a second, link quality 1")
    func idleSessionsAnswerTwiceASecond() throws {
        var pair = try Self.formed()
        let counts = pair.count(over: .seconds(5))
        // 100 heartbeats and about 10 replies each way; answering every heartbeat made it 200.
        for c in counts { #expect((100...115).contains(c), "datagrams in 5 s: \(counts)") }
        for i in 0..<2 {
            let peer = try #require(pair.nodes[i].membership.peers[pair.ids[1 - i]])
            #expect(peer.linkQuality == 1)
            #expect(peer.rtt != nil)
            #expect(pair.nodes[i].clockOffset(of: pair.ids[1 - i], now: pair.now) != nil)
        }
    }

    @Test("telemetry every 100 ms carries every other heartbeat: 20 datagrams a second instead of 30 plus replies")
    func dataAt10HzCarriesHalfTheHeartbeats() throws {
        var pair = try Self.formed()
        let counts = pair.count(over: .seconds(5)) { p in
            if p.now.nanoseconds / 10_000_000 % 10 == 0 {
                p.carry(
                    p.nodes[0].sendUnreliable(0xF2, [UInt8](repeating: 7, count: 60), to: p.ids[1], now: p.now), at: 0)
            }
        }
        // 50 telemetry, 50 heartbeats in the gaps, about 10 replies (before: 50 + 100 + 100).
        #expect((100...115).contains(counts[0]), "node 0 sent \(counts[0]) datagrams in 5 s")
        #expect(pair.nodes[1].clockOffset(of: pair.ids[0], now: pair.now) != nil)
    }

    @Test("a 100 Hz stream leaves two heartbeats a second to its peer, whose estimate of the sender's clock holds")
    func aControlStreamCarriesTheHeartbeats() throws {
        var pair = try Self.formed()
        let counts = pair.count(over: .seconds(5)) { p in
            p.carry(p.nodes[0].sendUnreliable(0xF2, [1, 2, 3, 4], to: p.ids[1], now: p.now), at: 0)
        }
        // 500 samples, a heartbeat every 500 ms and its reply (before: 500 + 100 + 100).
        #expect((500...525).contains(counts[0]), "node 0 sent \(counts[0]) datagrams in 5 s")
        #expect(pair.nodes[1].clockOffset(of: pair.ids[0], now: pair.now) != nil)
        #expect(pair.nodes[0].membership.peers[pair.ids[1]]?.linkQuality == 1)
    }

    @Test("loss is still detected within 760 ms, with and without a stream")
    func silenceIsStillDetectedInTime() throws {
        for streaming in [false, true] {
            var pair = try Self.formed()
            pair.run(for: .seconds(1)) { p in
                if streaming {
                    p.carry(p.nodes[0].sendUnreliable(0xF2, [1], to: p.ids[1], now: p.now), at: 0)
                }
            }
            pair.up = [false, false]
            let cut = pair.now
            var lostAt: [MeshInstant?] = [nil, nil]
            pair.run(for: .seconds(1)) { p in
                for i in 0..<2 where lostAt[i] == nil && p.state(at: i) == .lost { lostAt[i] = p.now }
            }
            for i in 0..<2 {
                let at = try #require(lostAt[i], "node \(i) never lost its peer (stream: \(streaming))")
                #expect(at - cut <= .milliseconds(770), "node \(i) lost its peer after \(at - cut)")
            }
        }
    }

    @Test("after a one-way outage the first heartbeat heard is answered at once, and the reliable window goes on")
    func aOneWayOutageEndsWithAnAnswer() throws {
        var pair = try Self.formed()
        // Node 1 hears nothing for 400 ms (suspect at its side, not lost); a message waits at node 0 meanwhile.
        pair.up[0] = false
        pair.run(for: .milliseconds(100))
        pair.carry(pair.nodes[0].sendReliable(0xF1, [4, 2], to: pair.ids[1], now: pair.now), at: 0)
        pair.run(for: .milliseconds(300))
        #expect(pair.state(at: 1) == .suspect)
        pair.up[0] = true
        let back = pair.now
        pair.run(for: .seconds(1))
        let arrival = try #require(pair.received.first, "the message never arrived")
        #expect(arrival.payload == [4, 2])
        // A heartbeat within 50 ms, its reply, and the window resent at once (its RTO is longer).
        #expect(arrival.at - back <= .milliseconds(70), "the message arrived \(arrival.at - back) after the link")
    }

    @Test("a datagram of retransmitted messages draws one acknowledgement datagram, not one per message")
    func retransmissionsDrawOneAcknowledgement() throws {
        var pair = try Self.formed()
        // Node 1's acknowledgements are lost: node 0 sends 20 messages at once and resends them together after its RTO.
        pair.up[1] = false
        for i in 0..<20 {
            pair.carry(pair.nodes[0].sendReliable(0xF1, [UInt8(i)], to: pair.ids[1], now: pair.now), at: 0)
        }
        pair.run(for: .milliseconds(150))
        #expect(pair.received.map(\.payload) == (0..<20).map { [UInt8($0)] })
        // Every datagram node 0 sends from now on carries the 20 messages again (they fit one datagram); node 1 has
        // them all, so each is a duplicate 20 times over. What node 1 sends in answer, datagram by datagram:
        var answers: [Int] = []
        for _ in 0..<100 {
            pair.now = pair.now + .milliseconds(10)
            for i in 0..<2 {
                pair.carry(pair.nodes[i].onTick(now: pair.now, wallClockMicros: pair.now.nanoseconds / 1000), at: i)
            }
            while !pair.inFlight.isEmpty {
                let d = pair.inFlight.removeFirst()
                let before = pair.sent[1]
                pair.carry(pair.nodes[d.to].onDatagram(d.bytes, from: d.from, now: pair.now), at: d.to)
                if d.to == 1, d.bytes.count > 200 { answers.append(pair.sent[1] - before) }
            }
        }
        #expect(!answers.isEmpty, "node 0 never resent the messages")
        #expect(answers.allSatisfy { $0 == 1 }, "datagrams sent in answer to each resend: \(answers)")
        #expect(pair.received.count == 20, "a message was delivered twice")
    }

    @Test("at 20 % loss each way the link quality reads the loss of asked heartbeats and their replies (about 0.64)")
    func linkQualityCountsOnlyAskedHeartbeats() throws {
        var pair = try Self.formed()
        pair.loss = 0.2
        pair.run(for: .seconds(60))
        #expect(pair.state(at: 0) == .established || pair.state(at: 0) == .suspect)
        let peer = try #require(pair.nodes[0].membership.peers[pair.ids[1]])
        let quality = try #require(peer.linkQuality)
        // About 130 asked in 62 s (0.64 ± 0.04 at one standard deviation); quiet heartbeats counted as unanswered
        // would read under 0.1.
        #expect(quality > 0.45 && quality < 0.85, "link quality \(quality)")
    }
}
