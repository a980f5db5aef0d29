import ControlProtocol
import Doctor
import Foundation
import LabKit
import Testing

/// Issue #19 on real processes: `fleetmesh doctor` gives the right verdict when each thing it checks is broken in
/// the lab, and the node plays its part of a `Type=notify` unit against a socket that plays systemd's.
@Suite(.serialized)
struct DeploymentLabTests {
    /// Runs `fleetmesh doctor --json` on `host` and decodes its report.
    func doctor(_ lab: Lab, host: Int, config: String, browse: Int = 2) throws -> (status: Int32, report: DoctorReport)
    {
        let r = try shell(
            lab.onHost(
                host, [try fleetmeshBinary(), "doctor", "--config", config, "--json", "--browse-seconds", "\(browse)"]))
        guard let start = r.output.firstIndex(of: "{"),
            let report = try? JSONDecoder().decode(DoctorReport.self, from: Data(r.output[start...].utf8))
        else { throw LabError("doctor printed no report: \(r.output)") }
        return (r.status, report)
    }

    func finding(_ report: DoctorReport, _ check: String) -> DoctorFinding {
        report.findings.first { $0.check == check }
            ?? DoctorFinding(check: check, verdict: .skipped, detail: "(no such finding)")
    }

    /// Waits (running doctor again and again) until `check`'s finding satisfies `condition`; returns it.
    func doctorUntil(
        _ what: String, _ lab: Lab, host: Int, config: String, check: String, timeout: Duration = .seconds(20),
        _ condition: (DoctorFinding) -> Bool
    ) async throws -> DoctorFinding {
        var last = DoctorFinding(check: check, verdict: .skipped, detail: "(not run)")
        do {
            _ = try await waitUntil(what, timeout: timeout, poll: .milliseconds(200)) {
                last = finding(try doctor(lab, host: host, config: config).report, check)
                return condition(last)
            }
        } catch {
            throw LabError("\(error); doctor's last \(check) finding: \(last.verdict) \(last.detail)")
        }
        return last
    }

    @Test func doctorNamesEachThingBrokenInTheLabAndItsFix() async throws {
        try await Lab.with(hosts: 3) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            let drone = try lab.startNode(host: 2, name: "drone-2")
            try await waitUntil("the station in session with drone-2", timeout: .seconds(20)) {
                station.peerState("drone-2") == "established"
            }

            // Healthy: every check passes, and the peer is named as in session.
            let healthy = try doctor(lab, host: 1, config: station.config, browse: 3)
            #expect(healthy.status == 0 && healthy.report.verdict == .ok, "\(healthy.report.findings)")
            #expect(
                healthy.report.findings.map(\.check) == [
                    "config", "key", "node", "avahi", "interfaces", "firewall", "clock", "port", "peers",
                    "receive buffer",
                ])
            #expect(finding(healthy.report, "receive buffer").detail.contains("no datagram lost unread"))
            #expect(finding(healthy.report, "peers").detail.contains("drone-2 (in session)"))
            #expect(finding(healthy.report, "node").detail.contains("1 peers in session"))

            // An operator without root beside a node that runs as another user: told to use sudo, not misled.
            let asNobody = try shell(
                lab.onHost(
                    1,
                    [
                        "runuser", "-u", "nobody", "--", try fleetmeshBinary(), "doctor", "--config", station.config,
                        "--json", "--browse-seconds", "1",
                    ]))
            let unprivileged = try JSONDecoder().decode(
                DoctorReport.self, from: Data(asNobody.output[asNobody.output.firstIndex(of: "{")!...].utf8))
            let keyAsNobody = finding(unprivileged, "key")
            #expect(keyAsNobody.verdict == .failed && keyAsNobody.fix?.contains("sudo fleetmesh doctor") == true)
            let nodeAsNobody = finding(unprivileged, "node")
            #expect(
                nodeAsNobody.verdict == .warning && nodeAsNobody.detail.contains("is not open to this user"),
                "\(nodeAsNobody)")

            // The key file readable by others.
            chmod(lab.keyPath, 0o644)
            let leaky = try doctor(lab, host: 1, config: station.config)
            chmod(lab.keyPath, 0o600)
            let key = finding(leaky.report, "key")
            #expect(leaky.status == 1 && key.verdict == .failed && key.detail.contains("mode 0644"), "\(key)")
            #expect(key.fix == "chmod 600 \(lab.keyPath)")

            // A node of another mesh on the link: named, with both fingerprints.
            let otherKey = lab.directory.appendingPathComponent("other.key").path
            #expect(try shell([try fleetmeshBinary(), "keygen", otherKey]).status == 0)
            let intruder = try lab.startNode(host: 3, name: "intruder", key: otherKey)
            let foreign = try await doctorUntil(
                "doctor sees the other mesh's node", lab, host: 1, config: station.config, check: "peers"
            ) { $0.detail.contains("\"intruder\"") }
            #expect(foreign.verdict == .failed && foreign.detail.contains("belongs to another mesh"), "\(foreign)")
            #expect(foreign.detail.contains("fine: drone-2 (in session)"), "\(foreign)")
            intruder.kill()

            // The drone's firewall drops the mesh port: the drone's doctor names the rule; the station's says the
            // drone no longer answers and what to open.
            for tool in ["iptables", "ip6tables"] {
                try lab.lab("exec", "2", tool, "-A", "INPUT", "-p", "udp", "--dport", "47800", "-j", "DROP")
            }
            let walled = try doctor(lab, host: 2, config: drone.config)
            let firewall = finding(walled.report, "firewall")
            #expect(
                firewall.verdict == .failed
                    && firewall.detail.contains(
                        "IPv4 the mesh port UDP 47800 in: dropped by `-A INPUT -p udp -m udp --dport 47800 -j DROP`")
                    && firewall.detail.contains("IPv6 the mesh port UDP 47800 in"), "\(firewall)")
            #expect(firewall.fix?.contains("iptables -D INPUT -p udp -m udp --dport 47800 -j DROP") == true)
            let silent = try await doctorUntil(
                "the station's doctor finds drone-2 unanswered", lab, host: 1, config: station.config, check: "peers"
            ) { $0.detail.contains("handshakes unanswered") }
            #expect(
                silent.verdict == .failed && silent.detail.contains("\"drone-2\"")
                    && silent.fix?.contains("open UDP 47800 in its firewall") == true, "\(silent)")
            for tool in ["iptables", "ip6tables"] {
                try lab.lab("exec", "2", tool, "-D", "INPUT", "-p", "udp", "--dport", "47800", "-j", "DROP")
            }
            try await waitUntil("drone-2 back in session", timeout: .seconds(20)) {
                station.peerState("drone-2") == "established"
            }

            // mDNS refused on the way out.
            try lab.lab("exec", "1", "iptables", "-A", "OUTPUT", "-p", "udp", "--dport", "5353", "-j", "REJECT")
            let mdns = finding(try doctor(lab, host: 1, config: station.config).report, "firewall")
            try lab.lab("exec", "1", "iptables", "-D", "OUTPUT", "-p", "udp", "--dport", "5353", "-j", "REJECT")
            #expect(mdns.verdict == .failed && mdns.detail.contains("IPv4 mDNS UDP 5353 out: dropped by"), "\(mdns)")

            // The interface without multicast.
            try lab.lab("exec", "1", "ip", "link", "set", "eth0", "multicast", "off")
            let deaf = finding(try doctor(lab, host: 1, config: station.config).report, "interfaces")
            try lab.lab("exec", "1", "ip", "link", "set", "eth0", "multicast", "on")
            #expect(deaf.verdict == .failed && deaf.detail.contains("eth0 has multicast off"), "\(deaf)")
            #expect(deaf.fix == "ip link set eth0 multicast on")

            // avahi-daemon stopped, then the whole D-Bus system bus.
            try lab.lab("avahi-stop", "1")
            let noAvahi = try doctor(lab, host: 1, config: station.config).report
            #expect(finding(noAvahi, "avahi").verdict == .failed, "\(finding(noAvahi, "avahi"))")
            #expect(finding(noAvahi, "avahi").fix?.contains("avahi-daemon") == true)
            #expect(finding(noAvahi, "peers").verdict == .skipped)
            try lab.lab("dbus-stop", "1")
            let noBus = finding(try doctor(lab, host: 1, config: station.config).report, "avahi")
            #expect(noBus.verdict == .failed && noBus.detail.contains("no D-Bus system bus"), "\(noBus)")
            #expect(noBus.fix?.contains("systemctl start dbus avahi-daemon") == true)
            try lab.lab("dbus-start", "1")
            try lab.lab("avahi-start", "1")
            let back = try await doctorUntil(
                "avahi-daemon answering again", lab, host: 1, config: station.config, check: "avahi"
            ) { $0.verdict == .ok }
            #expect(back.detail == "avahi-daemon answers over D-Bus")

            // The node stopped and another program on its port.
            #expect(try await station.stop() == 0)
            let squatter = try lab.start(host: 1, tag: "squatter", ["socat", "-u", "UDP-RECV:47800", "/dev/null"])
            let taken = try await doctorUntil(
                "doctor finds the port taken", lab, host: 1, config: station.config, check: "port"
            ) { $0.verdict == .failed }
            #expect(
                taken.detail.contains("UDP 47800 is taken by process") && taken.detail.contains("(socat)"), "\(taken)")
            let stopped = try doctor(lab, host: 1, config: station.config).report
            #expect(
                finding(stopped, "node").verdict == .warning && finding(stopped, "node").detail.contains("not running"))
            squatter.process.signal(SIGKILL)

            // A config that does not load: the rest is skipped, saying why; and one that does not exist.
            let bad = lab.directory.appendingPathComponent("bad.toml").path
            try "[node]\nname = \"x\"\nrole = \"pilot\"\nkey_file = \"\(lab.keyPath)\"\n".write(
                toFile: bad, atomically: true, encoding: .utf8)
            let broken = try doctor(lab, host: 1, config: bad)
            #expect(broken.status == 1 && finding(broken.report, "config").verdict == .failed)
            #expect(finding(broken.report, "config").detail.contains("role"), "\(finding(broken.report, "config"))")
            #expect(finding(broken.report, "peers").detail == "needs the config, which did not load")
            #expect(finding(broken.report, "clock").verdict == .ok)
            let missing = try doctor(lab, host: 1, config: lab.directory.appendingPathComponent("none.toml").path)
            #expect(finding(missing.report, "config").detail.hasSuffix("none.toml does not exist"))
        }
    }

    /// The node under `Type=notify`, systemd played by a Unix datagram socket: READY=1 only once the mesh record is
    /// published (never while avahi-daemon is down), a status line meanwhile, WATCHDOG=1 every half period, and
    /// STOPPING=1 on SIGTERM. A node that does not advertise is ready without Avahi.
    @Test func theNodeTellsSystemdWhenItIsReadyFeedsTheWatchdogAndSaysWhenItStops() async throws {
        try await Lab.with(hosts: 2) { lab in
            let messages = NotifyLog()
            defer { messages.stop() }
            func listen(_ name: String) throws -> String {
                let path = lab.directory.appendingPathComponent(name).path
                messages.read(try UnixDatagramReceiver(name: path, timeout: .milliseconds(100)), as: name)
                return path
            }
            let droneSocket = try listen("notify-drone")
            let quietSocket = try listen("notify-quiet")
            try lab.lab("avahi-stop", "1")
            try lab.lab("avahi-stop", "2")
            let drone = try lab.startNode(
                host: 1, name: "drone-1", environment: ["NOTIFY_SOCKET": droneSocket, "WATCHDOG_USEC": "400000"])
            let quiet = try lab.startNode(
                host: 2, name: "quiet", network: "advertise = false", environment: ["NOTIFY_SOCKET": quietSocket])

            // Without avahi-daemon the advertising node is not ready and says why; the other one is.
            try await waitUntil("the drone's status line says what it waits for", timeout: .seconds(15)) {
                messages.from("notify-drone").contains {
                    $0.contains("STATUS=on UDP 47800, not yet published; Avahi: waiting for avahi-daemon")
                }
            }
            try await waitUntil("the node that does not advertise is ready", timeout: .seconds(15)) {
                messages.from("notify-quiet").contains { $0.hasPrefix("READY=1") }
            }
            #expect(!messages.from("notify-drone").contains { $0.contains("READY=1") })

            try lab.lab("avahi-start", "1")
            try await waitUntil("READY=1 from the drone", timeout: .seconds(15)) {
                messages.from("notify-drone").contains { $0.hasPrefix("READY=1") }
            }
            let status = try drone.status()
            #expect(status.node.publishedName == "drone-1" && status.node.port == 47800)
            let log = messages.from("notify-drone")
            let ready = try #require(log.firstIndex { $0.hasPrefix("READY=1") })
            #expect(log[ready].contains("STATUS=in the mesh as drone-1 on UDP 47800"), "\(log[ready])")
            #expect(!log[..<ready].contains { $0.contains("WATCHDOG=1") })

            // WATCHDOG_USEC 400 ms: a ping every 200 ms, from the node's own loop.
            try await waitUntil("five watchdog pings", timeout: .seconds(10)) {
                messages.from("notify-drone").filter { $0.contains("WATCHDOG=1") }.count >= 5
            }
            #expect(!messages.from("notify-quiet").contains { $0.contains("WATCHDOG=1") })

            #expect(try await drone.stop() == 0)
            #expect(
                messages.from("notify-drone").last?.hasPrefix("STOPPING=1") == true,
                "\(messages.from("notify-drone").suffix(3))")
            #expect(try await quiet.stop() == 0)
        }
    }

    /// Under a unit, standard error is the journal's stream: the node then writes structured entries to the
    /// journal's socket (played by a Python receiver in the host's own /run/systemd), and falls back to standard
    /// error where no journal listens.
    @Test func theNodeLogsStructuredEntriesToTheJournal() async throws {
        try await Lab.with(hosts: 2) { lab in
            let script = repositoryRoot.appendingPathComponent("Tests/LabTests/journal_receiver.py").path
            let journal = try lab.start(
                host: 1, tag: "journald",
                [
                    "sh", "-c",
                    "mkdir -p /run/systemd && mount -t tmpfs none /run/systemd && exec python3 -u '\(script)' /run/systemd/journal/socket",
                ])
            try await waitUntil("the journal's socket bound", timeout: .seconds(10)) {
                journal.output.contains("listening")
            }
            // systemd sets JOURNAL_STREAM to its stream's device and inode: here, the node's log file's.
            func stream(host: Int, name: String) throws -> String {
                let path = lab.directory.appendingPathComponent("h\(host)-\(name).log").path
                FileManager.default.createFile(atPath: path, contents: nil)
                var info = stat()
                guard stat(path, &info) == 0 else { throw LabError("cannot stat \(path)") }
                return "\(info.st_dev):\(info.st_ino)"
            }
            let drone = try lab.startNode(
                host: 1, name: "drone-1", environment: ["JOURNAL_STREAM": try stream(host: 1, name: "drone-1")])
            let station = try lab.startNode(
                host: 2, name: "station", role: "station",
                environment: ["JOURNAL_STREAM": try stream(host: 2, name: "station")])
            func entries() -> [[String: String]] {
                journal.output.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
                }.filter { $0["MESSAGE"] != nil }
            }
            var stationID = ""
            try await waitUntil("the station answers on its control socket", timeout: .seconds(10)) {
                stationID = try station.status().node.id
                return true
            }
            try await waitUntil("the drone's journal holds the station's arrival as an event", timeout: .seconds(20)) {
                entries().contains { $0["FLEETMESH_EVENT"] == "peer" && $0["FLEETMESH_PEER"] == stationID }
            }
            let all = entries()
            #expect(!journal.output.contains("unparsed"), "\(journal.output.prefix(2000))")
            let start = try #require(all.first { $0["MESSAGE"]?.contains("listening on UDP 47800") == true })
            #expect(start["PRIORITY"] == "6" && start["SYSLOG_IDENTIFIER"] == "fleetmesh-drone-1", "\(start)")
            #expect(start["FLEETMESH_NODE"] == "drone-1" && start["FLEETMESH_ROLE"] == "drone", "\(start)")
            #expect(start["FLEETMESH_LOGGER"] == "fleetmesh.drone-1" && start["FLEETMESH_SOURCE"] == "Node", "\(start)")
            #expect(start["CODE_FILE"]?.hasSuffix(".swift") == true && Int(start["CODE_LINE"] ?? "") != nil, "\(start)")
            #expect(all.allSatisfy { $0["FLEETMESH_NODE"] == "drone-1" })
            let debug = all.filter { $0["PRIORITY"] == "7" }
            #expect(!debug.isEmpty, "the lab logs at debug level: its lines are priority 7")
            // Nothing went to the drone's standard error; the station, with no journal on its host, wrote there.
            #expect(!drone.log.contains("listening on UDP"), "\(drone.log.prefix(500))")
            #expect(station.log.contains("listening on UDP 47800"))
        }
    }

    @Test func theUnitsPassSystemdsOwnChecks() throws {
        let r = try shell(["bash", repositoryRoot.appendingPathComponent("scripts/verify-units").path])
        #expect(r.status == 0 && r.output.contains("verify-units: ok"), "\(r.output)")
        #expect(r.output.contains("Overall exposure level for fleetmesh@station-1.service: 2.1 OK"), "\(r.output)")
    }
}

/// What each notify socket received, read on threads of their own (a blocking read must not hold a thread of the
/// concurrency pool the test's waits run on); each thread closes its socket when told to stop.
final class NotifyLog: @unchecked Sendable {
    private var messages: [String: [String]] = [:]
    private var running = true
    private let lock = NSLock()

    func read(_ receiver: UnixDatagramReceiver, as name: String) {
        Thread {
            while self.isRunning {
                if let m = try? receiver.receive() {
                    self.lock.withLock { self.messages[name, default: []].append(m) }
                }
            }
            receiver.close()
        }.start()
    }

    var isRunning: Bool { lock.withLock { running } }
    func stop() { lock.withLock { running = false } }
    func from(_ name: String) -> [String] { lock.withLock { messages[name] ?? [] } }
}
