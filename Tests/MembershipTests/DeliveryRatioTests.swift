import Testing

@testable import Membership

@Suite("The share of a peer's numbered datagrams that arrived lately")
struct DeliveryRatioTests {
    @Test("gaps count as lost, late arrivals as received, and the ratio follows the last window, not the whole session")
    func recentShare() {
        var d = DeliveryRatio()
        #expect(d.ratio == nil)
        // Every other datagram of the first 40 lost.
        for n in stride(from: 1, through: 40, by: 2) { d.onReceived(UInt64(n)) }
        let lossy = d.ratio ?? 0
        #expect(abs(lossy - 20.0 / 40) < 0.03, "\(lossy)")
        // A late one (below the highest heard) was expected already: received, nothing more expected.
        d.onReceived(38)
        #expect((d.ratio ?? 0) > lossy)
        // Then 400 in a row: the early losses are forgotten.
        for n in 41...440 { d.onReceived(UInt64(n)) }
        #expect((d.ratio ?? 0) > 0.99, "\(d.ratio ?? 0)")
        // 20 % lost from then on: the ratio settles near 0.8.
        for n in 441...1440 where n % 5 != 0 { d.onReceived(UInt64(n)) }
        let settled = d.ratio ?? 0
        #expect(abs(settled - 0.8) < 0.03, "\(settled)")
    }
}
