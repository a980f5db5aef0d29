import ArgumentParser
import ControlProtocol
import Foundation
import Node

/// Selects a running node on this machine.
struct NodeOption: ParsableArguments {
    @Option(help: "The node to ask: its name or its control socket path (default: the only node running here).")
    var node: String?

    func fetchStatus() throws -> NodeStatus {
        do {
            let path = try ControlClient.socketPath(node: node)
            let response = try ControlClient.request(ControlRequest.status, socket: path)
            if let error = response.error { throw failure("error: \(error)", code: 1) }
            guard let status = response.status else { throw failure("error: empty answer", code: 1) }
            return status
        } catch let error as ControlClientError {
            throw failure("error: \(error)", code: 69)
        }
    }
}

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show this node and every peer.")

    @OptionGroup var target: NodeOption
    @Flag(help: "Print JSON (a stable format for scripts).")
    var json = false

    func run() throws {
        let status = try target.fetchStatus()
        if json { return try printJSON(status) }
        let n = status.node
        print(
            "node      \(n.name)\(n.publishedName.map { $0 != n.name ? " (published as '\($0)')" : "" } ?? "")  \(n.role)\(n.uavNumber.map { "  UAV \($0)" } ?? "")"
        )
        print("id        \(n.id)  incarnation \(n.incarnation)")
        print("listening UDP \(n.port)   mesh \(n.fingerprint)   avahi: \(n.avahi)   up \(formatMs(n.uptimeMs))")
        if let gc = n.groundControl { print("ground control: \(gc)") }
        if let t = n.traffic {
            print(
                "traffic   in \(formatRate(t.bytesInPerSecond)) (\(Int(t.datagramsInPerSecond.rounded())) datagrams/s)   out \(formatRate(t.bytesOutPerSecond)) (\(Int(t.datagramsOutPerSecond.rounded())) datagrams/s)   (last 5 s, UDP payload)"
            )
            if let kernel = t.droppedByKernel, let queue = t.droppedByQueue {
                let buffer = t.receiveBuffer.map { "\($0 / 1024) KiB receive buffer" } ?? "receive buffer"
                let lost = kernel + queue
                print(
                    lost == 0
                        ? "          \(buffer), no datagram lost unread"
                        : "          \(buffer): \(lost) datagrams LOST UNREAD since start (\(kernel) dropped by the kernel, the buffer full; \(queue) by the node's queue): the node was short of CPU"
                )
            }
            if let pace = t.publicationPace, pace != "full" {
                print(
                    "          publication pace \(pace): this node is behind (short of CPU) and publishes less often"
                )
            }
        }
        if let log = status.flightLog {
            let state = log.recording ? "recording" : "NOT RECORDING: \(log.problem ?? "not open yet")"
            print(
                "flight log \(log.path): \(state), \(log.written) records written, \(log.dropped) dropped, \(log.bytes / 1024) KiB"
            )
            if let s = log.shipping {
                let state = s.problem.map { "NOT SHIPPING: \($0)" } ?? (s.connected ? "shipping" : "connecting")
                let lag = s.lagMs.map { ", lag \($0) ms" } ?? ""
                print("  to postgres \(s.target): \(state), \(s.shipped) rows shipped, \(s.backlog) waiting\(lag)")
            }
        }
        if let a = status.autopilot {
            let who = a.systemID.map { "\(a.autopilot ?? "autopilot") system \($0)" } ?? "no autopilot heard yet"
            let state = a.silent ? "SILENT" : a.connected ? "connected" : "waiting"
            let detail =
                a.connected
                ? "   mode \(a.mode ?? "?")\(a.armed == true ? ", armed" : "")   link \(a.linkQuality) %" : ""
            print("autopilot \(who) on \(a.link)\(a.remote.map { " (\($0))" } ?? ""): \(state)\(detail)")
        }
        print("")
        print(PeerTable.render(status.peers))
        if let unverified = status.unverified, !unverified.isEmpty {
            print("")
            print(PeerTable.renderUnverified(unverified))
        }
    }
}

struct PeersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "peers", abstract: "List the node's peers.")

    @OptionGroup var target: NodeOption

    func run() throws {
        print(PeerTable.render(try target.fetchStatus().peers))
    }
}

enum PeerTable {
    static func render(_ peers: [NodeStatus.Peer]) -> String {
        guard !peers.isEmpty else { return "no peers yet" }
        let header = ["NAME", "ROLE", "UAV", "ID", "ADDRESS", "STATE", "HOPS", "LAST HEARD", "RTT"]
        let rows = peers.map { p in
            [
                p.name ?? "?", p.role ?? "?", p.uavNumber.map(String.init) ?? "-", String(p.id.prefix(8)),
                p.address ?? "-",
                p.state, String(p.hops), p.lastHeardMsAgo.map { formatMs($0) + " ago" } ?? "never",
                p.rttMs.map { String(format: "%.1f ms", $0) } ?? "-",
            ]
        }
        return renderTable(header, rows)
    }

    /// Adverts no handshake has proven: never shown as peers, never with a UAV number.
    static func renderUnverified(_ adverts: [NodeStatus.UnverifiedAdvert]) -> String {
        let header = ["CLAIMED NAME", "CLAIMED ID", "ADDRESS", "STATE", "SEEN FOR"]
        let rows = adverts.map { a in
            [
                a.claimedName.map { "\"\($0)\"" } ?? "(name of an authenticated peer)", String(a.claimedID.prefix(8)),
                a.address ?? "-", a.state, formatMs(a.seenForMs),
            ]
        }
        return "UNVERIFIED ADVERTS (no handshake has proven who they are; not peers):\n" + renderTable(header, rows)
    }
}

func formatMs(_ ms: Int) -> String {
    ms < 1000
        ? "\(ms) ms"
        : ms < 60_000 ? String(format: "%.1f s", Double(ms) / 1000) : "\(ms / 60_000) min \(ms % 60_000 / 1000) s"
}

/// Bytes per second as bits: "12.3 kbit/s".
func formatRate(_ bytesPerSecond: Double) -> String {
    let bits = bytesPerSecond * 8
    if bits >= 1e6 { return String(format: "%.2f Mbit/s", bits / 1e6) }
    return String(format: "%.1f kbit/s", bits / 1e3)
}
