import ControlProtocol
import Foundation
import Node

extension Doctor {
    /// An interface as getifaddrs(3) shows it.
    struct Interface {
        var name: String
        var flags: UInt32
        var ipv4: [String] = []
        var ipv6: [String] = []
        var up: Bool { flags & UInt32(IFF_UP) != 0 && flags & UInt32(IFF_RUNNING) != 0 }
        var multicast: Bool { flags & UInt32(IFF_MULTICAST) != 0 }
        var loopback: Bool { flags & UInt32(IFF_LOOPBACK) != 0 }
    }

    static func interfaces() -> [Interface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String: Interface] = [:]
        var order: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let name = String(cString: entry.pointee.ifa_name)
            if found[name] == nil {
                found[name] = Interface(name: name, flags: entry.pointee.ifa_flags)
                order.append(name)
            }
            guard let address = entry.pointee.ifa_addr else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
                continue
            }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if family == AF_INET { found[name]?.ipv4.append(text) } else { found[name]?.ipv6.append(text) }
        }
        return order.compactMap { found[$0] }
    }

    /// An interface the mesh can use: up, multicast-capable (mDNS and the group channel are link-local multicast),
    /// with an address (the group channel needs IPv6).
    func checkInterfaces(_ c: NodeConfiguration) -> DoctorFinding {
        let all = Self.interfaces().filter { !$0.loopback }
        let wanted = c.groupInterfaces.isEmpty ? all : all.filter { c.groupInterfaces.contains($0.name) }
        let missing = c.groupInterfaces.filter { name in !all.contains { $0.name == name } }
        if !missing.isEmpty {
            return DoctorFinding(
                check: "interfaces", verdict: .failed,
                detail:
                    "[network] group_interfaces names \(missing.joined(separator: ", ")), which this machine does not have (it has \(all.map(\.name).joined(separator: ", ")))",
                fix: "fix group_interfaces in \(configPath) (`ip link` lists the interfaces)")
        }
        var usable: [String] = []
        var faults: [(String, String)] = []
        for i in wanted {
            let addresses = i.ipv4 + i.ipv6
            if !i.up {
                faults.append(("\(i.name) is down", "ip link set \(i.name) up"))
            } else if !i.multicast {
                faults.append(
                    (
                        "\(i.name) has multicast off: mDNS and the group channel cannot pass",
                        "ip link set \(i.name) multicast on"
                    ))
            } else if addresses.isEmpty {
                faults.append(
                    (
                        "\(i.name) is up but has no address",
                        "give \(i.name) an address (DHCP or a static one); IPv6 link-local comes by itself unless disabled"
                    ))
            } else if c.usesGroup && i.ipv6.isEmpty {
                faults.append(
                    (
                        "\(i.name) has no IPv6 address: the group channel (ff02::464d) needs one",
                        "enable IPv6 on \(i.name) (sysctl net.ipv6.conf.\(i.name).disable_ipv6=0)"
                    ))
            } else {
                usable.append("\(i.name) (\(addresses.prefix(2).joined(separator: ", ")))")
            }
        }
        if usable.isEmpty {
            let detail =
                faults.isEmpty ? "no network interface other than loopback" : faults.map(\.0).joined(separator: "; ")
            return DoctorFinding(
                check: "interfaces", verdict: .failed, detail: detail,
                fix: faults.isEmpty
                    ? "connect the machine to the mission's network" : faults.map(\.1).joined(separator: "; "))
        }
        if !faults.isEmpty {
            return DoctorFinding(
                check: "interfaces", verdict: .warning,
                detail: "usable: \(usable.joined(separator: ", ")); but \(faults.map(\.0).joined(separator: "; "))",
                fix: faults.map(\.1).joined(separator: "; "))
        }
        return DoctorFinding(
            check: "interfaces", verdict: .ok, detail: "multicast and an address on \(usable.joined(separator: ", "))")
    }

    /// iptables and ip6tables: whether new UDP flows to the mesh port and to mDNS (5353) get in and out.
    func checkFirewall(port: Int) -> DoctorFinding {
        var checked: [String] = []
        var blocked: [(String, String)] = []
        var doubtful: [String] = []
        for (tool, family) in [("iptables-save", "IPv4"), ("ip6tables-save", "IPv6")] {
            guard let text = Self.output(of: tool, ["-t", "filter"]) else { continue }
            checked.append(tool)
            let rules = FirewallRules(save: text)
            for (what, p) in [("the mesh port UDP \(port)", port), ("mDNS UDP 5353", 5353)] where p > 0 {
                for chain in ["INPUT", "OUTPUT"] {
                    let way = chain == "INPUT" ? "in" : "out"
                    switch rules.udp(toPort: p, chain: chain) {
                    case .accepted: break
                    case .dropped(let by):
                        blocked.append(
                            (
                                "\(family) \(what) \(way): dropped by `\(by)`",
                                Self.firewallFix(by, tool: tool, chain: chain, port: p)
                            ))
                    case .mayBeDropped(let by):
                        doubtful.append("\(family) \(what) \(way) may be dropped by `\(by)`")
                    }
                }
            }
        }
        if checked.isEmpty {
            return DoctorFinding(
                check: "firewall", verdict: .skipped,
                detail:
                    "iptables-save is not installed here: no iptables rules to read (nftables rules of its own are not examined)"
            )
        }
        if !blocked.isEmpty {
            return DoctorFinding(
                check: "firewall", verdict: .failed, detail: blocked.map(\.0).joined(separator: "; "),
                fix: blocked.map(\.1).joined(separator: "; "))
        }
        if !doubtful.isEmpty {
            return DoctorFinding(
                check: "firewall", verdict: .warning, detail: doubtful.joined(separator: "; "),
                fix:
                    "make sure those rules do not match the mission's network (`\(checked.joined(separator: "`, `")) -t filter` shows them)"
            )
        }
        return DoctorFinding(
            check: "firewall", verdict: .ok,
            detail: "UDP \(port) and 5353 pass in and out (\(checked.joined(separator: ", ")))")
    }

    static func firewallFix(_ rule: String, tool: String, chain: String, port: Int) -> String {
        let command = tool == "ip6tables-save" ? "ip6tables" : "iptables"
        if rule.hasPrefix("-A ") {
            return
                "remove it (`\(command) -D \(rule.dropFirst(3))`) or allow first: `\(command) -I \(chain) -p udp --dport \(port) -j ACCEPT`"
        }
        return "allow it: `\(command) -I \(chain) -p udp --dport \(port) -j ACCEPT`"
    }

    /// The wall clock: handshakes carry a timestamp that must grow from one to the next, and the flight log and
    /// events are stamped with it.
    /// The mesh socket's receive buffer: the system's limit on it (`net.core.rmem_max`), and the datagrams the running
    /// node lost unread because it was full.
    func checkReceiveBuffer(status: NodeStatus?) -> DoctorFinding {
        let limit = (try? String(contentsOfFile: "/proc/sys/net/core/rmem_max", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return Self.receiveBufferFinding(rmemMax: limit, traffic: status?.node.traffic)
    }

    /// The receive buffer's verdict for a `net.core.rmem_max` (nil: unreadable) and the running node's traffic (nil: no
    /// node, or one that does not report it).
    static func receiveBufferFinding(rmemMax: Int?, traffic: NodeStatus.Traffic?) -> DoctorFinding {
        let wanted = UDPTransport.requestedReceiveBuffer
        let persist =
            "`sysctl -w net.core.rmem_max=\(UDPTransport.recommendedReceiveBufferLimit)`, kept across boots by /usr/lib/sysctl.d/60-fleetmesh.conf (the package installs it; without the package, put the line `net.core.rmem_max = \(UDPTransport.recommendedReceiveBufferLimit)` in /etc/sysctl.d/60-fleetmesh.conf); then restart the node"
        guard let rmemMax else {
            return DoctorFinding(
                check: "receive buffer", verdict: .warning, detail: "cannot read /proc/sys/net/core/rmem_max",
                fix: "check that /proc is mounted")
        }
        let lost = (traffic?.droppedByKernel ?? 0) + (traffic?.droppedByQueue ?? 0)
        let granted = traffic?.receiveBuffer.map { ", the node's socket has \($0 / 1024) KiB" } ?? ""
        if rmemMax < wanted {
            return DoctorFinding(
                check: "receive buffer", verdict: .warning,
                detail:
                    "net.core.rmem_max is \(rmemMax) bytes: the mesh socket asks for \(wanted) and gets \(2 * rmemMax / 1024) KiB, room for fewer datagrams while the node is busy\(granted)\(lost > 0 ? "; the node lost \(lost) datagrams unread so far" : "")",
                fix: persist)
        }
        if lost > 0 {
            return DoctorFinding(
                check: "receive buffer", verdict: .warning,
                detail:
                    "the node lost \(lost) datagrams unread (\(traffic?.droppedByKernel ?? 0) dropped by the kernel, its receive buffer full; \(traffic?.droppedByQueue ?? 0) by its own queue)\(granted): it was short of CPU at times",
                fix:
                    "look for what else uses the CPU (`top`), and at the node's log for \"were never read\"; a node short of CPU allows its peers more silence, so it detects losses later"
            )
        }
        return DoctorFinding(
            check: "receive buffer", verdict: .ok,
            detail:
                "net.core.rmem_max is \(rmemMax) bytes\(granted)\(traffic?.droppedByKernel != nil ? "; no datagram lost unread" : "")"
        )
    }

    func checkClock() -> DoctorFinding {
        Self.clockFinding(
            now: Date(),
            synchronised: Self.output(of: "timedatectl", ["show", "-p", "NTPSynchronized", "--value"])?
                .trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The clock's verdict for a wall-clock reading and timedatectl's NTPSynchronized answer (nil: unknown).
    static func clockFinding(now: Date, synchronised: String?) -> DoctorFinding {
        let formatter = ISO8601DateFormatter()
        let text = formatter.string(from: now)
        // This build's release year: a clock before it has not been set (a board without a battery starts in 1970
        // or at its image's date).
        let earliest = formatter.date(from: "2026-01-01T00:00:00Z")!
        let latest = formatter.date(from: "2100-01-01T00:00:00Z")!
        if now < earliest || now > latest {
            return DoctorFinding(
                check: "clock", verdict: .failed,
                detail:
                    "the clock says \(text): not set (a companion computer without a clock battery starts in the past)",
                fix:
                    "set the time (`timedatectl set-ntp true` with a time server on the network, or `date -s` from a station's clock) and restart the node"
            )
        }
        if synchronised == "no" {
            return DoctorFinding(
                check: "clock", verdict: .warning, detail: "the clock says \(text) but is not synchronised (NTP)",
                fix: "`timedatectl set-ntp true`, with a time server the mission's network reaches")
        }
        return DoctorFinding(check: "clock", verdict: .ok, detail: "the clock says \(text)")
    }

    /// The mesh port: free, or held by this very node.
    func checkPort(_ c: NodeConfiguration, running: Bool) -> DoctorFinding {
        if c.port == 0 {
            return DoctorFinding(
                check: "port", verdict: .ok, detail: "port 0: the node takes any free port and advertises it")
        }
        if running {
            return DoctorFinding(check: "port", verdict: .ok, detail: "UDP \(c.port) is held by this node")
        }
        if let holder = PortHolder.udp(port: c.port) {
            return DoctorFinding(
                check: "port", verdict: .failed, detail: "UDP \(c.port) is taken by \(holder)",
                fix: "stop that program, or set another [network] port in \(configPath)")
        }
        return DoctorFinding(check: "port", verdict: .ok, detail: "UDP \(c.port) is free")
    }

    /// Runs a tool and returns its standard output, or nil when it is not installed or fails.
    static func output(of tool: String, _ arguments: [String]) -> String? {
        let paths = ["/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"].map { $0 + tool }
        guard let path = paths.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
