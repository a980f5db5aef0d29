import Foundation
import Node

// For the benchmarks (fleetmesh-bench "lab" group).
//
// Why not `Lab.with`: `shell` creates its pipe without O_CLOEXEC, so every process it starts inherits both pipe
// ends beyond stdout/stderr. `scripts/lab up` starts `dbus-daemon --fork`, which keeps those descriptors, so the
// pipe never reaches end-of-file and `Lab.with` never returns. The helpers here mark every descriptor they create
// close-on-exec (the child still gets stdout/stderr: dup2 clears the flag on the copy).

/// Runs a command to completion and returns its exit status and combined output; no descriptor leaks into
/// daemons the command leaves behind.
@discardableResult
public func shellClosingDescriptors(_ arguments: [String]) throws -> (status: Int32, output: String) {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw LabError("pipe: \(String(cString: strerror(errno)))") }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    let child: ChildProcess
    do {
        child = try ChildProcess(arguments, outputFD: fds[1])
    } catch {
        close(fds[0]); close(fds[1])
        throw error
    }
    close(fds[1])
    var output = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = read(fds[0], &buffer, buffer.count)
        if n > 0 { output += buffer[0..<n] } else if n == 0 || errno != EINTR { break }
    }
    close(fds[0])
    return (child.wait(), String(decoding: output, as: UTF8.self))
}

/// A lab of namespaced hosts for the benchmarks: the same `scripts/lab` and node configuration as `Lab`, built
/// with `shellClosingDescriptors`. Torn down when the body of `with` ends.
public final class BenchLab: @unchecked Sendable {
    public let name: String
    public let hosts: Int
    public let directory: URL
    public let keyPath: String
    public private(set) var nodes: [BenchNode] = []

    private init(hosts: Int) throws {
        name = "b\(getpid() % 10000)"
        self.hosts = hosts
        directory = URL(fileURLWithPath: "/tmp/fleetmesh-bench-\(name)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        keyPath = directory.appendingPathComponent("mesh.key").path
        let keygen = try shellClosingDescriptors([try fleetmeshBinary(), "keygen", keyPath])
        guard keygen.status == 0 else { throw LabError("keygen failed: \(keygen.output)") }
        let up = try shellClosingDescriptors(["bash", labScript, "--name", name, "up", String(hosts)])
        guard up.status == 0 else { throw LabError("the lab could not be built:\n\(up.output)") }
    }

    public static func with<T>(hosts: Int, _ body: (BenchLab) async throws -> T) async throws -> T {
        let lab = try BenchLab(hosts: hosts)
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
    public func lab(_ args: String...) throws -> String {
        let r = try shellClosingDescriptors(["bash", labScript, "--name", name] + args)
        guard r.status == 0 else { throw LabError("lab \(args.joined(separator: " ")) failed: \(r.output)") }
        return r.output
    }

    /// The argument list that runs `command` on `host` (for `ChildProcess`).
    public func onHost(_ host: Int, _ command: [String]) -> [String] {
        ["bash", labScript, "--name", name, "exec", String(host)] + command
    }

    /// Writes a config (as `Lab.startNode` does, log level info) and starts `fleetmesh run` on `host`.
    @discardableResult
    public func startNode(host: Int, name: String, role: String = "drone") throws -> BenchNode {
        let config = directory.appendingPathComponent("\(name).toml").path
        let text = """
            [node]
            name = "\(name)"
            role = "\(role)"
            key_file = "\(keyPath)"
            state_dir = "\(directory.path)/state-\(name)"
            control_socket = "\(directory.path)/\(name).sock"
            [network]
            port = 47800
            [log]
            level = "info"
            """
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let node = try BenchNode(lab: self, host: host, name: name, config: config)
        nodes.append(node)
        return node
    }

    public func teardown() {
        for node in nodes { node.kill() }
        _ = try? shellClosingDescriptors(["bash", labScript, "--name", name, "down"])
        try? FileManager.default.removeItem(at: directory)
    }

    public func dumpLogs() {
        for node in nodes.suffix(4) {
            let log = (try? String(contentsOfFile: node.logPath, encoding: .utf8)) ?? "(no log)"
            print("---- log of \(node.name) (host \(node.host)) ----\n\(log.suffix(4000))")
        }
    }
}

/// A `fleetmesh run` process on a bench lab host.
public final class BenchNode: @unchecked Sendable {
    public let name: String
    public let host: Int
    public let logPath: String
    public let socketPath: String
    public let process: ChildProcess

    init(lab: BenchLab, host: Int, name: String, config: String) throws {
        self.name = name
        self.host = host
        logPath = lab.directory.appendingPathComponent("\(name).log").path
        socketPath = lab.directory.appendingPathComponent("\(name).sock").path
        let fd = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LabError("cannot create \(logPath)") }
        defer { close(fd) }
        process = try ChildProcess(lab.onHost(host, [try fleetmeshBinary(), "run", "--config", config]), outputFD: fd)
    }

    /// The node's status over its control socket.
    public func status() throws -> NodeStatus {
        let r = try ControlClient.request(ControlRequest(command: "status"), socket: socketPath, timeout: .seconds(2))
        guard let s = r.status else { throw LabError(r.error ?? "no status") }
        return s
    }

    /// The state of the peer called `name`, or nil when the status cannot be read or lists no such peer.
    public func peerState(_ name: String) -> String? {
        (try? status())?.peers.first { $0.name == name }?.state
    }

    /// Kills the node without a goodbye and reaps it.
    public func kill() {
        process.signal(SIGKILL)
        process.wait()
    }

    /// Sends SIGTERM and waits (deadline) for a clean exit; returns the exit status.
    public func stop(timeout: Duration = .seconds(5)) async throws -> Int32 {
        process.signal(SIGTERM)
        try await waitUntil("\(name) exits after SIGTERM", timeout: timeout) { !process.isRunning }
        return process.wait()
    }
}
