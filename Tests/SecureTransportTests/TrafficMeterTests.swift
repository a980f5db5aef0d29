import MeshTypes
import Testing

/// The node's own traffic counts: totals, and rates over the last whole seconds.
@Suite struct TrafficMeterTests {
    func at(_ ms: UInt64) -> MeshInstant { MeshInstant(nanoseconds: ms * 1_000_000) }

    @Test("totals add up; rates average the last five whole seconds, leave out the current one and forget older ones")
    func ratesOverTheWindow() {
        var m = TrafficMeter(windowSeconds: 5)
        // 100 bytes out every 100 ms and 50 in every 200 ms, for 12 s.
        for ms in stride(from: UInt64(0), to: 12_000, by: 100) {
            m.sent(100, now: at(ms))
            if ms % 200 == 0 { m.received(50, now: at(ms)) }
        }
        #expect(m.datagramsOut == 120 && m.bytesOut == 12_000 && m.datagramsIn == 60 && m.bytesIn == 3000)
        let r = m.rates(now: at(12_000))
        #expect(r.bytesOut == 1000 && r.datagramsOut == 10 && r.bytesIn == 250 && r.datagramsIn == 5)
        // Silence for 3 s: two of the five seconds still had traffic.
        let later = m.rates(now: at(15_000))
        #expect(later.bytesOut == 400 && later.datagramsIn == 2)
        // Long after, nothing (the ring's buckets are of old seconds).
        #expect(m.rates(now: at(60_000)).bytesOut == 0)
    }

    @Test("just after start the rate is over the seconds there were")
    func early() {
        var m = TrafficMeter()
        m.sent(300, now: at(100))
        m.sent(300, now: at(900))
        #expect(m.rates(now: at(1_500)).bytesOut == 600)
        #expect(m.rates(now: at(500)).bytesOut == 0)  // nothing whole yet
    }
}
