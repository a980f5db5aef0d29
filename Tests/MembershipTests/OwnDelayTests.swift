import MeshTypes
import Testing

@testable import Membership

private func ms(_ v: Int) -> MeshInstant { MeshInstant(nanoseconds: UInt64(v) * 1_000_000) }

@Suite("A node's own lateness and the failure detector")
struct OwnDelayTests {
    private let me = NodeID(high: 0, low: 1)
    private let peer = NodeID(high: 0, low: 2)

    private func established() -> MembershipTable<String> {
        var table = MembershipTable<String>(localID: me)
        _ = table.onDiscovered(
            id: peer, incarnation: 7, name: "p", role: .drone, uavNumber: nil, address: "P", now: ms(0))
        _ = table.onEstablished(id: peer, incarnation: 7, role: .drone, address: "P", now: ms(0))
        return table
    }

    @Test("silence a node's own backlog explains is not a loss; silence beyond it still is, after the allowance")
    func allowanceDelaysOnlyWhatItExplains() {
        // A node stalled for 1.2 s: its first tick after the stall sees 1.2 s of silence, 1.19 s of it its own.
        var stalled = established()
        #expect(!stalled.onTick(now: ms(1200), allowance: .milliseconds(1190)).contains { $0.isLoss })
        #expect(stalled.peers[peer]?.state == .established)
        // Without the allowance, the same tick declares the peer lost.
        var plain = established()
        #expect(plain.onTick(now: ms(1200)).contains { $0.isLoss })
        // A peer that really went silent is lost once its silence exceeds the limit plus the allowance.
        var table = established()
        var lostAt: Int?
        for t in stride(from: 10, through: 3000, by: 10) where lostAt == nil {
            if table.onTick(now: ms(t), allowance: .milliseconds(300)).contains(where: { $0.isLoss }) { lostAt = t }
        }
        #expect(lostAt == 1050)
    }

    @Test("the delay is the longest of the last half to whole second, capped at 2 s, and then forgotten")
    func window() {
        var d = OwnDelay()
        #expect(d.allowance(now: ms(0)) == .zero)
        d.note(.milliseconds(400), now: ms(1000))
        d.note(.milliseconds(30), now: ms(1100))
        #expect(d.allowance(now: ms(1200)) == .milliseconds(400))
        // The next window starts at 1500 with a smaller delay: the 400 ms one is still counted until 2000.
        d.note(.milliseconds(20), now: ms(1600))
        #expect(d.allowance(now: ms(1700)) == .milliseconds(400))
        d.note(.milliseconds(10), now: ms(2150))
        #expect(d.allowance(now: ms(2200)) == .milliseconds(20))
        // Nothing noted for over a second: no allowance.
        #expect(d.allowance(now: ms(3400)) == .zero)
        d.note(.seconds(30), now: ms(4000))
        #expect(d.allowance(now: ms(4000)) == OwnDelay.limit)
    }
}

extension MembershipDirective {
    fileprivate var isLoss: Bool {
        if case .stateChanged(_, _, .lost) = self { return true }
        return false
    }
}

@Suite("Datagrams lost unread count as the node's own lateness")
struct UnreadDatagramsTests {
    @Test("a rise is the silence since the last count that did not rise; a counter that starts again is a baseline")
    func riseSinceTheLastQuietCount() {
        var u = UnreadDatagrams()
        // Counted from zero: drops before the first count are drops (a node that fell behind as it started).
        #expect(u.onCount(400, now: ms(50)) == .milliseconds(50))
        #expect(u.onCount(500, now: ms(100)) == .milliseconds(100))
        #expect(u.onCount(500, now: ms(100)) == nil)
        // Drops between 100 and 200 ms: a peer's datagrams may be missing for all of that time.
        #expect(u.onCount(520, now: ms(200)) == .milliseconds(100))
        // Still dropping: the silence they can have made runs from the last quiet count, 100 ms.
        #expect(u.onCount(600, now: ms(300)) == .milliseconds(200))
        #expect(u.onCount(601, now: ms(1300)) == .milliseconds(1200))
        // Quiet again: nothing more, and the next episode starts from that quiet count.
        #expect(u.onCount(601, now: ms(1400)) == nil)
        #expect(u.onCount(605, now: ms(1500)) == .milliseconds(100))
        // A counter that started again (a socket bound anew) is a baseline, not a loss.
        #expect(u.onCount(3, now: ms(1600)) == nil)
        #expect(u.onCount(4, now: ms(1700)) == .milliseconds(100))
    }

    @Test(
        "a reading seen again is not a quiet spell: looked at every 50 ms, read every 100 ms, the silence still grows")
    func repeatedReadingsAreIgnored() {
        var u = UnreadDatagrams()
        var silences: [Duration] = []
        // Drops rise at every reading (every 100 ms) from 100 ms on; the tick looks every 50 ms.
        for t in stride(from: 0, through: 1000, by: 50) {
            let reading = UInt64(t / 100)
            let count = UInt64(max(0, t / 100 - 1) * 40)
            if let s = u.onCount(count, reading: reading, now: ms(t)) { silences.append(s) }
        }
        // Readings 2…10 each rose; the silence runs from the last quiet reading (reading 1, first looked at at 100 ms).
        #expect(silences == (2...10).map { .milliseconds($0 * 100 - 100) }, "\(silences)")
        // Without reading numbers, every other look repeats a count and restarts the silence at 50 ms.
        var plain = UnreadDatagrams()
        let restarted = stride(from: 0, through: 1000, by: 50).compactMap { t in
            plain.onCount(UInt64(max(0, t / 100 - 1) * 40), now: ms(t))
        }
        #expect(restarted.allSatisfy { $0 == .milliseconds(50) }, "\(restarted)")
    }

    @Test("a peer silent only because its datagrams were dropped unread is not lost")
    func droppedUnreadIsNotALoss() {
        var table = MembershipTable<String>(localID: NodeID(high: 0, low: 1))
        let peer = NodeID(high: 0, low: 2)
        _ = table.onDiscovered(
            id: peer, incarnation: 7, name: "p", role: .drone, uavNumber: nil, address: "P", now: ms(0))
        _ = table.onEstablished(id: peer, incarnation: 7, role: .drone, address: "P", now: ms(0))
        // Heard at 0; from 100 ms on, the socket's buffer overflows for 1.1 s; the node's ticks run on time.
        var unread = UnreadDatagrams()
        var delay = OwnDelay()
        var lost = false
        var count: UInt64 = 0
        _ = unread.onCount(count, now: ms(0))
        for t in stride(from: 10, through: 1300, by: 10) {
            if t % 50 == 0 {
                if t > 100 && t <= 1200 { count += 7 }
                if let silence = unread.onCount(count, now: ms(t)) { delay.note(silence, now: ms(t)) }
            }
            if table.onTick(now: ms(t), allowance: delay.allowance(now: ms(t))).contains(where: { $0.isLoss }) {
                lost = true
            }
        }
        #expect(!lost)
        // The same silence without the drops counted: lost.
        var plain = MembershipTable<String>(localID: NodeID(high: 0, low: 1))
        _ = plain.onDiscovered(
            id: peer, incarnation: 7, name: "p", role: .drone, uavNumber: nil, address: "P", now: ms(0))
        _ = plain.onEstablished(id: peer, incarnation: 7, role: .drone, address: "P", now: ms(0))
        #expect(stride(from: 10, through: 1300, by: 10).contains { plain.onTick(now: ms($0)).contains { $0.isLoss } })
    }
}
