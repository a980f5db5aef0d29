import Glibc
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The node's UDP socket: one dual-stack IPv6 socket (IPv4 peers appear as IPv4-mapped addresses).
/// Received datagrams are yielded to `datagrams`; `send` queues a datagram and `flush` pushes the queue out.
/// Datagrams of one kind (their first byte, `holding`) can instead wait until the owner takes them (`takeHeld()`): the
/// node takes its group datagrams at its next tick, so a datagram that needs no answer soon wakes no thread on its own.
/// Such a transport reads the multicast group from sockets of its own (``GroupSocket``), which no event loop watches;
/// where it cannot, its event loop keeps them in a queue.
///
/// A datagram channel closes itself when `sendmsg` fails with errors such as EPERM (a firewall drop) or
/// ENETUNREACH (a radio link down). A node must outlive those, so the transport then binds the same port
/// again and carries on; only `close()` ends it.
public final class UDPTransport: Sendable {
    /// A received datagram.
    public struct Datagram: Sendable {
        public var bytes: [UInt8]
        public var from: SocketAddress
        /// When the event loop read it from the socket (its wait for the node's actor starts then).
        public var arrivedAt: ContinuousClock.Instant = .now
    }

    public let datagrams: AsyncStream<Datagram>
    /// The port the socket is bound to.
    public let port: Int
    let state: NIOLockedValueBox<State>
    private let continuation: AsyncStream<Datagram>.Continuation
    private let group: EventLoopGroup
    let logger: Logger
    let multicast: MulticastGroup?
    /// The network namespace the socket is made in (`bind(…networkNamespace:)`); nil: the process's own.
    let networkNamespace: String?
    /// Datagrams whose first byte is this wait for `takeHeld()` instead of going to `datagrams`.
    let holding: UInt8?

    struct State {
        var channel: Channel?
        var closing = false
        var rebinds = 0
        /// The last error a send failed with: the likely reason the channel closed.
        var lastSendError: String?
        /// Where group datagrams go: the group's address on each joined interface.
        var groupTargets: [SocketAddress] = []
        /// The receive buffer as last read (``ReceiveBuffer``); `kernelDrops` counts every socket bound so far.
        var receive = ReceiveBuffer()
        /// The kernel's drops on the sockets bound before this one.
        var kernelDropsBefore: UInt64 = 0
        /// The kernel's drops on this socket, as last read.
        var kernelDropsNow: UInt64 = 0
        /// Datagrams of the held kind read since `takeHeld()` last took them, oldest first (at most ``queueLimit``).
        var held: [Datagram] = []
        /// The group's sockets (``GroupSocket``), one per joined interface; made once, kept across rebinds of the
        /// unicast socket.
        var groupSockets: [GroupSocket] = []
        /// The kernel's drops on the group's sockets, as last read.
        var groupKernelDrops: UInt64 = 0
    }

    /// The socket's receive buffer, and the datagrams that reached the node but were never read. Read from the kernel
    /// (`getsockopt(SO_MEMINFO)`) every ``receiveBufferReadInterval`` on the socket's event loop.
    public struct ReceiveBuffer: Sendable, Hashable {
        /// Datagrams the kernel dropped because the buffer was full, on every socket this transport bound.
        public var kernelDrops: UInt64 = 0
        /// Datagrams read from the socket but dropped because the queue to the node's actor, or the held ones' queue,
        /// (``queueLimit`` each) was full.
        public var queueDrops: UInt64 = 0
        /// The buffer's size in bytes, as the kernel grants it (it doubles what is asked, up to twice
        /// `net.core.rmem_max`); nil until first read.
        public var capacity: Int?
        /// Bytes waiting in it when last read (each datagram takes its payload plus the kernel's overhead).
        public var queued = 0
        /// How many times the figures were read: a reader that looks more often than they are read sees the same
        /// reading twice, which says nothing about the time between.
        public var readings: UInt64 = 0

        /// Every datagram lost unread.
        public var drops: UInt64 { kernelDrops + queueDrops }
    }

    /// The receive buffer the socket asks for (the kernel grants twice this, if `net.core.rmem_max` allows).
    public static let requestedReceiveBuffer = 1 << 20
    /// The `net.core.rmem_max` the package sets (`packaging/sysctl.d`): room for the buffer asked for, and more.
    public static let recommendedReceiveBufferLimit = 4 << 20
    /// Datagrams the event loop hands on to the node's actor that can wait for it; beyond, the oldest is dropped.
    public static let queueLimit = 4096
    /// The largest datagram the transport reads whole: UDP's own limit.
    public static let largestDatagram = 65_536
    /// How often the receive buffer's figures are read.
    public static let receiveBufferReadInterval: TimeAmount = .milliseconds(100)

    private init(
        port: Int, group: EventLoopGroup, continuation: AsyncStream<Datagram>.Continuation,
        datagrams: AsyncStream<Datagram>, logger: Logger, multicast: MulticastGroup?, networkNamespace: String?,
        holding: UInt8?, state: NIOLockedValueBox<State>
    ) {
        self.holding = holding
        self.multicast = multicast
        self.port = port
        self.group = group
        self.continuation = continuation
        self.datagrams = datagrams
        self.logger = logger
        self.networkNamespace = networkNamespace
        self.state = state
    }

    /// Binds `[::]:port` (0 picks a free port); with `multicast`, joins that group on its interfaces. With
    /// `networkNamespace` (a path such as `/run/netns/NAME`) the socket is made in that network namespace: the lab's
    /// drone emulator gives each of its drones one. With `holding`, datagrams whose first byte is that value wait for
    /// `takeHeld()` instead of going to `datagrams`.
    public static func bind(
        port: Int, group: EventLoopGroup, logger: Logger, multicast: MulticastGroup? = nil,
        networkNamespace: String? = nil, holding: UInt8? = nil
    ) async throws -> UDPTransport {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Datagram.self, bufferingPolicy: .bufferingNewest(queueLimit))
        let state = NIOLockedValueBox(State())
        let (channel, devices) = try await makeChannel(
            port: port, group: group, networkNamespace: networkNamespace, holding: holding, continuation: continuation,
            state: state)
        let transport = UDPTransport(
            port: channel.localAddress?.port ?? port, group: group, continuation: continuation,
            datagrams: stream, logger: logger, multicast: multicast, networkNamespace: networkNamespace,
            holding: holding, state: state)
        await transport.checkReceiveBuffer(of: channel)
        await transport.adopt(channel, devices: devices)
        return transport
    }

    /// Logs a receive buffer smaller than the transport asks for: the system's limit (`net.core.rmem_max`) caps it, and
    /// a node short of CPU then loses datagrams sooner.
    private func checkReceiveBuffer(of channel: Channel) async {
        guard let granted = try? await channel.getOption(.socketOption(.so_rcvbuf)).get(),
            Int(granted) < 2 * Self.requestedReceiveBuffer
        else { return }
        let limit =
            (try? String(contentsOfFile: "/proc/sys/net/core/rmem_max", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        logger.notice(
            "the mesh socket's receive buffer is \(granted / 1024) KiB, not the \(2 * Self.requestedReceiveBuffer / 1024) KiB asked for: net.core.rmem_max is \(limit) (the fleetmesh package raises it to \(Self.recommendedReceiveBufferLimit) in /usr/lib/sysctl.d/60-fleetmesh.conf; `fleetmesh doctor` checks it)"
        )
    }

    /// The channel, and the devices of the namespace it was made in when that is not the process's own.
    private static func makeChannel(
        port: Int, group: EventLoopGroup, networkNamespace: String?, holding: UInt8?,
        continuation: AsyncStream<Datagram>.Continuation, state: NIOLockedValueBox<State>
    ) async throws -> (Channel, [NIONetworkDevice]?) {
        let bootstrap = DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(requestedReceiveBuffer))
            // Room for the largest UDP datagram: SwiftNIO reads datagrams into 2,048 bytes by default and cuts what is
            // longer, which then failed authentication and was lost for good (a reliable message that big stalled
            // its channel: a station's 100-entry database summary did).
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.largestDatagram))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        InboundHandler(continuation: continuation, holding: holding, state: state))
                }
            }
        guard let networkNamespace else { return (try await bootstrap.bind(host: "::", port: port).get(), nil) }
        let socket = try await socket(inNamespace: networkNamespace, port: port)
        return (try await bootstrap.withBoundSocket(socket.descriptor).get(), socket.devices)
    }

    private func adopt(_ channel: Channel, devices: [NIONetworkDevice]?) async {
        let targets = await join(channel, devices: devices)
        state.withLockedValue {
            $0.channel = channel
            $0.groupTargets = targets
            $0.kernelDropsBefore += $0.kernelDropsNow
            $0.kernelDropsNow = 0
        }
        let reading = channel.eventLoop.scheduleRepeatedTask(
            initialDelay: .zero, delay: Self.receiveBufferReadInterval
        ) { [state] _ in
            Self.readReceiveBuffer(of: channel, into: state)
        }
        channel.closeFuture.whenComplete { [self] _ in
            reading.cancel()
            let closing = state.withLockedValue { s in
                if s.channel === channel { s.channel = nil }
                return s.closing
            }
            if closing {
                continuation.finish()
            } else {
                Task { await self.rebind() }
            }
        }
    }

    private func rebind() async {
        var delay = Duration.milliseconds(5)
        while !state.withLockedValue({ $0.closing }) {
            do {
                let (channel, devices) = try await UDPTransport.makeChannel(
                    port: port, group: group, networkNamespace: networkNamespace, holding: holding,
                    continuation: continuation, state: state)
                let (count, cause) = state.withLockedValue { s -> (Int, String) in
                    s.rebinds += 1
                    return (s.rebinds, s.lastSendError ?? "unknown error")
                }
                logger.warning(
                    "UDP socket closed after a send error (\(cause)); bound port \(port) again (\(count) time(s) so far)"
                )
                await adopt(channel, devices: devices)
                return
            } catch {
                logger.error("cannot bind UDP port \(port) again: \(error); retrying in \(delay)")
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(1))
            }
        }
    }

    /// The kernel's figures for a socket (`SO_MEMINFO`): allocated receive memory, receive buffer size, …, drops.
    private typealias SocketMemoryInfo = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    /// Reads the socket's receive buffer and drop count into `state` (on the channel's event loop).
    private static func readReceiveBuffer(of channel: Channel, into state: NIOLockedValueBox<State>) {
        guard let provider = channel as? SocketOptionProvider else { return }
        let info: EventLoopFuture<SocketMemoryInfo> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_MEMINFO))
        let groupSockets = state.withLockedValue { $0.groupSockets }
        let groupDrops = groupSockets.reduce(UInt64(0)) { $0 + $1.kernelDrops }
        info.whenSuccess { m in
            state.withLockedValue { s in
                guard s.channel === channel else { return }
                s.kernelDropsNow = UInt64(m.8)
                s.groupKernelDrops = groupDrops
                s.receive.kernelDrops = s.kernelDropsBefore + s.kernelDropsNow + s.groupKernelDrops
                s.receive.queued = Int(m.0)
                s.receive.capacity = Int(m.1)
                s.receive.readings &+= 1
            }
        }
    }

    /// The receive buffer and the datagrams lost unread, as last read.
    public var receiveBuffer: ReceiveBuffer { state.withLockedValue { $0.receive } }

    /// One datagram of a batch for `send(_:)`.
    public enum Outgoing: Sendable {
        /// To one address.
        case unicast([UInt8], to: SocketAddress)
        /// To the multicast group on every joined interface.
        case group([UInt8])
    }

    /// How many copies a group datagram makes (the joined interfaces; 0 without a group).
    public var groupCopies: Int { state.withLockedValue { $0.groupTargets.count } }

    /// Queues the datagrams and pushes them out, in order, in one task on the channel's event loop: one wake-up of
    /// its thread for the lot, where each `send(_:to:)` and `flush()` from another thread costs one.
    public func send(_ batch: [Outgoing]) {
        guard !batch.isEmpty else { return }
        let (channel, targets) = state.withLockedValue { ($0.channel, $0.groupTargets) }
        guard let channel else { return }
        let push = { [self] in
            for d in batch {
                switch d {
                case .unicast(let bytes, let address): write(bytes, to: address, on: channel)
                case .group(let bytes): for target in targets { write(bytes, to: target, on: channel) }
                }
            }
            channel.flush()
        }
        if channel.eventLoop.inEventLoop { push() } else { channel.eventLoop.execute(push) }
    }

    /// Queues a datagram; call `flush()` after a batch.
    public func send(_ bytes: [UInt8], to address: SocketAddress) {
        guard let channel = state.withLockedValue({ $0.channel }) else { return }
        write(bytes, to: address, on: channel)
    }

    private func write(_ bytes: [UInt8], to address: SocketAddress, on channel: Channel) {
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        let logger = self.logger
        channel.write(AddressedEnvelope(remoteAddress: address, data: buffer)).whenFailure { [state] error in
            if !(error is ChannelError) {
                state.withLockedValue { $0.lastSendError = "send to \(address.displayString): \(error)" }
            }
            logger.debug("send to \(address.displayString) failed: \(error)")
        }
    }

    /// Queues a datagram for the multicast group on every joined interface; returns how many copies went (0 without a
    /// group). Call `flush()` after a batch.
    @discardableResult
    public func sendGroup(_ bytes: [UInt8]) -> Int {
        let targets = state.withLockedValue { $0.groupTargets }
        for target in targets { send(bytes, to: target) }
        return targets.count
    }

    public func flush() {
        state.withLockedValue { $0.channel }?.flush()
    }

    /// How often the socket had to be bound again after a send error.
    public var rebinds: Int { state.withLockedValue { $0.rebinds } }

    public func close() async {
        let channel = state.withLockedValue { s -> Channel? in
            s.closing = true
            return s.channel
        }
        let sockets = state.withLockedValue { s in
            defer { s.groupSockets = [] }
            return s.groupSockets
        }
        for socket in sockets { socket.close() }
        if let channel { try? await channel.close() } else { continuation.finish() }
    }

    private final class InboundHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let continuation: AsyncStream<Datagram>.Continuation
        let holding: UInt8?
        let state: NIOLockedValueBox<State>

        init(continuation: AsyncStream<Datagram>.Continuation, holding: UInt8?, state: NIOLockedValueBox<State>) {
            self.continuation = continuation
            self.holding = holding
            self.state = state
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let datagram = Datagram(bytes: Array(envelope.data.readableBytesView), from: envelope.remoteAddress)
            if let holding, datagram.bytes.first == holding {
                // Held for the owner's next look: no task is resumed, no thread woken.
                state.withLockedValue { s in
                    if s.held.count >= UDPTransport.queueLimit {
                        s.held.removeFirst()
                        s.receive.queueDrops += 1
                    }
                    s.held.append(datagram)
                }
                return
            }
            let result = continuation.yield(datagram)
            if case .dropped = result { state.withLockedValue { $0.receive.queueDrops += 1 } }
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            // ICMP port unreachable and similar arrive here; a datagram socket keeps working.
        }
    }
}
