import Logging
import NIOCore
import NIOPosix

/// The node's UDP socket: one dual-stack IPv6 socket (IPv4 peers appear as IPv4-mapped addresses).
/// Received datagrams are yielded to `datagrams`; `send` queues a datagram and `flush` pushes the queue out.
public final class UDPTransport: Sendable {
    /// A received datagram.
    public struct Datagram: Sendable {
        public var bytes: [UInt8]
        public var from: SocketAddress
    }

    public let datagrams: AsyncStream<Datagram>
    /// The port the socket is bound to.
    public let port: Int
    private let channel: Channel
    private let logger: Logger

    private init(channel: Channel, datagrams: AsyncStream<Datagram>, logger: Logger) {
        self.channel = channel
        self.datagrams = datagrams
        self.port = channel.localAddress?.port ?? 0
        self.logger = logger
    }

    /// Binds `[::]:port` (0 picks a free port).
    public static func bind(port: Int, group: EventLoopGroup, logger: Logger) async throws -> UDPTransport {
        let (stream, continuation) = AsyncStream.makeStream(of: Datagram.self, bufferingPolicy: .bufferingNewest(4096))
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(InboundHandler(continuation: continuation))
                }
            }
            .bind(host: "::", port: port).get()
        channel.closeFuture.whenComplete { _ in continuation.finish() }
        return UDPTransport(channel: channel, datagrams: stream, logger: logger)
    }

    /// Queues a datagram; call `flush()` after a batch.
    public func send(_ bytes: [UInt8], to address: SocketAddress) {
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        let logger = self.logger
        channel.write(AddressedEnvelope(remoteAddress: address, data: buffer)).whenFailure { error in
            logger.debug("send to \(address.displayString) failed: \(error)")
        }
    }

    public func flush() {
        channel.flush()
    }

    public func close() async {
        try? await channel.close()
    }

    private final class InboundHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let continuation: AsyncStream<Datagram>.Continuation

        init(continuation: AsyncStream<Datagram>.Continuation) {
            self.continuation = continuation
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            continuation.yield(Datagram(bytes: Array(envelope.data.readableBytesView), from: envelope.remoteAddress))
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            // ICMP port unreachable and similar arrive here; a datagram socket keeps working.
        }
    }
}
