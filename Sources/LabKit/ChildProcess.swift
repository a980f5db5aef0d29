import Foundation

/// A child process started with `posix_spawn` and reaped with `waitpid`: no run loop, so it is safe to use from
/// async code (Foundation's `Process.waitUntilExit` can stall there).
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `arguments[0]` (looked up in PATH) with stdout and stderr going to `outputFD` (or inherited).
    public init(_ arguments: [String], outputFD: Int32? = nil, environment: [String: String]? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let fd = outputFD {
            posix_spawn_file_actions_adddup2(&actions, fd, 1)
            posix_spawn_file_actions_adddup2(&actions, fd, 2)
        }
        // Nothing else of ours leaks into the child: a daemon it forks must not hold the test runner's pipes open.
        ChildProcess.markDescriptorsCloseOnExec()
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A process group of its own, so a signal reaches the whole tree it starts.
        // Default signal handling and an empty mask: a caller that ignores or blocks SIGINT/SIGTERM (the demo
        // does, to stop its nodes in order) must not pass that on, or its children could not be stopped.
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)

        let env =
            (environment.map { ProcessInfo.processInfo.environment.merging($0) { $1 } }
            ?? ProcessInfo.processInfo.environment)
            .map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let rc = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard rc == 0 else { throw LabError("cannot start \(arguments[0]): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    /// Sets close-on-exec on every descriptor above stderr (what `closefrom` would do in the child).
    static func markDescriptorsCloseOnExec() {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for entry in entries {
            guard let fd = Int32(entry), fd > 2 else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// The exit status once the process has ended (non-blocking check).
    public var status: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid { exitStatus = decode(raw) }
        return exitStatus
    }

    public var isRunning: Bool { status == nil }

    /// Blocks until the process ends; returns its status (128+signal for a signalled process).
    @discardableResult
    public func wait() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
        exitStatus = decode(raw)
        return exitStatus!
    }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    private func decode(_ raw: Int32) -> Int32 {
        let signalled = raw & 0x7f
        return signalled == 0 ? (raw >> 8) & 0xff : 128 + signalled
    }
}

/// Runs a command to completion and returns its exit status and combined stdout and stderr.
@discardableResult
public func shell(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String)
{
    var fds: [Int32] = [0, 0]
    // Close-on-exec (set by ChildProcess): only the dup'ed stdout/stderr reach the child.
    guard pipe(&fds) == 0 else { throw LabError("pipe: \(String(cString: strerror(errno)))") }
    let child: ChildProcess
    do {
        child = try ChildProcess(arguments, outputFD: fds[1], environment: environment)
    } catch {
        close(fds[0])
        close(fds[1])
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

extension ChildProcess {
    /// The first process below `root` (itself included) whose command name is `name` (a program started through
    /// `ip netns exec` runs below it).
    public static func descendant(of root: Int32, named name: String) throws -> Int32 {
        var queue = [root]
        while let p = queue.first {
            queue.removeFirst()
            if let comm = try? String(contentsOfFile: "/proc/\(p)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == String(name.prefix(15))
            {
                return p
            }
            let children = (try? String(contentsOfFile: "/proc/\(p)/task/\(p)/children", encoding: .utf8)) ?? ""
            queue += children.split(separator: " ").compactMap { Int32($0) }
        }
        throw LabError("no process named \(name) below \(root)")
    }
}
