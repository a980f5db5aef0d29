import ControlProtocol
import Foundation
import Node

/// The repository root, found from this file's path (Sources/LabKit/Lab.swift).
public let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The lab script.
public var labScript: String { repositoryRoot.appendingPathComponent("scripts/lab").path }

/// The `fleetmesh` binary built beside the test bundle (or `FLEETMESH_BIN`).
public func fleetmeshBinary() throws -> String {
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

/// A lab step failed; the text says which and why.
public struct LabError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// Waits until `condition` holds, polling every `poll`; fails with `what` after `timeout`, and at once (before the
/// first poll too) when the task is cancelled.
@discardableResult
public func waitUntil(
    _ what: String, timeout: Duration, poll: Duration = .milliseconds(20),
    _ condition: () throws -> Bool
) async throws -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    while true {
        try Task.checkCancellation()
        if (try? condition()) == true { return clock.now - start }
        if clock.now - start > timeout { throw LabError("timed out after \(timeout) waiting until \(what)") }
        try await Task.sleep(for: poll)
    }
}

/// A lab of namespaced hosts (scripts/lab), torn down when the body ends.
public final class Lab: @unchecked Sendable {
    public let name: String
    public let hosts: Int
    public let directory: URL
    public let keyPath: String
    public private(set) var nodes: [NodeProcess] = []
    /// Other programs started on lab hosts (`start(host:tag:_:)`), killed at teardown.
    public private(set) var programs: [LabProgram] = []
    /// Ports forwarded from this machine's loopback into a host (`forward`).
    public private(set) var forwarders: [ChildProcess] = []
    private static let counter = LockedCounter()

    /// Builds a lab of `hosts` hosts. `name` (1–8 lowercase letters or digits) defaults to one unique to this process.
    public init(hosts: Int, name: String? = nil) throws {
        self.name = name ?? "t\(getpid() % 10000)x\(Lab.counter.next())"  // ≤ 8 characters, as scripts/lab requires
        self.hosts = hosts
        directory = URL(fileURLWithPath: "/tmp/fleetmesh-lab-\(self.name)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        keyPath = directory.appendingPathComponent("mesh.key").path
        let keygen = try shell([try fleetmeshBinary(), "keygen", keyPath])
        guard keygen.status == 0 else { throw LabError("keygen failed: \(keygen.output)") }
        let up = try shell(["bash", labScript, "--name", self.name, "up", String(hosts)])
        guard up.status == 0 else {
            throw LabError(
                "the lab could not be built (is this root with iproute2, iptables, dbus and avahi-daemon installed? run `make setup`):\n\(up.output)"
            )
        }
    }

    /// Builds a lab of `hosts` hosts, runs `body`, then stops every node and tears the lab down.
    public static func with<T>(hosts: Int, _ body: (Lab) async throws -> T) async throws -> T {
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
    public func lab(_ args: String...) throws -> String { try lab(args) }

    /// Runs a `scripts/lab` command (given as a list) on this lab.
    @discardableResult
    public func lab(_ args: [String]) throws -> String {
        let r = try shell(["bash", labScript, "--name", name] + args)
        guard r.status == 0 else { throw LabError("lab \(args.joined(separator: " ")) failed: \(r.output)") }
        return r.output
    }

    /// The argument list that runs `command` on `host` (for `ChildProcess`).
    public func onHost(_ host: Int, _ command: [String]) -> [String] {
        ["bash", labScript, "--name", name, "exec", String(host)] + command
    }

    public func address(_ host: Int) throws -> String {
        try lab("addr", String(host)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes a config and starts `fleetmesh run` on `host`.
    @discardableResult
    public func startNode(
        host: Int, name: String, role: String = "drone", key: String? = nil, extra: String = "",
        network: String = "", port: Int = 47800, logLevel: String = "debug", flightLog: Bool? = nil,
        environment: [String: String] = [:]
    ) throws -> NodeProcess {
        // Stations record their flight log (the dashboard and the demo show it); drones only when a test asks: on two
        // cores shared by a whole lab, every drone writing every other's telemetry is load the timing-bound tests
        // (avoidance, failure detection) were not built for. The product's default is on for every node.
        let recording = flightLog ?? (role == "station")
        // Files are keyed by host and name, so two nodes may share a name (the collision test) on different hosts.
        let tag = "h\(host)-\(name.replacingOccurrences(of: " ", with: "_"))"
        let config = directory.appendingPathComponent("\(tag).toml").path
        let text = """
            [node]
            name = "\(name)"
            role = "\(role)"
            key_file = "\(key ?? keyPath)"
            state_dir = "\(directory.path)/state-\(tag)"
            control_socket = "\(directory.path)/\(tag).sock"
            [network]
            port = \(port)
            \(network)
            [log]
            level = "\(logLevel)"
            flight_log = \(recording)
            \(extra)
            """
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let node = try NodeProcess(
            lab: self, host: host, name: name, tag: tag, config: config, environment: environment)
        nodes.append(node)
        return node
    }

    /// Starts any program on `host` (e.g. the Python target source), its output in `<tag>.log` in the lab folder.
    @discardableResult
    public func start(host: Int, tag: String, _ command: [String]) throws -> LabProgram {
        let program = try LabProgram(lab: self, host: host, tag: tag, command: command)
        programs.append(program)
        return program
    }

    /// Makes TCP `port` on `host`'s loopback reachable at 127.0.0.1:`localPort` on this machine (socat; each
    /// connection enters the host's namespace). Only loopback on both ends: nothing reaches a real interface.
    @discardableResult
    public func forward(localPort: Int, toHost host: Int, port: Int) throws -> ChildProcess {
        let logPath = directory.appendingPathComponent("forward-\(localPort).log").path
        let fd = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LabError("cannot create \(logPath)") }
        defer { close(fd) }
        // socat parses colons and commas in its EXEC address, so the way in is a script of its own.
        let script = directory.appendingPathComponent("forward-\(localPort).sh").path
        try "#!/bin/sh\nexec bash '\(labScript)' --name \(name) exec \(host) socat STDIO TCP:127.0.0.1:\(port)\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let process = try ChildProcess(
            ["socat", "TCP-LISTEN:\(localPort),bind=127.0.0.1,reuseaddr,fork", "EXEC:\(script)"], outputFD: fd)
        forwarders.append(process)
        return process
    }

    public func teardown() {
        for forwarder in forwarders where forwarder.isRunning {
            forwarder.signal(SIGKILL)
            _ = forwarder.wait()
        }
        for program in programs where program.process.isRunning {
            program.process.signal(SIGKILL)
            program.process.wait()
        }
        for node in nodes { node.kill() }
        _ = try? shell(["bash", labScript, "--name", name, "down"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Prints every node's and program's log; of each node's, the last 6,000 characters (`LAB_LOG_TAIL=n`: n).
    public func dumpLogs() {
        for node in nodes {
            let log = (try? String(contentsOfFile: node.logPath, encoding: .utf8)) ?? "(no log)"
            let tail = ProcessInfo.processInfo.environment["LAB_LOG_TAIL"].flatMap(Int.init) ?? 6000
            print("---- log of \(node.name) (host \(node.host)) ----\n\(log.suffix(tail))")
        }
        for program in programs {
            print("---- output of \(program.tag) (host \(program.host)) ----\n\(program.output.suffix(4000))")
        }
    }
}

final class LockedCounter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// A `fleetmesh run` process on a lab host.
public final class NodeProcess: @unchecked Sendable {
    public let name: String
    public let host: Int
    public let config: String
    public let logPath: String
    public let socketPath: String
    public let process: ChildProcess

    init(lab: Lab, host: Int, name: String, tag: String, config: String, environment: [String: String] = [:]) throws {
        self.name = name
        self.host = host
        self.config = config
        logPath = lab.directory.appendingPathComponent("\(tag).log").path
        socketPath = lab.directory.appendingPathComponent("\(tag).sock").path
        let fd = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LabError("cannot create \(logPath)") }
        defer { close(fd) }
        process = try ChildProcess(
            [
                "bash", labScript, "--name", lab.name, "exec", String(host),
            ] + (environment.isEmpty ? [] : ["env"] + environment.sorted { $0.key < $1.key }.map { "\($0)=\($1)" })
                + [try fleetmeshBinary(), "run", "--config", config], outputFD: fd)
    }

    /// The node's status over its control socket.
    public func status() throws -> NodeStatus {
        let r = try ControlClient.request(ControlRequest.status, socket: socketPath, timeout: .seconds(2))
        guard let s = r.status else { throw LabError(r.error ?? "no status") }
        return s
    }

    /// Sends a command from this station to `uav`, again while the station does not know that number yet (a drone's
    /// announcement can reach a test through another node before it reaches the station); gives up after `within`.
    /// Returns the last answers (none if the drone did not answer within `answerMs`).
    @discardableResult
    public func send(
        _ args: [String], toUAV uav: Int, answerMs: Int = 100, within: Duration = .seconds(10)
    ) async throws -> CommandReport? {
        var report: CommandReport?
        _ = try await waitUntil(
            "the station knows UAV \(uav) for \(args.joined(separator: " "))", timeout: within,
            poll: .milliseconds(100)
        ) {
            report = try ControlClient.request(
                ControlRequest.send(.init(uav: uav, args: args, timeoutMs: answerMs)), socket: socketPath,
                timeout: .seconds(5)
            ).command
            return
                !(report?.answers.contains {
                    $0.answer == "rejected" && ($0.reason ?? "").contains("unknown UAV number")
                } ?? false)
        }
        return report
    }

    /// The fleet as this node sees it (`fleetmesh vehicles`).
    public func vehicles() throws -> [VehicleReport] {
        try ControlClient.request(ControlRequest.vehicles, socket: socketPath, timeout: .seconds(2)).vehicles ?? []
    }

    public func peerState(_ name: String) -> String? {
        (try? status())?.peers.first { $0.name == name }?.state
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    public func signal(_ sig: Int32) { process.signal(sig) }

    /// Kills the node without a goodbye (a crash) and reaps it.
    public func kill() {
        process.signal(SIGKILL)
        process.wait()
    }

    /// Sends SIGTERM and waits (deadline) for a clean exit; returns the exit status.
    /// The node's own process id (below the namespace wrapper `process` is).
    public func nodePID() throws -> Int32 { try ChildProcess.descendant(of: process.pid, named: "fleetmesh") }

    public func stop(timeout: Duration = .seconds(5)) async throws -> Int32 {
        process.signal(SIGTERM)
        try await waitUntil("\(name) exits after SIGTERM", timeout: timeout) { !process.isRunning }
        return process.wait()
    }
}

/// A program other than a node running on a lab host.
public final class LabProgram: @unchecked Sendable {
    public let tag: String
    public let host: Int
    public let logPath: String
    public let process: ChildProcess

    init(lab: Lab, host: Int, tag: String, command: [String]) throws {
        self.tag = tag
        self.host = host
        logPath = lab.directory.appendingPathComponent("\(tag).log").path
        let fd = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LabError("cannot create \(logPath)") }
        defer { close(fd) }
        process = try ChildProcess(lab.onHost(host, command), outputFD: fd)
    }

    /// Everything it printed so far.
    public var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
