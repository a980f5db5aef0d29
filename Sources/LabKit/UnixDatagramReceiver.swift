import Foundation
import Node

/// A Unix datagram socket bound at `name` (a path, or `@name` for an abstract one), as systemd binds
/// `NOTIFY_SOCKET`: the tests play systemd's part with it.
public final class UnixDatagramReceiver: @unchecked Sendable {
    let fd: Int32
    let path: String?

    public init(name: String, timeout: Duration) throws {
        guard let address = UnixSocketAddress(name) else { throw LabError("socket name too long: \(name)") }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        path = name.hasPrefix("@") ? nil : name
        if let path { unlink(path) }
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            throw LabError("cannot bind \(name): \(String(cString: strerror(errno)))")
        }
        var tv = timeval(
            tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram as text; throws when none comes within the timeout.
    public func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n >= 0 else { throw LabError("nothing received: \(String(cString: strerror(errno)))") }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }

    public func close() {
        _ = Foundation.close(fd)
        if let path { unlink(path) }
    }
}
