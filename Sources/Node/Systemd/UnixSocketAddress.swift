import Foundation

/// A Unix socket's address from its name as systemd writes names: a path, or `@name` for Linux's abstract namespace
/// (the notify socket, the journal's socket, and the tests that play their parts).
/// A value of plain bytes (`sockaddr_un` holds no pointer), so it may cross threads.
public struct UnixSocketAddress: @unchecked Sendable {
    var storage = sockaddr_un()
    /// The address's length: the path with its terminating zero, or the abstract name without one.
    let length: socklen_t

    /// nil when the name does not fit `sun_path` (108 bytes on Linux).
    public init?(_ name: String) {
        let bytes = Array(name.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: storage.sun_path) else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        let abstract = name.hasPrefix("@")
        withUnsafeMutableBytes(of: &storage.sun_path) { path in
            for (i, byte) in bytes.enumerated() { path[i] = byte }
            if abstract { path[0] = 0 }
        }
        length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as a `sockaddr` and its length (for `bind`, `connect`, `sendto`).
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
