import MeshCore
import MeshTypes
import Testing

/// The mesh layer's next deadline (`MeshCore.nextDeadline`, with the wake hints events leave): a node that ticks
/// only then misses nothing. Two mesh layers tick every 10 ms as before; every tick that falls before the deadline
/// reckoned after the node's last tick and events must find nothing to do.
@Suite struct MeshDeadlineTests {
    /// Whether a tick's output does anything on the wire or to a peer's state.
    static func acts(_ directives: [MeshCore<Int>.Directive]) -> Bool {
        directives.contains { d in
            switch d {
            case .send, .sendGroup, .peerState: true
            default: false
            }
        }
    }

    @Test(
        "a tick before the next deadline has nothing to do: formation, traffic under 10 % loss, one-way and two-way outages, recovery"
    )
    func nextDeadlineIsNeverLate() {
        var pair = UnicastRhythmTests.Pair()
        pair.loss = 0.1
        var deadline: [MeshInstant?] = [pair.now, pair.now]
        var before = 0
        var late: [String] = []
        var ticks = 0
        func lower(_ i: Int, _ hint: MeshInstant?) {
            guard let hint else { return }
            deadline[i] = min(deadline[i] ?? hint, hint)
        }
        let start = pair.now
        var step = 0
        while pair.now < start + .seconds(20) {
            pair.now = pair.now + .milliseconds(10)
            step += 1
            let at = pair.now - start
            // Node 1 does not reach node 0 from 5 to 7 s; nothing passes from 12 to 13.5 s.
            let cut = at >= .seconds(12) && at < .milliseconds(13_500)
            pair.up[1] = !(at >= .seconds(5) && at < .seconds(7)) && !cut
            pair.up[0] = !cut
            // A reliable message every 100 ms from node 0, and an unreliable one every 50 ms from node 1.
            if step % 10 == 0 {
                pair.carry(
                    pair.nodes[0].sendReliable(0xF1, [UInt8(step & 0xFF)], to: pair.ids[1], now: pair.now), at: 0)
                lower(0, pair.nodes[0].takeWakeHint())
            }
            if step % 5 == 0 {
                pair.carry(pair.nodes[1].sendUnreliable(0xF2, [1, 2, 3], to: pair.ids[0], now: pair.now), at: 1)
                lower(1, pair.nodes[1].takeWakeHint())
            }
            for i in 0..<2 {
                let out = pair.nodes[i].onTick(now: pair.now, wallClockMicros: pair.now.nanoseconds / 1000)
                ticks += 1
                if let d = deadline[i], pair.now < d {
                    before += 1
                    if Self.acts(out) { late.append("node \(i) at \(at): deadline \(d - pair.now) ahead, but \(out)") }
                }
                pair.carry(out, at: i)
                _ = pair.nodes[i].takeWakeHint()
                deadline[i] = pair.nodes[i].nextDeadline(now: pair.now)
            }
            while !pair.inFlight.isEmpty {
                let d = pair.inFlight.removeFirst()
                pair.carry(pair.nodes[d.to].onDatagram(d.bytes, from: d.from, now: pair.now), at: d.to)
                lower(d.to, pair.nodes[d.to].takeWakeHint())
            }
        }
        #expect(late.isEmpty, "\(late.count) ticks before the deadline acted; first: \(late.first ?? "")")
        #expect(pair.state(at: 0) == .established && pair.state(at: 1) == .established)
        // Most 10 ms ticks had nothing to do: a node that sleeps until its deadline saves their wake-ups.
        #expect(before * 2 > ticks, "\(before) of \(ticks) ticks fell before the deadline")
    }
}
