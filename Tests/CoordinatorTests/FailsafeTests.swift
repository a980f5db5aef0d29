import MeshTypes
import Testing

@testable import Coordinator

@Suite("Failsafe")
struct FailsafeTests {
    @Test("hover after 5 s without a station, return home 10 s later, report when a station is back")
    func failsafe() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "D", nil, 3)])
        p.link(0, 1)
        _ = p.cores[1].onFlyingChanged(true, now: p.now)
        p.advance(.seconds(1))
        p.unlink(0, 1)
        p.advance(.milliseconds(4900))
        #expect(!p.directives[1].contains(.failsafe(.hover)))
        p.advance(.milliseconds(200))
        #expect(p.directives[1].contains(.failsafe(.hover)))
        p.advance(.milliseconds(9800))
        #expect(!p.directives[1].contains(.failsafe(.returnHome)))
        p.advance(.milliseconds(200))
        #expect(
            p.directives[1].filter { if case .failsafe = $0 { true } else { false } } == [
                .failsafe(.hover), .failsafe(.returnHome),
            ])
        p.link(0, 1)
        p.advance(.milliseconds(200))
        let report = p.directives[0].compactMap { if case .failsafeReported(let r, _) = $0 { r } else { nil } }
        #expect(report.count == 1)
        #expect(report.first?.steps.map(\.action) == [.hover, .returnHome])
        #expect(report.first?.uavNumber == 3)
        #expect((report.first?.steps.first?.afterSilenceMilliseconds ?? 0) >= 5000)
    }

    @Test("a drone that landed in failsafe still reports it; the land action is configurable")
    func landedReport() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "D", nil, 3)]) {
            $0.failsafeAction = .land
            $0.failsafeHoverAfter = .seconds(2)
            $0.failsafeActionAfter = .seconds(1)
        }
        p.link(0, 1)
        _ = p.cores[1].onFlyingChanged(true, now: p.now)
        p.unlink(0, 1)
        p.advance(.milliseconds(3100))
        #expect(
            p.directives[1].filter { if case .failsafe = $0 { true } else { false } } == [
                .failsafe(.hover), .failsafe(.land),
            ])
        _ = p.cores[1].onFlyingChanged(false, now: p.now)
        p.advance(.seconds(5))
        p.link(0, 1)
        p.advance(.milliseconds(200))
        let report = p.directives[0].compactMap { if case .failsafeReported(let r, _) = $0 { r } else { nil } }
        #expect(report.first?.steps.map(\.action) == [.hover, .land])
    }

    @Test("no failsafe on the ground")
    func grounded() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "D", nil, 3)])
        p.link(0, 1)
        p.unlink(0, 1)
        p.advance(.seconds(20))
        #expect(!p.directives[1].contains { if case .failsafe = $0 { true } else { false } })
    }
}
