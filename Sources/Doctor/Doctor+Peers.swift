import ControlProtocol
import Discovery
import Node

extension Doctor {
    /// avahi-daemon, as the browse found it.
    func avahiFinding(_ browse: DNSSDBrowse) -> DoctorFinding {
        if browse.daemonAvailable {
            return DoctorFinding(check: "avahi", verdict: .ok, detail: "avahi-daemon answers over D-Bus")
        }
        let reason = browse.unavailableReason ?? "no answer from avahi-daemon within \(browseTime)"
        let noBus = reason.contains("D-Bus system bus")
        return DoctorFinding(
            check: "avahi", verdict: .failed, detail: reason,
            fix: noBus
                ? "start the D-Bus system bus and then avahi-daemon: `systemctl start dbus avahi-daemon`"
                : "start avahi-daemon: `systemctl enable --now avahi-daemon` (package avahi-daemon)")
    }

    /// The peers seen on DNS-SD: other meshes' (a different key), in session, or not in session with the last
    /// handshake problem the node noted for that address.
    func peersFinding(
        _ browse: DNSSDBrowse, configuration c: NodeConfiguration, fingerprint: String?, status: NodeStatus?
    ) -> DoctorFinding {
        guard browse.daemonAvailable else {
            return DoctorFinding(check: "peers", verdict: .skipped, detail: "needs avahi-daemon, which did not answer")
        }
        // One line per node (a node is seen once per interface and address family).
        var nodes: [String: (record: ServiceRecord, ad: MeshAdvertisement?)] = [:]
        for record in browse.records.values where !record.isOwn {
            let ad = try? MeshAdvertisement(txt: record.txt)
            let id = ad?.nodeID.hex ?? record.key.name
            if let status, id == status.node.id { continue }
            if let known = nodes[id], known.record.key.family == .ipv4, record.key.family == .ipv6 { continue }
            nodes[id] = (record, ad)
        }
        if nodes.isEmpty {
            return DoctorFinding(
                check: "peers", verdict: .warning,
                detail: "no other FleetMesh node seen on DNS-SD in \(browseTime.components.seconds) s",
                fix:
                    "check that the other nodes run and share this link (same Wi-Fi or radio network); `avahi-browse -rt _fleetmesh._udp` lists what this machine sees"
            )
        }
        var problems: [String] = []
        var fixes: [String] = []
        var good: [String] = []
        for (id, seen) in nodes.sorted(by: { $0.key < $1.key }) {
            let r = seen.record
            let label = "\"\(seen.ad?.name ?? r.key.name)\" at \(r.address):\(r.port)"
            guard let ad = seen.ad else {
                problems.append("\(label) has an unreadable record")
                continue
            }
            if let fingerprint, ad.fingerprint != fingerprint {
                problems.append(
                    "\(label) belongs to another mesh: key fingerprint \(ad.fingerprint), ours \(fingerprint)")
                fixes.append(
                    "copy the same key file to \(ad.name) and this node (or ignore it if it is another team's mesh)")
                continue
            }
            guard let status else {
                good.append("\(ad.name) (same key)")
                continue
            }
            let peer = status.peers.first { $0.id == id }
            if let peer, peer.state == "established" || peer.state == "suspect" {
                good.append("\(ad.name) (in session)")
                continue
            }
            let state = peer.map { "peer state \($0.state)" } ?? "no session"
            if let p = Self.problem(for: r.address, in: status.node.handshakeProblems ?? []) {
                let when = p.category == "unanswered" ? "" : " \(p.msAgo / 1000) s ago (\(p.count)×)"
                problems.append("\(label): \(state); last handshake problem\(when): \(p.problem)")
                fixes.append(Self.fix(for: p.category, peer: ad.name, port: r.port))
            } else {
                problems.append("\(label): \(state), no handshake problem recorded")
                fixes.append(
                    "run `fleetmesh doctor` on \(ad.name) too: its firewall or its own node may be the one at fault")
            }
        }
        let seen = "\(nodes.count) node\(nodes.count == 1 ? "" : "s") seen on DNS-SD"
        if problems.isEmpty {
            return DoctorFinding(
                check: "peers", verdict: .ok,
                detail:
                    "\(seen): \(good.joined(separator: ", "))\(status == nil ? "; the node is not running to join them" : "")"
            )
        }
        var unique: [String] = []
        for f in fixes where !unique.contains(f) { unique.append(f) }
        return DoctorFinding(
            check: "peers", verdict: .failed,
            detail: "\(seen); " + problems.joined(separator: "; ")
                + (good.isEmpty ? "" : "; fine: \(good.joined(separator: ", "))"),
            fix: unique.isEmpty ? nil : unique.joined(separator: "; "))
    }

    /// The problem noted for `address` (matched by IP: a peer's handshakes come from its mesh port, but a NAT or a
    /// second socket may change the port).
    static func problem(for address: String, in problems: [NodeStatus.HandshakeProblem])
        -> NodeStatus.HandshakeProblem?
    {
        func ip(_ text: String) -> String {
            var t = text
            if t.hasPrefix("[") {
                t = String(t.dropFirst().prefix { $0 != "]" })
            } else if t.filter({ $0 == ":" }).count == 1 {
                t = String(t.prefix { $0 != ":" })
            }
            return String(t.prefix { $0 != "%" }).lowercased()
        }
        let wanted = ip(address)
        return problems.first { ip($0.address) == wanted }
    }

    static func fix(for category: String, peer: String, port: UInt16) -> String {
        switch category {
        case "unanswered":
            "nothing comes back from \(peer): open UDP \(port) in its firewall (and this one's), and check that its node runs"
        case "unsupportedVersion":
            "run the same FleetMesh version on both nodes"
        case "wrongMeshKey", "decryptionFailed":
            "copy the same key file to both nodes and restart them"
        case "replayedInitiation":
            "\(peer)'s clock went back: set both clocks right (NTP), then restart \(peer)"
        case "nodeIDMismatch":
            "two nodes share one state directory or were cloned: give \(peer) its own state_dir and restart it"
        default:
            "see the log of both nodes: `journalctl -u 'fleetmesh@*'`"
        }
    }
}
