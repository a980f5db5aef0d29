import Foundation

/// Talks to a running node's control socket (the `fleetmesh` CLI, the lab kit, scripts in Swift).
public enum ControlClient {
    /// Where nodes put their control sockets unless `[node] control_socket` says otherwise.
    public static let defaultRunDirectory = "/run/fleetmesh"

    /// Sends one request and returns the decoded response.
    public static func request(_ request: ControlRequest, socket path: String, timeout: Duration = .seconds(5)) throws
        -> ControlResponse
    {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ControlClientError(path: path, problem: String(cString: strerror(errno))) }
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            throw ControlClientError(path: path, problem: "socket path too long")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            throw ControlClientError(path: path, problem: "cannot connect (\(reason)); is the node running?")
        }
        var payload = try JSONEncoder().encode(request)
        payload.append(UInt8(ascii: "\n"))
        let written = payload.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == payload.count else { throw ControlClientError(path: path, problem: "write failed") }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 { throw ControlClientError(path: path, problem: "no answer within \(timeout)") }
            if n == 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        do {
            return try JSONDecoder().decode(ControlResponse.self, from: response)
        } catch {
            throw ControlClientError(path: path, problem: "unreadable answer from the node")
        }
    }

    /// Picks the control socket: `node` as a path, or as a node name under the run directory, or the only socket there.
    public static func socketPath(node: String?, runDirectory: String = defaultRunDirectory) throws -> String {
        if let node, node.contains("/") { return node }
        if let node { return "\(runDirectory)/\(node).sock" }
        let sockets = ((try? FileManager.default.contentsOfDirectory(atPath: runDirectory)) ?? [])
            .filter { $0.hasSuffix(".sock") }.sorted()
        switch sockets.count {
        case 1: return "\(runDirectory)/\(sockets[0])"
        case 0:
            throw ControlClientError(
                path: runDirectory,
                problem: "no running node found (no *.sock here); start one with `fleetmesh run --config FILE`")
        default:
            let names = sockets.map { String($0.dropLast(5)) }.joined(separator: ", ")
            throw ControlClientError(
                path: runDirectory, problem: "several nodes run here (\(names)); choose one with --node NAME")
        }
    }
}

/// The control socket could not be used.
public struct ControlClientError: Error, CustomStringConvertible {
    public let path: String
    public let problem: String
    public var description: String { "\(path): \(problem)" }
}
