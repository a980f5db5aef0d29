import Foundation

/// systemd's notification socket (`$NOTIFY_SOCKET`, sd_notify(3)'s protocol): one datagram of `KEY=VALUE` lines per
/// message to a Unix datagram socket, a path or, when the name starts with `@`, an abstract one. Readiness
/// (`READY=1`), a status line (`STATUS=…`), watchdog pings (`WATCHDOG=1`) and `STOPPING=1`.
public struct SystemdNotifier: Sendable {
    /// The socket's name as systemd gave it.
    public let socket: String
    /// How often systemd expects a ping (`$WATCHDOG_USEC`), when the watchdog is on for this process.
    public let watchdogTimeout: Duration?

    /// The notifier systemd asked for in `environment`, or nil when the node does not run under systemd with
    /// `Type=notify`. `WATCHDOG_USEC` counts only when `WATCHDOG_PID` is absent or names this process.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()
    ) -> SystemdNotifier? {
        guard let socket = environment["NOTIFY_SOCKET"], !socket.isEmpty else { return nil }
        var watchdog: Duration?
        if let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0,
            environment["WATCHDOG_PID"].map({ Int32($0) == pid }) ?? true
        {
            watchdog = .microseconds(usec)
        }
        return SystemdNotifier(socket: socket, watchdogTimeout: watchdog)
    }

    public init(socket: String, watchdogTimeout: Duration?) {
        self.socket = socket
        self.watchdogTimeout = watchdogTimeout
    }

    /// Sends one message: `fields` as `KEY=VALUE` lines, in order. Throws with the socket and the system's reason.
    public func send(_ fields: [(String, String)]) throws(SystemdNotifyError) {
        let text = fields.map { "\($0.0)=\($0.1.replacingOccurrences(of: "\n", with: " "))" }.joined(separator: "\n")
        let fd = Foundation.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemdNotifyError(socket: socket, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard let address = UnixSocketAddress(socket) else {
            throw SystemdNotifyError(socket: socket, reason: "the socket's name is too long")
        }
        let sent = text.utf8CString.withUnsafeBufferPointer { bytes in
            address.withSockaddr { sendto(fd, bytes.baseAddress, bytes.count - 1, Int32(MSG_NOSIGNAL), $0, $1) }
        }
        guard sent >= 0 else { throw SystemdNotifyError(socket: socket, reason: String(cString: strerror(errno))) }
    }
}

/// A notification systemd's socket did not take.
public struct SystemdNotifyError: Error, CustomStringConvertible {
    public let socket: String
    public let reason: String
    public var description: String { "cannot notify systemd at \(socket): \(reason)" }
}
