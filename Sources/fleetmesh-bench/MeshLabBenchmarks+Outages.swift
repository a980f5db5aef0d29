import Foundation
import LabKit
import Node

extension MeshLabBenchmarks {
    /// When station-a and drone-b each show the other established again (polled every 5 ms, 15 s at most).
    static func backInSession(_ a: NodeProcess, _ b: NodeProcess, since restored: ContinuousClock.Instant) async throws
        -> (ContinuousClock.Instant, ContinuousClock.Instant)?
    {
        var aBack: ContinuousClock.Instant?
        var bBack: ContinuousClock.Instant?
        while clock.now - restored < .seconds(15) {
            if aBack == nil, a.peerState("drone-b") == "established" { aBack = clock.now }
            if bBack == nil, b.peerState("station-a") == "established" { bBack = clock.now }
            if let aBack, let bBack { return (aBack, bBack) }
            try await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    // MARK: 5. Recovery after outages that outlast detection

    /// The field's case: the pair is cut, the loss is seen, and the cut lasts 3 s more before the restore — by link,
    /// by firewall both ways and one way. Restore → both sides established, against the heal right after detection
    /// measured in the same run (`baseline`).
    static func outageRecovery(
        _ lab: Lab, _ out: BenchOutput, a: NodeProcess, b: NodeProcess, samples: Int,
        baseline: Samples
    ) async throws {
        let kinds: [(name: String, cut: [String], restore: [String])] = [
            ("link", ["cut", "2"], ["restore", "2"]),
            ("firewall", ["block", "1", "2"], ["unblock", "1", "2"]),
            ("firewall one way (drone-b deaf)", ["drop", "1", "2"], ["undrop", "1", "2"]),
        ]
        for kind in kinds {
            var back = Samples()
            for i in 0..<samples {
                try await waitUntil("station-a and drone-b in session", timeout: .seconds(10), poll: .milliseconds(10))
                {
                    a.peerState("drone-b") == "established" && b.peerState("station-a") == "established"
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 300...400)))
                _ = try lab.lab(kind.cut)
                try await waitUntil("drone-b sees the loss", timeout: .seconds(5), poll: .milliseconds(20)) {
                    b.peerState("station-a") == "lost"
                }
                try await Task.sleep(for: .seconds(3))
                let restored = clock.now
                _ = try lab.lab(kind.restore)
                guard let (aBack, bBack) = try await backInSession(a, b, since: restored) else {
                    throw LabError("\(kind.name) outage \(i): not back in session within 15 s of the restore")
                }
                back.add(max(aBack, bBack) - restored)
            }
            out.latency("outage \(kind.name), 3 s past detection: restore → established (both sides)", back)
            out.note(
                "cut until drone-b shows station-a lost, 3 s more, restore; polled every 5 ms (before probes of lost peers this never came back)"
            )
            out.ratio(
                "  vs heal right after detection (same run), p50", back.p50 / baseline.p50,
                against: "restore at detection p50")
        }
    }
}
