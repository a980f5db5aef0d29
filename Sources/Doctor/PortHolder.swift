import Foundation

/// Who holds a UDP port: /proc/net/udp and udp6 give the socket's inode, /proc/PID/fd the process that has it open.
enum PortHolder {
    /// "process 1234 (socat)", "a socket of another user's process", or nil when the port is free.
    static func udp(port: Int) -> String? {
        var inodes: Set<String> = []
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, let local = fields[1].split(separator: ":").last,
                    Int(local, radix: 16) == port
                else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        guard !inodes.isEmpty else { return nil }
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in processes where Int(pid) != nil {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            for fd in fds {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                    target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast()))
                else { continue }
                let command =
                    (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                return "process \(pid) (\(command))"
            }
        }
        return "a socket whose process this user cannot see (run doctor as root to name it)"
    }
}
