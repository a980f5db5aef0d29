import MeshTypes
import Testing

@testable import Coordinator

@Suite("Avoidance reports")
struct AvoidanceReportTests {
    /// GS (0) — D1 (1) — D2 (2), as for telemetry: the station hears D2's decisions through D1.
    static func world() -> Pump { TelemetryTests.world() }

    static func reports(_ p: Pump) -> [String] {
        p.directives[0].compactMap {
            if case .avoidanceReported(let r, _) = $0 { "\(r.uavNumber): \(r.summary)" } else { nil }
        }
    }

    @Test("a drone's new decisions reach the stations over a relay, at most one a second, the newest kept")
    func decisionsReachTheStation() {
        var p = Self.world()
        p.call(2) { $0.onLocalAvoidanceDecision("altitude 24.0 m (yielding to 1)", now: $1) }
        p.advance(.milliseconds(100))
        #expect(Self.reports(p) == ["2: altitude 24.0 m (yielding to 1)"])
        // Two more within the second: only the newest goes, when the second is over.
        p.call(2) { $0.onLocalAvoidanceDecision("stop at (1.0, 2.0, 3.0)", now: $1) }
        p.call(2) { $0.onLocalAvoidanceDecision("nominal", now: $1) }
        p.advance(.milliseconds(700))
        #expect(Self.reports(p).count == 1)
        p.advance(.milliseconds(400))
        #expect(Self.reports(p) == ["2: altitude 24.0 m (yielding to 1)", "2: nominal"])
        // Drones do not take them (nor stations originate them).
        #expect(!p.directives[1].contains { if case .avoidanceReported = $0 { true } else { false } })
        #expect(p.cores[0].onLocalAvoidanceDecision("nominal", now: p.now).isEmpty)
    }

    @Test("a decision made while no station is reachable waits for one")
    func waitsForAStation() {
        var p = Self.world()
        p.unlink(0, 1)
        p.advance(.seconds(12))
        p.call(2) { $0.onLocalAvoidanceDecision("sidestep to (4.0, 0.0, 10.0)", now: $1) }
        p.advance(.milliseconds(500))
        #expect(Self.reports(p).isEmpty)
        p.link(0, 1)
        p.advance(.seconds(2))
        #expect(Self.reports(p) == ["2: sidestep to (4.0, 0.0, 10.0)"])
    }
}
