import Determinism
import MeshTypes
import Testing

@testable import SecureTransport

@Suite("ReliableChannel")
struct ReliableChannelTests {
    /// Two channels joined by a simulated lossy, reordering, duplicating link on a virtual clock. Frames returned by
    /// one call travel together in one datagram (through the real frame codec), as a shell would send them.
    struct LossyLink {
        var channels = [ReliableChannel(), ReliableChannel()]
        var packets = MinHeap<InFlight>()
        var now = MeshInstant.after(.seconds(10))
        var rng: SeededRandom
        var loss: Double
        var duplication: Double
        var delay: ClosedRange<Int>  // milliseconds, drawn per packet: reorders whenever ranges overlap
        var order = 0
        var sentPackets = 0
        var delivered: [[[UInt8]]] = [[], []]

        init(seed: UInt64, loss: Double, duplication: Double, delay: ClosedRange<Int>) {
            rng = SeededRandom(seed: seed)
            self.loss = loss
            self.duplication = duplication
            self.delay = delay
        }

        mutating func handle(_ actions: [ReliableChannel.Action], at side: Int) {
            var frames: [Frame] = []
            for a in actions {
                switch a {
                case .transmit(let f): frames.append(f)
                case .deliver(_, let payload): delivered[side].append(payload)
                }
            }
            guard !frames.isEmpty else { return }
            let bytes = try! Frame.encode(frames)
            let copies = rng.chance(duplication) ? 2 : 1
            for _ in 0..<copies {
                sentPackets += 1
                if rng.chance(loss) { continue }
                let ms = Int.random(in: delay, using: &rng)
                order += 1
                packets.insert(InFlight(arrival: now + .milliseconds(ms), order: order, to: 1 - side, bytes: bytes))
            }
        }

        mutating func send(_ payload: [UInt8], from side: Int) throws {
            let actions = try channels[side].send(type: 1, payload: payload, now: now)
            handle(actions, at: side)
        }

        /// Advances to the next event (packet arrival or channel deadline) and processes it. False when idle.
        mutating func step() -> Bool {
            let nextPacket = packets.first
            let deadlines = channels.compactMap(\.nextDeadline)
            let nextTimer = deadlines.min()
            guard let t = [nextPacket?.arrival, nextTimer].compactMap({ $0 }).min() else { return false }
            now = max(now, t)
            if let p = nextPacket, p.arrival <= now {
                _ = packets.popFirst()
                for f in try! Frame.decodeAll(p.bytes) {
                    let actions = channels[p.to].receive(frame: f, now: now)
                    handle(actions, at: p.to)
                }
            }
            for side in 0..<2 where (channels[side].nextDeadline.map { $0 <= now } ?? false) {
                handle(channels[side].tick(now: now), at: side)
            }
            return true
        }
    }

    static func payload(_ i: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: i >> 24), UInt8(truncatingIfNeeded: i >> 16), UInt8(truncatingIfNeeded: i >> 8),
            UInt8(truncatingIfNeeded: i),
        ]
    }

    /// Sends `count` messages from side 0 (and `count / 10` from side 1) as fast as the window allows.
    static func run(_ link: inout LossyLink, count: Int) {
        var next = [0, 0]
        let goal = [count, count / 10]
        var steps = 0
        while true {
            for side in 0..<2 {
                while next[side] < goal[side], link.channels[side].canSend {
                    try! link.send(payload(next[side]), from: side)
                    next[side] += 1
                }
            }
            if next == goal && link.channels.allSatisfy({ $0.inFlight == 0 }) && link.packets.isEmpty { break }
            guard link.step() else { break }
            steps += 1
            if steps > 5_000_000 { break }
        }
    }

    @Test(arguments: [UInt64(11)])
    func tenThousandMessagesSurviveThirtyPercentLossExactlyOnceInOrder(seed: UInt64) {
        var link = LossyLink(seed: seed, loss: 0.30, duplication: 0.02, delay: 5...40)
        let start = link.now
        Self.run(&link, count: 10_000)
        #expect(link.delivered[1] == (0..<10_000).map(Self.payload))
        #expect(link.delivered[0] == (0..<1_000).map(Self.payload))
        #expect(link.channels[0].retransmissions > 2_000)
        // Throughput stays reasonable (about 1,600 messages/s of virtual time here): holes are repaired quickly and
        // the RTT estimate is not inflated by messages that waited behind them.
        #expect(link.now - start < .seconds(15))
        #expect(link.channels[0].rtt.smoothedDuration < .milliseconds(80))
    }

    @Test func reorderingAndDuplicationWithoutLoss() {
        var link = LossyLink(seed: 5, loss: 0, duplication: 0.5, delay: 1...200)
        Self.run(&link, count: 3_000)
        #expect(link.delivered[1] == (0..<3_000).map(Self.payload))
        #expect(link.delivered[0] == (0..<300).map(Self.payload))
    }

    @Test func windowFullGivesBackpressure() throws {
        var channel = ReliableChannel(configuration: ReliableChannelConfiguration(window: 4))
        let t = MeshInstant.after(.seconds(1))
        for i in 0..<4 { _ = try channel.send(type: 1, payload: [UInt8(i)], now: t) }
        #expect(throws: ReliableChannel.SendError.windowFull(inFlight: 4)) {
            try channel.send(type: 1, payload: [9], now: t)
        }
        _ = channel.receive(frame: .ack(cumulative: 2, selective: 0), now: t + .milliseconds(10))
        #expect(channel.inFlight == 2)
        #expect(throws: Never.self) { try channel.send(type: 1, payload: [9], now: t) }
    }

    /// A newer message with the same supersede key makes the one still in flight obsolete: it keeps its sequence
    /// number and goes again empty (type 0); other keys and acknowledged messages are left alone; the receiver
    /// delivers the empty one in its place and the newer one in full.
    @Test func aNewerMessageSupersedesTheOneInFlight() throws {
        var c = ReliableChannel()
        let t = MeshInstant.after(.seconds(1))
        let a = ReliableChannel.SupersedeKey(type: 0x4C01, high: 1, low: 1)
        let b = ReliableChannel.SupersedeKey(type: 0x4C01, high: 2, low: 2)
        _ = try c.send(type: 0x4C01, payload: [1, 1], now: t, supersedes: a)  // 1: acknowledged below
        _ = c.receive(frame: .ack(cumulative: 1, selective: 0), now: t)
        _ = try c.send(type: 0x4C01, payload: [1, 2], now: t, supersedes: a)  // 2: superseded by 5
        _ = try c.send(type: 0x4C01, payload: [2, 1], now: t, supersedes: b)  // 3: another key, stays
        _ = try c.send(type: 7, payload: [7], now: t)  // 4: no key
        let sent = try c.send(type: 0x4C01, payload: [1, 3], now: t, supersedes: a)  // 5
        #expect(sent == [.transmit(.reliable(sequence: 5, type: 0x4C01, payload: [1, 3]))])
        #expect(c.superseded == 1 && c.inFlight == 4)
        // None arrived: the timeout sends them all again, the superseded one empty.
        let again = c.tick(now: t + .seconds(1))
        #expect(
            again == [
                .transmit(.reliable(sequence: 2, type: 0, payload: [])),
                .transmit(.reliable(sequence: 3, type: 0x4C01, payload: [2, 1])),
                .transmit(.reliable(sequence: 4, type: 7, payload: [7])),
                .transmit(.reliable(sequence: 5, type: 0x4C01, payload: [1, 3])),
            ])
        var r = ReliableChannel()
        _ = r.receive(frame: .reliable(sequence: 1, type: 0x4C01, payload: [1, 1]), now: t)
        var delivered: [ReliableChannel.Action] = []
        for case .transmit(let frame) in again { delivered += r.receive(frame: frame, now: t).filter { $0.isDelivery } }
        #expect(
            delivered == [
                .deliver(type: 0, payload: []), .deliver(type: 0x4C01, payload: [2, 1]),
                .deliver(type: 7, payload: [7]),
                .deliver(type: 0x4C01, payload: [1, 3]),
            ])
        // Acknowledged: a newer one has nothing left to supersede.
        _ = c.receive(frame: .ack(cumulative: 5, selective: 0), now: t + .seconds(1))
        _ = try c.send(type: 0x4C01, payload: [1, 4], now: t + .seconds(1), supersedes: a)
        #expect(c.superseded == 1)
    }

    @Test func rtoFollowsMeasuredRTTWithinBounds() throws {
        var channel = ReliableChannel()
        var t = MeshInstant.after(.seconds(1))
        #expect(channel.rtt.timeoutDuration == .milliseconds(200))
        for i in 1...20 {
            _ = try channel.send(type: 1, payload: [], now: t)
            t += .milliseconds(2)
            _ = channel.receive(frame: .ack(cumulative: UInt64(i), selective: 0), now: t)
        }
        // Tiny RTT: clamped at the 30 ms floor.
        #expect(channel.rtt.timeoutDuration == .milliseconds(30))
        // A message never acknowledged is resent at the RTO, then with doubling backoff capped at 1 s.
        _ = try channel.send(type: 1, payload: [1], now: t)
        let start = t
        var resends: [Duration] = []
        while resends.count < 8, let d = channel.nextDeadline {
            t = d
            let actions = channel.tick(now: t)
            #expect(actions.count == 1)
            resends.append(t - start)
        }
        #expect(
            resends.prefix(7) == [
                .milliseconds(30), .milliseconds(90), .milliseconds(210), .milliseconds(450),
                .milliseconds(930), .milliseconds(1890), .milliseconds(2890),
            ])
    }

    @Test func receiverDropsDuplicatesAndAcksSelectively() {
        var r = ReliableChannel()
        let t = MeshInstant.after(.seconds(1))
        var out = r.receive(frame: .reliable(sequence: 3, type: 1, payload: [3]), now: t)
        #expect(out == [.transmit(.ack(cumulative: 0, selective: 0b100))])  // bit i = sequence cumulative + 1 + i
        out = r.receive(frame: .reliable(sequence: 1, type: 1, payload: [1]), now: t)
        #expect(out == [.deliver(type: 1, payload: [1]), .transmit(.ack(cumulative: 1, selective: 0b10))])
        out = r.receive(frame: .reliable(sequence: 1, type: 1, payload: [1]), now: t)
        #expect(out == [.transmit(.ack(cumulative: 1, selective: 0b10))])
        out = r.receive(frame: .reliable(sequence: 2, type: 1, payload: [2]), now: t)
        #expect(
            out == [
                .deliver(type: 1, payload: [2]), .deliver(type: 1, payload: [3]),
                .transmit(.ack(cumulative: 3, selective: 0)),
            ])
        // In-order arrival waits for the delayed ack.
        out = r.receive(frame: .reliable(sequence: 4, type: 1, payload: [4]), now: t)
        #expect(out == [.deliver(type: 1, payload: [4])])
        #expect(r.nextDeadline == t + .milliseconds(5))
        do {
            let ok = r.tick(now: t + .milliseconds(5)) == [.transmit(.ack(cumulative: 4, selective: 0))]
            #expect(ok)
        }
        #expect(r.nextDeadline == nil)
    }

    @Test func resetStartsOver() throws {
        var c = ReliableChannel()
        let t = MeshInstant.after(.seconds(1))
        _ = try c.send(type: 1, payload: [1], now: t)
        _ = c.receive(frame: .reliable(sequence: 1, type: 1, payload: [1]), now: t)
        c.reset()
        #expect(c.inFlight == 0 && c.deliveredThrough == 0 && c.nextDeadline == nil)
        do {
            let ok =
                try c.send(type: 1, payload: [1], now: t) == [.transmit(.reliable(sequence: 1, type: 1, payload: [1]))]
            #expect(ok)
        }
    }

    /// A peer back after an outage: `resume` resends what has waited at least an RTO (its backoff started over) and
    /// leaves what was sent just now; `resume(.returned)` resends everything in flight, as when a peer is in session
    /// again and may not hold what went out over the session before. Called again and again (a burst of rekeys), `resume` resends each message at most
    /// once per RTO.
    @Test func resumeResendsWhatThePeerMayHaveMissed() throws {
        var c = ReliableChannel()
        let t0 = MeshInstant.after(.seconds(1))
        _ = try c.send(type: 1, payload: [1], now: t0)
        _ = try c.send(type: 1, payload: [2], now: t0)
        // Nothing arrives: ten seconds of timeouts grow the backoff.
        var t = t0
        while t < t0 + .seconds(10) {
            t = c.nextDeadline ?? t + .milliseconds(100)
            _ = c.tick(now: t)
        }
        // The backoff has reached its 1 s cap; the initial RTO is 200 ms.
        let grown = try #require(c.nextDeadline) - t
        #expect(grown == .seconds(1))
        func resent(_ actions: [ReliableChannel.Action]) -> [[UInt8]] {
            actions.compactMap {
                if case .transmit(.reliable(_, _, let payload)) = $0 { payload } else { nil }
            }
        }
        // Heard again 50 ms after the last retransmission: nothing goes at once, but the next try is one RTO after
        // that retransmission instead of the 1 s backoff.
        var early = c
        #expect(resent(early.resume(now: t + .milliseconds(50))).isEmpty)
        #expect(early.nextDeadline == t + .milliseconds(200))
        let now = t + .milliseconds(500)
        _ = try c.send(type: 1, payload: [3], now: now)
        var plain = c
        #expect(resent(plain.resume(now: now)) == [[1], [2]])
        #expect(try #require(plain.nextDeadline) - now <= .milliseconds(200))
        // Called again 1 ms and 100 ms later (a burst of rekeys): nothing goes twice within the RTO; 200 ms later, all.
        #expect(resent(plain.resume(now: now + .milliseconds(1))).isEmpty)
        #expect(resent(plain.resume(now: now + .milliseconds(100))).isEmpty)
        #expect(resent(plain.resume(now: now + .milliseconds(200))) == [[1], [2], [3]])
        #expect(resent(c.resume(now: now, .returned)) == [[1], [2], [3]])
        #expect(c.inFlight == 3)
    }
}

extension ReliableChannel.Action {
    var isDelivery: Bool { if case .deliver = self { true } else { false } }
}
