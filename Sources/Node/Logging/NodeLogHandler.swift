import Foundation
import Logging

/// The node's log lines on standard error, as swift-log's `StreamLogHandler` writes them but with milliseconds in the
/// time (`2026-11-26T02:17:24.123+0000 info fleetmesh.station: [Node] …`): outages, rekeys and commands happen within
/// a second of each other, and a field log must show their order.
public struct NodeLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    let label: String

    public init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
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
        let fields =
            all.isEmpty
            ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = "\(Self.timestamp()) \(level) \(label):\(fields) [\(source)] \(message)\n"
        // One write per line, so lines from several threads never interleave.
        text.utf8CString.withUnsafeBufferPointer { buffer in
            _ = Foundation.write(STDERR_FILENO, buffer.baseAddress, buffer.count - 1)
        }
    }

    /// Local time with milliseconds and the UTC offset.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
        var zone = [CChar](repeating: 0, count: 8)
        strftime(&zone, zone.count, "%z", &parts)
        let base = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let millis = Int(now.tv_nsec / 1_000_000)
        return base + "." + (millis < 10 ? "00" : millis < 100 ? "0" : "") + String(millis) + String(cString: zone)
    }
}
