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
