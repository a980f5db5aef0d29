import ArgumentParser
import Doctor
import Foundation

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Explain why a node is not in the mesh: each check with a verdict and the fix.",
        discussion: """
            Checks the config, the key file (mode 0600, its fingerprint), the running node, avahi-daemon over D-Bus, \
            the interfaces (up, multicast, an address), the firewall (the mesh port and mDNS in and out), the clock, \
            the port, the FleetMesh nodes seen on DNS-SD that the node has no session with, with the last \
            handshake problem for each, and the receive buffer (net.core.rmem_max, datagrams the node lost unread). \
            Exit status 1 when a check failed, 0 otherwise (warnings included).
            """)

    @Option(
        name: .shortAndLong,
        help: "The node's config file (default: the only /etc/fleetmesh/*.toml, as the package installs them).")
    var config: String?

    @Option(help: "How long to look for other nodes on DNS-SD, in seconds (1–60).")
    var browseSeconds = 3

    @Flag(help: "Print the findings as JSON (a stable format for scripts).")
    var json = false

    func validate() throws {
        guard (1...60).contains(browseSeconds) else {
            throw ValidationError("--browse-seconds must be 1–60, found \(browseSeconds)")
        }
    }

    func run() async throws {
        let path = try config ?? Self.onlyConfig()
        let quiet = json
        let doctor = Doctor(configPath: path, browseTime: .seconds(browseSeconds)) { step in
            if !quiet { FileHandle.standardError.write(Data("… \(step)\n".utf8)) }
        }
        let report = await doctor.run()
        if json {
            try printJSON(report)
        } else {
            print("fleetmesh doctor: \(report.node.map { "node \"\($0)\", " } ?? "")\(path)")
            for finding in report.findings { print(DoctorReport.line(finding)) }
            print(report.summary)
        }
        if report.verdict == .failed { throw ExitCode(1) }
    }

    /// The config when the machine has exactly one under /etc/fleetmesh.
    static func onlyConfig() throws -> String {
        let directory = "/etc/fleetmesh"
        let configs = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".toml") }.sorted()
        switch configs.count {
        case 1: return "\(directory)/\(configs[0])"
        case 0: throw failure("error: no config in \(directory); name one with --config", code: 64)
        default:
            throw failure(
                "error: several configs in \(directory) (\(configs.joined(separator: ", "))); name one with --config",
                code: 64)
        }
    }
}
