import ControlProtocol
import Foundation
import Node
import SecureTransport

/// `fleetmesh doctor`: why a node is not in the mesh. Each check looks at one thing a field team can fix — the
/// config, the key file, the running node, avahi-daemon over D-Bus, the interfaces, the firewall, the clock, the
/// port, and the peers seen on DNS-SD that the node has no session with — and gives a verdict and the fix.
public struct Doctor: Sendable {
    /// The node's config file.
    public var configPath: String
    /// How long to listen for peers on DNS-SD.
    public var browseTime: Duration
    /// Tells what is being looked at, as it goes (for a person waiting on a terminal).
    public var progress: @Sendable (String) -> Void

    public init(configPath: String, browseTime: Duration = .seconds(3), progress: @escaping @Sendable (String) -> Void)
    {
        self.configPath = configPath
        self.browseTime = browseTime
        self.progress = progress
    }

    /// Runs every check; a check that needs what an earlier one could not give is `skipped`, saying why.
    public func run() async -> DoctorReport {
        var findings: [DoctorFinding] = []
        let loaded = checkConfig()
        findings.append(loaded.finding)
        guard let configuration = loaded.configuration else {
            for check in ["key", "node", "avahi", "interfaces", "firewall", "port", "peers"] {
                findings.append(
                    DoctorFinding(check: check, verdict: .skipped, detail: "needs the config, which did not load"))
            }
            findings.append(checkClock())
            findings.append(checkReceiveBuffer(status: nil))
            return DoctorReport(config: configPath, node: nil, findings: findings)
        }
        let key = checkKey(configuration)
        findings.append(key.finding)
        progress("asking the node over \(configuration.controlSocket)")
        let node = checkNode(configuration, keyFingerprint: key.fingerprint)
        findings.append(node.finding)
        progress("looking for FleetMesh nodes on DNS-SD for \(browseTime.components.seconds) s")
        let browse = await DNSSDBrowse.run(for: browseTime)
        findings.append(avahiFinding(browse))
        findings.append(checkInterfaces(configuration))
        findings.append(checkFirewall(port: configuration.port))
        findings.append(checkClock())
        findings.append(checkPort(configuration, running: node.status != nil))
        findings.append(
            peersFinding(browse, configuration: configuration, fingerprint: key.fingerprint, status: node.status))
        findings.append(checkReceiveBuffer(status: node.status))
        return DoctorReport(config: configPath, node: configuration.name, findings: findings)
    }

    func checkConfig() -> (finding: DoctorFinding, configuration: NodeConfiguration?) {
        guard FileManager.default.fileExists(atPath: configPath) else {
            return (
                DoctorFinding(
                    check: "config", verdict: .failed, detail: "\(configPath) does not exist",
                    fix:
                        "copy an example (Config/station.toml or Config/drone.toml; /etc/fleetmesh/*.toml.example from the package) to \(configPath) and edit it"
                ), nil
            )
        }
        do {
            let c = try NodeConfiguration.load(path: configPath)
            return (
                DoctorFinding(
                    check: "config", verdict: .ok,
                    detail: "\(configPath) loads: \(c.role.rawValue) \"\(c.name)\", UDP port \(c.port)"), c
            )
        } catch {
            return (
                DoctorFinding(
                    check: "config", verdict: .failed, detail: "\(error)",
                    fix: "edit \(configPath) as the message says (the example configs explain every field)"), nil
            )
        }
    }

    /// The key file: there, private (mode 0600) and a valid key; its fingerprint for the later checks.
    func checkKey(_ c: NodeConfiguration) -> (finding: DoctorFinding, fingerprint: String?) {
        let path = c.keyFile
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            return (
                DoctorFinding(
                    check: "key", verdict: .failed, detail: "the mesh key file \(path): \(reason)",
                    fix:
                        "copy the mesh's key file from another node to \(path) (mode 0600), or start a new mesh with `fleetmesh keygen \(path)` and copy it to every node"
                ), nil
            )
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            return (
                DoctorFinding(
                    check: "key", verdict: .failed,
                    detail: "cannot read the mesh key file \(path) (\(NodeConfiguration.reason(error)))",
                    fix: getuid() == 0
                        ? "make it readable by the user that runs the node (owner \(info.st_uid), mode 0600)"
                        : "run the doctor as root (`sudo fleetmesh doctor`): the key belongs to the node's user"), nil
            )
        }
        let key: MeshKey
        do {
            key = try MeshKey(fileContents: text, path: path)
        } catch {
            return (
                DoctorFinding(
                    check: "key", verdict: .failed, detail: "\(error)",
                    fix: "copy the mesh's key file again from another node (64 hex digits and a newline)"), nil
            )
        }
        let mode = info.st_mode & 0o777
        if mode & 0o077 != 0 {
            return (
                DoctorFinding(
                    check: "key", verdict: .failed,
                    detail:
                        "\(path) has mode \(String(mode, radix: 8, uppercase: false).leftPadded(4)): other users can read the mesh key (fingerprint \(key.fingerprint))",
                    fix: "chmod 600 \(path)"), key.fingerprint
            )
        }
        return (
            DoctorFinding(
                check: "key", verdict: .ok, detail: "\(path), mode 0600, fingerprint \(key.fingerprint)"),
            key.fingerprint
        )
    }

    /// The running node, over its control socket.
    func checkNode(_ c: NodeConfiguration, keyFingerprint: String?) -> (finding: DoctorFinding, status: NodeStatus?) {
        let status: NodeStatus
        do {
            let response = try ControlClient.request(
                ControlRequest.status, socket: c.controlSocket, timeout: .seconds(3))
            guard let s = response.status else {
                return (
                    DoctorFinding(
                        check: "node", verdict: .failed,
                        detail: "the node at \(c.controlSocket) answered without a status: \(response.error ?? "empty")"
                    ),
                    nil
                )
            }
            status = s
        } catch {
            // A socket that is there but refuses this user: the node runs as another (the package's `fleetmesh`).
            if FileManager.default.fileExists(atPath: c.controlSocket), access(c.controlSocket, W_OK) != 0 {
                return (
                    DoctorFinding(
                        check: "node", verdict: .warning,
                        detail: "the control socket \(c.controlSocket) is not open to this user (\(error))",
                        fix: "run the doctor as root: `sudo fleetmesh doctor --config \(configPath)`"), nil
                )
            }
            return (
                DoctorFinding(
                    check: "node", verdict: .warning,
                    detail:
                        "no node answers at \(c.controlSocket): it is not running (the checks below look at the machine only)",
                    fix: "start it: `systemctl start fleetmesh@\(c.name)` or `fleetmesh run --config \(configPath)`"),
                nil
            )
        }
        let n = status.node
        if let keyFingerprint, n.fingerprint != keyFingerprint {
            return (
                DoctorFinding(
                    check: "node", verdict: .failed,
                    detail:
                        "the running node uses the mesh key with fingerprint \(n.fingerprint), but \(c.keyFile) now holds \(keyFingerprint)",
                    fix: "restart the node to use the key file: `systemctl restart fleetmesh@\(c.name)`"), status
            )
        }
        let inSession = status.peers.filter { $0.state == "established" || $0.state == "suspect" }.count
        return (
            DoctorFinding(
                check: "node", verdict: .ok,
                detail:
                    "running for \(n.uptimeMs / 1000) s on UDP \(n.port), \(inSession) peers in session, Avahi: \(n.avahi)"
            ),
            status
        )
    }
}

extension String {
    /// Zero-padded on the left to `width`.
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
