import LabKit
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import Node

/// The mesh socket on this machine's loopback interface only (nothing leaves the host).
@Suite("UDPTransport")
struct UDPTransportTests {
    /// Datagrams of every size up to UDP's limit arrive whole. SwiftNIO reads 2,048 bytes by default and cuts the
    /// rest; a sealed datagram cut short failed authentication, so a reliable message that big never arrived and
    /// stalled its channel for good.
    @Test func datagramsOfEverySizeArriveWhole() async throws {
        let logger = Logger(label: "udp-test")
        let group = MultiThreadedEventLoopGroup.singleton
        let receiver = try await UDPTransport.bind(port: 0, group: group, logger: logger)
        let sender = try await UDPTransport.bind(port: 0, group: group, logger: logger)
        let to = try SocketAddress(ipAddress: "::1", port: receiver.port)
        let sizes = [1, 1_200, 2_048, 2_049, 9_000, 65_000]
        for (i, size) in sizes.enumerated() {
            sender.send([.unicast((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }, to: to)])
        }
        let received = try await receiver.firstDatagrams(sizes.count)
        #expect(received.map(\.count) == sizes)
        for (i, size) in sizes.enumerated() where received.count > i {
            let sent = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }
            #expect(received[i].elementsEqual(sent), "datagram \(i) of \(size) bytes arrived altered")
        }
        await sender.close()
        await receiver.close()
    }

    /// With `holding`, datagrams of that kind (the node's group datagrams) wait for `takeHeld()`, in arrival order, and
    /// never reach the stream; every other datagram still goes to the stream at once.
    @Test func datagramsOfTheHeldKindWaitForTheOwnerToTakeThem() async throws {
        let logger = Logger(label: "udp-test")
        let group = MultiThreadedEventLoopGroup.singleton
        let receiver = try await UDPTransport.bind(port: 0, group: group, logger: logger, holding: 4)
        let sender = try await UDPTransport.bind(port: 0, group: group, logger: logger)
        let to = try SocketAddress(ipAddress: "::1", port: receiver.port)
        sender.send([.unicast([4, 1], to: to), .unicast([3, 1], to: to), .unicast([4, 2], to: to)])
        sender.send([.unicast([4, 3], to: to), .unicast([3, 2], to: to)])
        // The stream gets the others; the datagrams were sent in order on loopback, so by the time the last of them
        // is in the stream every held one before it has been read.
        #expect(try await receiver.firstDatagrams(2) == [[3, 1], [3, 2]])
        let held = receiver.takeHeld()
        #expect(held.map(\.bytes) == [[4, 1], [4, 2], [4, 3]])
        #expect(held.allSatisfy { $0.from.port == sender.port })
        #expect(receiver.takeHeld().isEmpty, "taken twice")
        // An empty datagram is not of the held kind.
        sender.send([.unicast([], to: to)])
        #expect(try await receiver.firstDatagrams(1) == [[]])
        #expect(receiver.takeHeld().isEmpty)
        await sender.close()
        await receiver.close()
    }
}

/// The drone emulator's sockets: made in a network namespace of their own (the test makes one, with only loopback).
@Suite("UDPTransport in a network namespace")
struct UDPTransportNamespaceTests {
    @Test func theSocketLivesInTheNamespaceItWasMadeIn() async throws {
        let name = "fmtest-udp-\(getpid())"
        try #require(try shell(["ip", "netns", "add", name]).status == 0, "ip netns add \(name) failed")
        defer { _ = try? shell(["ip", "netns", "del", name]) }
        try #require(try shell(["ip", "-n", name, "link", "set", "lo", "up"]).status == 0)
        let logger = Logger(label: "udp-ns-test")
        let group = MultiThreadedEventLoopGroup.singleton
        let inside = try await UDPTransport.bind(
            port: 0, group: group, logger: logger, networkNamespace: "/run/netns/\(name)")
        let outside = try await UDPTransport.bind(port: 0, group: group, logger: logger)
        let port = inside.port
        // From this process's own namespace the port is not there; from inside the namespace it is.
        outside.send([.unicast([1], to: try SocketAddress(ipAddress: "::1", port: port))])
        inside.send([.unicast([2], to: try SocketAddress(ipAddress: "::1", port: port))])
        // Dual-stack: IPv4 reaches it too (the emulated drones dial their station at its IPv4 address).
        inside.send([.unicast([3], to: try SocketAddress(ipAddress: "::ffff:127.0.0.1", port: port))])
        #expect(try await inside.firstDatagrams(2) == [[2], [3]])
        await inside.close()
        await outside.close()
    }

    @Test func aMissingNamespaceIsNamedInTheError() async throws {
        await #expect {
            try await UDPTransport.bind(
                port: 0, group: MultiThreadedEventLoopGroup.singleton, logger: Logger(label: "t"),
                networkNamespace: "/run/netns/fleetmesh-no-such-namespace")
        } throws: { "\($0)".contains("/run/netns/fleetmesh-no-such-namespace") }
    }
}

extension UDPTransport {
    /// The bytes of the first `count` datagrams to arrive; fails if they have not all come within 10 s.
    fileprivate func firstDatagrams(_ count: Int) async throws -> [[UInt8]] {
        try await withThrowingTaskGroup(of: [[UInt8]]?.self) { tasks in
            tasks.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            tasks.addTask {
                var got: [[UInt8]] = []
                for await d in self.datagrams {
                    got.append(d.bytes)
                    if got.count == count { break }
                }
                return got
            }
            let first = try await tasks.next()!
            tasks.cancelAll()
            return try #require(first, "fewer than \(count) datagrams arrived within 10 s")
        }
    }
}
