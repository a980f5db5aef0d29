import ControlProtocol
import Foundation
import Testing

@testable import Doctor

/// The report's verdicts and wording, the clock's verdict, and matching a DNS-SD address to a noted problem.
struct DoctorReportTests {
    @Test func theWorstVerdictWinsAndTheSummaryNamesTheChecks() {
        var report = DoctorReport(
            config: "/etc/fleetmesh/d.toml", node: "d",
            findings: [
                .init(check: "config", verdict: .ok, detail: "loads"),
                .init(check: "clock", verdict: .skipped, detail: "-"),
            ])
        #expect(report.verdict == .ok)
        #expect(report.summary == "all 2 checks passed")
        report.findings.append(.init(check: "clock", verdict: .warning, detail: "not synchronised", fix: "ntp"))
        report.findings.append(.init(check: "key", verdict: .failed, detail: "mode 0644", fix: "chmod 600 k"))
        #expect(report.verdict == .failed)
        #expect(report.summary == "failed: key; warnings: clock")
        #expect(DoctorReport.line(report.findings[3]) == "[failed]  key: mode 0644\n          fix: chmod 600 k")
    }

    @Test func theJSONFieldsAreTheDocumentedOnes() throws {
        let report = DoctorReport(
            config: "c.toml", node: nil, findings: [.init(check: "port", verdict: .failed, detail: "taken", fix: "x")])
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        #expect(Set(object.keys) == ["config", "findings"])
        let finding = try #require((object["findings"] as? [[String: Any]])?.first)
        #expect(Set(finding.keys) == ["check", "verdict", "detail", "fix"])
        #expect(finding["verdict"] as? String == "failed")
    }

    @Test func aClockBeforeThisReleaseOrFarAheadFailsAndAnUnsyncedOneWarns() {
        #expect(Doctor.clockFinding(now: Date(timeIntervalSince1970: 0), synchronised: nil).verdict == .failed)
        let y2200 = Date(timeIntervalSince1970: 7_258_118_400)
        #expect(Doctor.clockFinding(now: y2200, synchronised: "yes").verdict == .failed)
        let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11
        #expect(Doctor.clockFinding(now: now, synchronised: "no").verdict == .warning)
        #expect(Doctor.clockFinding(now: now, synchronised: "yes").verdict == .ok)
        #expect(Doctor.clockFinding(now: now, synchronised: nil).verdict == .ok)
        #expect(
            Doctor.clockFinding(now: Date(timeIntervalSince1970: 0), synchronised: nil).fix?.contains("timedatectl")
                == true)
    }

    @Test func aSmallReceiveBufferLimitOrDatagramsLostUnreadWarn() {
        func traffic(kernel: Int?, queue: Int?) -> NodeStatus.Traffic {
            NodeStatus.Traffic(
                bytesInPerSecond: 0, bytesOutPerSecond: 0, datagramsInPerSecond: 0, datagramsOutPerSecond: 0,
                bytesIn: 0,
                bytesOut: 0, datagramsIn: 0, datagramsOut: 0, droppedByKernel: kernel, droppedByQueue: queue,
                receiveBuffer: 2 << 20)
        }
        // Debian's stock limit caps the 1 MiB the socket asks for.
        let stock = Doctor.receiveBufferFinding(rmemMax: 212_992, traffic: nil)
        #expect(stock.verdict == .warning && stock.detail.contains("212992"), "\(stock.detail)")
        #expect(stock.fix?.contains("net.core.rmem_max=4194304") == true && stock.fix?.contains("sysctl.d") == true)
        let fine = Doctor.receiveBufferFinding(rmemMax: 4_194_304, traffic: traffic(kernel: 0, queue: 0))
        #expect(fine.verdict == .ok && fine.detail.contains("2048 KiB") && fine.detail.contains("no datagram lost"))
        #expect(Doctor.receiveBufferFinding(rmemMax: 4_194_304, traffic: nil).verdict == .ok)
        let lost = Doctor.receiveBufferFinding(rmemMax: 4_194_304, traffic: traffic(kernel: 5480, queue: 2))
        #expect(lost.verdict == .warning && lost.detail.contains("lost 5482 datagrams unread"), "\(lost.detail)")
        #expect(Doctor.receiveBufferFinding(rmemMax: nil, traffic: nil).verdict == .warning)
    }

    @Test func aProblemIsFoundByTheAddressesIPWhateverThePortOrBrackets() {
        let problems = [
            NodeStatus.HandshakeProblem(
                address: "[fe80::1%eth0]:47800", problem: "a", category: "unanswered", msAgo: 0, count: 1),
            NodeStatus.HandshakeProblem(
                address: "10.0.0.2:40000", problem: "b", category: "wrongMeshKey", msAgo: 5, count: 3),
        ]
        #expect(Doctor.problem(for: "fe80::1%eth0", in: problems)?.problem == "a")
        #expect(Doctor.problem(for: "FE80::1", in: problems)?.problem == "a")
        #expect(Doctor.problem(for: "10.0.0.2", in: problems)?.problem == "b")
        #expect(Doctor.problem(for: "10.0.0.20", in: problems) == nil)
    }
}
