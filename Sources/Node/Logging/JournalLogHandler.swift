import Foundation
import Logging

/// The node's log in systemd's journal as structured entries, by the journal's native protocol
/// (systemd.journal-fields(7)). Under a unit whose standard error is the journal (`JOURNAL_STREAM` names it), each
/// line becomes one entry with MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, CODE_FILE/LINE/FUNC, FLEETMESH_NODE,
/// FLEETMESH_ROLE, FLEETMESH_LOGGER, FLEETMESH_SOURCE and every metadata key as FLEETMESH_<KEY> (an event's kind, its
/// peer and UAV number): `journalctl -u fleetmesh@drone-1 FLEETMESH_EVENT=peer` finds them. A line the journal's
/// socket does not take goes to standard error as `NodeLogHandler` writes it.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    let label: String
    let fixed: [(String, String)]
    let socket: JournalSocket

    /// Where journald listens for native entries.
    public static let socketPath = "/run/systemd/journal/socket"

    /// Whether standard error is the journal's stream: `JOURNAL_STREAM` is "device:inode" of the stream systemd
    /// connected, and fd 2 is still that stream (not redirected by a wrapper).
    public static func standardErrorIsJournal(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return stream == "\(info.st_dev):\(info.st_ino)"
    }

    public init(label: String, level: Logger.Level, node: String, role: String, socket: JournalSocket) {
        self.label = label
        self.logLevel = level
        self.socket = socket
        fixed = [("SYSLOG_IDENTIFIER", "fleetmesh-\(node)"), ("FLEETMESH_NODE", node), ("FLEETMESH_ROLE", role)]
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        log(
            level: event.level, message: event.message, metadata: event.metadata, source: event.source,
            file: event.file, function: event.function, line: event.line)
    }

    public func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
        file: String, function: String, line: UInt
    ) {
        let all = explicit.map { metadata.merging($0) { _, new in new } } ?? metadata
        var fields =
            [("MESSAGE", message.description), ("PRIORITY", String(Self.priority(level)))] + fixed + [
                ("FLEETMESH_LOGGER", label), ("FLEETMESH_SOURCE", source), ("CODE_FILE", file),
                ("CODE_LINE", String(line)), ("CODE_FUNC", function),
            ]
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            fields.append(("FLEETMESH_" + Self.fieldName(key), "\(value)"))
        }
        if !socket.send(Self.encode(fields)) {
            NodeLogHandler(label: label, level: logLevel).log(
                level: level, message: message, metadata: all, source: source, file: file, function: function,
                line: line)
        }
    }

    /// syslog's priorities: trace and debug 7, info 6, notice 5, warning 4, error 3, critical 2.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A metadata key as a journal field name: upper case letters, digits and underscores, starting with a letter.
    static func fieldName(_ key: String) -> String {
        let name = String(key.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(50))
        return name.first?.isLetter == true ? name : "K" + name
    }

    /// The entry as one datagram: `KEY=value\n` per field, or for a value with a newline `KEY\n`, its length as 64
    /// bits little-endian, the value and `\n`.
    static func encode(_ fields: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (key, value) in fields {
            out += Array(key.utf8)
            let bytes = Array(value.utf8)
            if bytes.contains(UInt8(ascii: "\n")) {
                out.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { out += $0 }
            } else {
                out.append(UInt8(ascii: "="))
            }
            out += bytes
            out.append(UInt8(ascii: "\n"))
        }
        return out
    }
}

/// The process's datagram socket to journald.
public final class JournalSocket: Sendable {
    let fd: Int32
    let address: UnixSocketAddress

    /// A socket for `path`; nil if none can be made.
    public init?(path: String = JournalLogHandler.socketPath) {
        guard let address = UnixSocketAddress(path) else { return nil }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.address = address
    }

    deinit { close(fd) }

    /// Sends one entry; false when journald did not take it (not there, or the entry too large for a datagram).
    func send(_ bytes: [UInt8]) -> Bool {
        let sent = bytes.withUnsafeBytes { raw in
            address.withSockaddr { sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), $0, $1) }
        }
        return sent == bytes.count
    }
}
