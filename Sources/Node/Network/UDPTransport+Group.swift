import Glibc
import NIOCore
import NIOPosix

/// The transport's multicast group: joining it on the node's interfaces (on sockets of its own where the transport
/// holds group datagrams, ``GroupSocket``), and the held datagrams the owner takes at its ticks.
extension UDPTransport {
    /// The link-local multicast group a transport joins, and sends group datagrams to, on its port.
    public struct MulticastGroup: Sendable {
        /// The group's IPv6 address (link-local scope).
        public var address: String
        /// Interfaces to join it on; empty: every interface that is up, multicast-capable, not loopback, with an IPv6
        /// address.
        public var interfaces: [String]

        public init(address: String = "ff02::464d", interfaces: [String] = []) {
            self.address = address
            self.interfaces = interfaces
        }
    }

    /// Joins the multicast group on its interfaces (hop limit 1, no loopback of this node's own datagrams) and
    /// returns where group datagrams go. An interface that cannot join is logged and skipped.
    func join(_ channel: Channel, devices: [NIONetworkDevice]?) async -> [SocketAddress] {
        guard let multicast, let multicastChannel = channel as? MulticastChannel else { return [] }
        let devices = devices ?? (try? System.enumerateDevices()) ?? []
        var chosen: [Int: NIONetworkDevice] = [:]
        for d in devices where d.address?.protocol == .inet6 && d.name != "lo" && d.multicastSupported {
            if multicast.interfaces.isEmpty || multicast.interfaces.contains(d.name) { chosen[d.interfaceIndex] = d }
        }
        var targets: [SocketAddress] = []
        do {
            try await channel.setOption(
                ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_multicast_loop), value: 0
            ).get()
            try await channel.setOption(
                ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_multicast_hops), value: 1
            ).get()
        } catch {
            logger.warning("group channel off: cannot set multicast options: \(error)")
            return []
        }
        // A transport that holds group datagrams reads them from sockets of their own (``GroupSocket``), which only its
        // owner's ticks read: the unicast socket then gets none (`IPV6_MULTICAST_ALL` off: only groups it joined).
        // Not for a socket made in another namespace (the lab's emulator), nor where the option is missing (Linux
        // before 4.20): those join on the unicast socket, as a transport that holds nothing does.
        var ownSockets = holding != nil && networkNamespace == nil
        if ownSockets {
            do {
                try await channel.setOption(
                    ChannelOptions.Types.SocketOption(
                        level: .ipv6, name: NIOBSDSocket.Option(rawValue: GroupSocket.multicastAllOption)), value: 0
                ).get()
            } catch {
                logger.notice("group datagrams read by the event loop: cannot set IPV6_MULTICAST_ALL: \(error)")
                ownSockets = false
            }
        }
        for (index, device) in chosen.sorted(by: { $0.key < $1.key }) {
            do {
                let groupAddress = try SocketAddress(ipAddress: multicast.address, port: port)
                if ownSockets, makeGroupSocket(interfaceIndex: index, name: device.name) {
                    // joined by its own socket
                } else {
                    try await multicastChannel.joinGroup(groupAddress, device: device).get()
                }
                var a = sockaddr_in6()
                a.sin6_family = sa_family_t(AF_INET6)
                a.sin6_port = in_port_t(UInt16(port)).bigEndian
                _ = inet_pton(AF_INET6, multicast.address, &a.sin6_addr)
                a.sin6_scope_id = UInt32(index)
                targets.append(SocketAddress(a, host: "\(multicast.address)%\(device.name)"))
            } catch {
                logger.warning("group channel: cannot join \(multicast.address) on \(device.name): \(error)")
            }
        }
        let names = targets.map { $0.description }.joined(separator: ", ")
        let reader = state.withLockedValue { $0.groupSockets.isEmpty } ? "" : " (read at the node's ticks)"
        logger.info("group channel: \(targets.isEmpty ? "no interface joined" : names)\(reader)")
        return targets
    }

    /// Makes the group's socket on interface `index` unless there is one; false if it cannot (logged: the unicast
    /// socket joins instead).
    private func makeGroupSocket(interfaceIndex index: Int, name: String) -> Bool {
        guard let multicast else { return false }
        if state.withLockedValue({ $0.groupSockets.contains { $0.interfaceIndex == index } }) { return true }
        do {
            let socket = try GroupSocket(group: multicast.address, port: port, interfaceIndex: index, interface: name)
            state.withLockedValue { $0.groupSockets.append(socket) }
            return true
        } catch {
            logger.warning(
                "group channel on \(name): its own socket failed (\(error)); the event loop reads it instead")
            return false
        }
    }

    /// The held datagrams (`bind(…holding:)`) read since the last call: those the event loop kept, oldest first, then
    /// those waiting in the group's own sockets, read now.
    public func takeHeld() -> [Datagram] {
        let (taken, sockets) = state.withLockedValue { s in
            defer { if !s.held.isEmpty { s.held = [] } }
            return (s.held, s.groupSockets)
        }
        var held = taken
        for socket in sockets { socket.read(into: &held) }
        return held
    }
}
