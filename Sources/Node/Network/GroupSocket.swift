import Glibc
import NIOConcurrencyHelpers
import NIOCore

/// A receive-only socket for the mesh's link-local multicast group on one interface: bound to `[group%interface]:port`
/// (so it gets the group's datagrams and nothing else; the node's unicast socket on `[::]:port` stops getting them,
/// `IPV6_MULTICAST_ALL` off), non-blocking, and never registered with an event loop. Its owner reads it when it looks
/// (`read(into:)`, at the node's ticks): a group datagram costs a system call in a batch, not a wake-up of the event
/// loop's thread and another of the node's. Each datagram carries the kernel's receive time (`SO_TIMESTAMPNS`), so the
/// time it waited in the socket is not taken for link delay.
final class GroupSocket: @unchecked Sendable {
    /// The interface's name, for logs, and its index.
    let interface: String
    let interfaceIndex: Int
    /// The descriptor; -1 once closed. Reads and the close take the lock, so a read never meets a reused descriptor.
    private let descriptor: NIOLockedValueBox<CInt>
    /// Where a datagram and its control messages are read to: touched only under `descriptor`'s lock (hence
    /// `@unchecked Sendable`). Room for UDP's largest datagram, so none is cut short.
    private let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: UDPTransport.largestDatagram, alignment: 8)
    private let control = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)

    /// `SO_TIMESTAMPNS` and its control message type (`SCM_TIMESTAMPNS`) on Linux (asm-generic); Glibc's module does not
    /// export the macro.
    private static let timestampOption: CInt = 35
    /// `IPV6_MULTICAST_ALL` (Linux 4.20): 0 delivers a multicast datagram only to sockets that joined its group.
    static let multicastAllOption: CInt = 29
    /// Datagrams read per look at most (the rest wait for the next look, in the kernel's buffer).
    static let readLimit = 1_024

    /// Makes the socket, binds it and joins the group on interface `index`. Throws with the step and errno that failed.
    init(group: String, port: Int, interfaceIndex index: Int, interface: String) throws {
        self.interface = interface
        self.interfaceIndex = index
        let fd = Glibc.socket(
            AF_INET6, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw GroupSocketError(step: "socket", errno: errno) }
        func fail(_ step: String) -> GroupSocketError {
            let e = errno
            Glibc.close(fd)
            return GroupSocketError(step: step, errno: e)
        }
        var on: CInt = 1
        var buffer = CInt(UDPTransport.requestedReceiveBuffer)
        let intSize = socklen_t(MemoryLayout<CInt>.size)
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, intSize) == 0 else { throw fail("SO_REUSEADDR") }
        guard setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, intSize) == 0 else { throw fail("SO_RCVBUF") }
        guard setsockopt(fd, SOL_SOCKET, Self.timestampOption, &on, intSize) == 0 else {
            throw fail("SO_TIMESTAMPNS")
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port)).bigEndian
        address.sin6_scope_id = UInt32(index)
        guard inet_pton(AF_INET6, group, &address.sin6_addr) == 1 else { throw fail("group address \(group)") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        guard bound == 0 else { throw fail("bind [\(group)%\(interface)]:\(port)") }
        var request = ipv6_mreq()
        request.ipv6mr_multiaddr = address.sin6_addr
        request.ipv6mr_interface = UInt32(index)
        guard
            setsockopt(fd, CInt(IPPROTO_IPV6), IPV6_JOIN_GROUP, &request, socklen_t(MemoryLayout<ipv6_mreq>.size)) == 0
        else { throw fail("IPV6_JOIN_GROUP") }
        descriptor = NIOLockedValueBox(fd)
    }

    /// Reads every datagram waiting (at most `readLimit`) and appends them to `out`, each with the instant the kernel
    /// received it on `ContinuousClock`.
    func read(into out: inout [UDPTransport.Datagram]) {
        let (bytes, control) = (self.bytes, self.control)
        descriptor.withLockedValue { fd in
            guard fd >= 0 else { return }
            var source = sockaddr_in6()
            let clockNow = ContinuousClock.now
            var wallNow = timespec()
            clock_gettime(CLOCK_REALTIME, &wallNow)
            for _ in 0..<Self.readLimit {
                var stamp: timespec?
                let received = withUnsafeMutablePointer(to: &source) { src in
                    var vector = iovec(iov_base: bytes.baseAddress, iov_len: bytes.count)
                    return withUnsafeMutablePointer(to: &vector) { iov in
                        var message = msghdr()
                        message.msg_name = UnsafeMutableRawPointer(src)
                        message.msg_namelen = socklen_t(MemoryLayout<sockaddr_in6>.size)
                        message.msg_iov = iov
                        message.msg_iovlen = 1
                        message.msg_control = control.baseAddress
                        message.msg_controllen = control.count
                        let n = recvmsg(fd, &message, CInt(MSG_DONTWAIT))
                        if n >= 0 { stamp = Self.timestamp(in: control, length: message.msg_controllen) }
                        return n
                    }
                }
                if received < 0 { break }  // EAGAIN: nothing more waiting (or an error: looked at next time)
                var arrivedAt = clockNow
                if let stamp {
                    let ago =
                        Duration.seconds(wallNow.tv_sec - stamp.tv_sec) + .nanoseconds(wallNow.tv_nsec - stamp.tv_nsec)
                    // A wall clock stepped meanwhile gives a wait below zero or absurdly long: then the read's instant.
                    if ago > .zero && ago < .seconds(10) { arrivedAt = clockNow - ago }
                }
                let from = SocketAddress(source, host: "")
                let datagram = Array(UnsafeRawBufferPointer(rebasing: bytes[0..<received]))
                out.append(UDPTransport.Datagram(bytes: datagram, from: from, arrivedAt: arrivedAt))
            }
        }
    }

    /// The kernel's `SO_TIMESTAMPNS` control message, if the control buffer holds one.
    private static func timestamp(in control: UnsafeMutableRawBufferPointer, length: Int) -> timespec? {
        let header = MemoryLayout<cmsghdr>.size
        var offset = 0
        while offset + header <= length {
            let h = control.load(fromByteOffset: offset, as: cmsghdr.self)
            guard h.cmsg_len >= header, offset + Int(h.cmsg_len) <= length else { return nil }
            if h.cmsg_level == SOL_SOCKET, h.cmsg_type == timestampOption,
                Int(h.cmsg_len) >= header + MemoryLayout<timespec>.size
            {
                return control.loadUnaligned(fromByteOffset: offset + header, as: timespec.self)
            }
            offset += (Int(h.cmsg_len) + 7) & ~7
        }
        return nil
    }

    /// Datagrams the kernel dropped on this socket because its receive buffer was full (`SO_MEMINFO`).
    var kernelDrops: UInt64 {
        descriptor.withLockedValue { fd in
            guard fd >= 0 else { return 0 }
            var info = [UInt32](repeating: 0, count: 9)
            var length = socklen_t(MemoryLayout<UInt32>.size * info.count)
            guard getsockopt(fd, SOL_SOCKET, SO_MEMINFO, &info, &length) == 0 else { return 0 }
            return UInt64(info[8])
        }
    }

    func close() {
        descriptor.withLockedValue { fd in
            guard fd >= 0 else { return }
            Glibc.close(fd)
            fd = -1
        }
    }

    deinit {
        close()
        bytes.deallocate()
        control.deallocate()
    }
}

/// A group socket that could not be made: the step and the system's error.
struct GroupSocketError: Error, CustomStringConvertible {
    var step: String
    var errno: CInt
    var description: String { "\(step): \(String(cString: strerror(errno)))" }
}
