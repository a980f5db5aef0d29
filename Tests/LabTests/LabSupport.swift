import Foundation
import Node
import Testing

/// The repository root, found from this file's path.
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `fleetmesh` binary built beside the test bundle (or `FLEETMESH_BIN`).
func fleetmeshBinary() throws -> String {
    if let path = ProcessInfo.processInfo.environment["FLEETMESH_BIN"] { return path }
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var dir = exe.deletingLastPathComponent()
    // The bundle may sit inside an .xctest directory.
    while dir.path != "/" {
        let candidate = dir.appendingPathComponent("fleetmesh").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    throw LabError("the fleetmesh binary was not built; run `swift build` (or `make test`) first")
}

struct LabError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Runs a command to completion and returns its exit status and combined output.
@discardableResult
func shell(_ args: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = args
    if let environment { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Waits until `condition` holds, polling every `poll`; fails with `what` after `timeout`.
@discardableResult
func waitUntil(_ what: String, timeout: Duration, poll: Duration = .milliseconds(20),
               _ condition: () throws -> Bool) async throws -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    while true {
        if (try? condition()) == true { return clock.now - start }
        if clock.now - start > timeout { throw LabError("timed out after \(timeout) waiting until \(what)") }
        try await Task.sleep(for: poll)
    }
}

/// A lab of namespaced hosts (scripts/lab), torn down when the body ends.
final class Lab: @unchecked Sendable {
    let name: String
    let hosts: Int
    let directory: URL
    let keyPath: String
    private(set) var nodes: [NodeProcess] = []
    private static let counter = LockedCounter()

    private init(hosts: Int) throws {
        let n = Lab.counter.next()
        name = "t\(getpid() % 1000)x\(n)"
        self.hosts = hosts
        directory = URL(fileURLWithPath: "/tmp/fleetmesh-test-\(name)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        keyPath = directory.appendingPathComponent("mesh.key").path
        let keygen = try shell([try fleetmeshBinary(), "keygen", keyPath])
        guard keygen.status == 0 else { throw LabError("keygen failed: \(keygen.output)") }
        let up = try shell(["bash", repositoryRoot.appendingPathComponent("scripts/lab").path, "--name", name, "up", String(hosts)])
        guard up.status == 0 else {
            throw LabError("the lab could not be built (is this root with iproute2, iptables, dbus and avahi-daemon installed? run `make setup`):\n\(up.output)")
        }
    }

    /// Builds a lab of `hosts` hosts, runs `body`, then stops every node and tears the lab down.
    static func with<T>(hosts: Int, _ body: (Lab) async throws -> T) async throws -> T {
        let lab = try Lab(hosts: hosts)
        do {
            let result = try await body(lab)
            lab.teardown()
            return result
        } catch {
            lab.dumpLogs()
            lab.teardown()
            throw error
        }
    }

    /// Runs a `scripts/lab` subcommand against this lab.
    @discardableResult
    func lab(_ args: String...) throws -> String {
        let r = try shell(["bash", repositoryRoot.appendingPathComponent("scripts/lab").path, "--name", name] + args)
        guard r.status == 0 else { throw LabError("lab \(args.joined(separator: " ")) failed: \(r.output)") }
        return r.output
    }

    func address(_ host: Int) throws -> String {
        try lab("addr", String(host)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes a config and starts `fleetmesh run` on `host`.
    @discardableResult
    func startNode(host: Int, name: String, role: String = "drone", key: String? = nil, extra: String = "",
                   network: String = "") throws -> NodeProcess {
        let config = directory.appendingPathComponent("\(name).toml").path
        let text = """
            [node]
            name = "\(name)"
            role = "\(role)"
            key_file = "\(key ?? keyPath)"
            state_dir = "\(directory.path)/state-\(name)"
            control_socket = "\(directory.path)/\(name).sock"
            [network]
            port = 47800
            \(network)
            [log]
            level = "debug"
            \(extra)
            """
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let node = try NodeProcess(lab: self, host: host, name: name, config: config)
        nodes.append(node)
        return node
    }

    func teardown() {
        for node in nodes { node.kill() }
        _ = try? shell(["bash", repositoryRoot.appendingPathComponent("scripts/lab").path, "--name", name, "down"])
        try? FileManager.default.removeItem(at: directory)
    }

    func dumpLogs() {
        for node in nodes {
            let log = (try? String(contentsOfFile: node.logPath, encoding: .utf8)) ?? "(no log)"
            print("---- log of \(node.name) (host \(node.host)) ----\n\(log.suffix(6000))")
        }
    }
}

final class LockedCounter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}

/// A `fleetmesh run` process on a lab host.
final class NodeProcess: @unchecked Sendable {
    let name: String
    let host: Int
    let config: String
    let logPath: String
    let socketPath: String
    let process = Process()

    init(lab: Lab, host: Int, name: String, config: String) throws {
        self.name = name
        self.host = host
        self.config = config
        logPath = lab.directory.appendingPathComponent("\(name).log").path
        socketPath = lab.directory.appendingPathComponent("\(name).sock").path
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", repositoryRoot.appendingPathComponent("scripts/lab").path, "--name", lab.name,
                             "exec", String(host), try fleetmeshBinary(), "run", "--config", config]
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    /// The node's status over its control socket.
    func status() throws -> NodeStatus {
        let r = try ControlClient.request(ControlRequest(command: "status"), socket: socketPath, timeout: .seconds(2))
        guard let s = r.status else { throw LabError(r.error ?? "no status") }
        return s
    }

    func peerState(_ name: String) -> String? {
        (try? status())?.peers.first { $0.name == name }?.state
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func signal(_ sig: Int32) { if process.isRunning { Foundation.kill(process.processIdentifier, sig) } }

    func kill() {
        signal(SIGKILL)
        process.waitUntilExit()
    }

    /// Sends SIGTERM and waits (deadline) for a clean exit; returns the exit status.
    func stop(timeout: Duration = .seconds(5)) async throws -> Int32 {
        signal(SIGTERM)
        try await waitUntil("\(name) exits after SIGTERM", timeout: timeout) { !process.isRunning }
        return process.terminationStatus
    }
}
