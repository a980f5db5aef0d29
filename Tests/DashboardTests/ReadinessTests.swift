import ControlProtocol
import Testing

@testable import Dashboard

/// `/readyz`: ready only when the node answers, its Avahi client runs with the record published, and its
/// ground-control endpoint (if any) is bound.
@Suite struct ReadinessTests {
    func status(avahi: String = "running", published: String? = "station", groundControl: String? = nil)
        -> NodeStatus
    {
        NodeStatus(
            node: .init(
                id: "00", name: "station", publishedName: published, role: "station", incarnation: "1", port: 47800,
                fingerprint: "ff", uptimeMs: 1, avahi: avahi, rejections: [:], groundControl: groundControl),
            peers: [])
    }

    @Test func eachMissingPartIsNamed() {
        #expect(DashboardService.readinessProblems(status()).isEmpty)
        #expect(DashboardService.readinessProblems(status(groundControl: "listening on UDP 14550")).isEmpty)
        #expect(DashboardService.readinessProblems(nil) == ["the node does not answer"])
        #expect(
            DashboardService.readinessProblems(status(avahi: "waiting for avahi-daemon"))
                == ["Avahi: waiting for avahi-daemon"])
        #expect(
            DashboardService.readinessProblems(status(published: nil))
                == ["Avahi: the node's DNS-SD record is not published yet"])
        #expect(
            DashboardService.readinessProblems(status(groundControl: "starting")) == ["ground control: starting"])
    }
}
