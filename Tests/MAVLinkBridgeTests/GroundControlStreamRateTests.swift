import Coordinator
import Determinism
import MAVLink
import MeshTypes
import Testing

@testable import MAVLinkBridge

/// The streams a ground station receives keep their documented rates when ticks come late: each next send is due
/// one interval after the previous *deadline*, not after the late tick that sent it.
@Suite struct GroundControlStreamRateTests {
    /// Ticks every 50 ms, each 0–45 ms late (seeded), for 20 s; the number of each stream's messages per second.
    func rates(lateBy: (Int) -> Int) -> [String: Double] {
        var (b, g) = bridge()
        var counts: [String: Int] = [:]
        let start = 1000
        let seconds = 20
        for k in 0..<(seconds * 20) {
            let t = start + k * 50 + lateBy(k)
            // The ground station's own HEARTBEAT once a second keeps it a peer (it is dropped after 10 s of silence).
            if k % 20 == 0 { _ = b.receive(g.heartbeat(), from: "qgc", now: at(t)) }
            let out = b.tick(
                vehicles: [
                    .init(uavNumber: 12, state: state(alt: 10, activity: .hovering, armed: true), isStale: false)
                ],
                originAltitude: 250, now: at(t))
            for (_, frame) in framesSent(out) where frame.systemID == 12 {
                switch frame.message {
                case .heartbeat: counts["HEARTBEAT", default: 0] += 1
                case .globalPositionInt: counts["GLOBAL_POSITION_INT", default: 0] += 1
                case .vfrHud: counts["VFR_HUD", default: 0] += 1
                default: break
                }
            }
        }
        return counts.mapValues { Double($0) / Double(seconds) }
    }

    @Test("HEARTBEAT 1 Hz, GLOBAL_POSITION_INT 5 Hz, VFR_HUD 2 Hz within 2 % although every tick is up to 45 ms late")
    func documentedRatesHoldWithLateTicks() {
        var rng = SeededRandom(seed: 42)
        let measured = rates { _ in Int(rng.next() % 46) }
        let documented = ["HEARTBEAT": 1.0, "GLOBAL_POSITION_INT": 5.0, "VFR_HUD": 2.0]
        for (stream, hz) in documented {
            let got = measured[stream] ?? 0
            #expect(abs(got - hz) / hz <= 0.02, "\(stream): \(got) Hz, documented \(hz) Hz")
        }
    }

    @Test func farBehindSkipsWholePeriodsInsteadOfBursting() {
        let d = Bridge.nextDeadline(after: at(1000), every: .milliseconds(200), now: at(1950))
        #expect(d == at(2000))
        #expect(Bridge.nextDeadline(after: at(1000), every: .milliseconds(200), now: at(1030)) == at(1200))
        #expect(Bridge.nextDeadline(after: .zero, every: .seconds(1), now: at(5500)) == at(6000))
    }
}
