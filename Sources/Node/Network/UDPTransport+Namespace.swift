import Foundation
import Glibc
import NIOCore
import NIOPosix

extension UDPTransport {
    /// A socket made in another network namespace: its descriptor, bound to `[::]:port`, and that namespace's network
    /// devices (for the group channel's joins).
    struct ForeignSocket {
        var descriptor: CInt
        var devices: [NIONetworkDevice]
    }

    /// Makes the UDP socket inside the network namespace at `path` (such as `/run/netns/NAME`), on a thread of its own
    /// that enters it (only that thread does): the socket stays in that namespace for its life. For the lab's drone
    /// emulator, which gives each of its drones a namespace of its own; a node in the field never uses it.
    static func socket(inNamespace path: String, port: Int) async throws -> ForeignSocket {
        try await withCheckedThrowingContinuation { made in
            Thread.detachNewThread { made.resume(with: Result { try makeSocket(inNamespace: path, port: port) }) }
        }
    }

    private static func makeSocket(inNamespace path: String, port: Int) throws -> ForeignSocket {
        let target = open(path, O_RDONLY | O_CLOEXEC)
        guard target >= 0 else { throw NamespaceError("cannot open network namespace \(path): errno \(errno)") }
        defer { Glibc.close(target) }
        // setns(2) is a GNU extension Glibc's module does not export: found by name.
        typealias SetNS = @convention(c) (CInt, CInt) -> CInt
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else {
            throw NamespaceError("setns is not available")
        }
        let setns = unsafeBitCast(symbol, to: SetNS.self)
        let newNetworkNamespace: CInt = 0x4000_0000  // CLONE_NEWNET
        guard setns(target, newNetworkNamespace) == 0 else {
            throw NamespaceError("cannot enter network namespace \(path): errno \(errno)")
        }
        let fd = Glibc.socket(AF_INET6, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NamespaceError("cannot make a UDP socket in \(path): errno \(errno)") }
        var on: CInt = 1
        var off: CInt = 0
        // Dual-stack, as NIO's own bind: the emulated drones dial their station at its IPv4 address.
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size)) == 0,
            setsockopt(fd, CInt(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<CInt>.size)) == 0
        else {
            let e = errno
            Glibc.close(fd)
            throw NamespaceError("cannot set up the UDP socket in \(path) (SO_REUSEADDR, IPV6_V6ONLY): errno \(e)")
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port)).bigEndian
        address.sin6_addr = in6addr_any
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        guard bound == 0 else {
            let e = errno
            Glibc.close(fd)
            throw NamespaceError("cannot bind [::]:\(port) in \(path): errno \(e)")
        }
        return ForeignSocket(descriptor: fd, devices: (try? System.enumerateDevices()) ?? [])
    }

    struct NamespaceError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
