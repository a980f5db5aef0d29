import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The I/O of a drone's link to its autopilot: a UDP socket (sending to a fixed address, or listening and answering
/// the sender) or a serial port. Frames to send are queued with `send` (non-blocking, from the coordinator actor);
/// `run` opens the link, delivers what arrives, and keeps trying to open it until the node stops.
public final class AutopilotLink: Sendable {
    public let endpoint: AutopilotEndpoint
    private let outbound: AsyncStream<[UInt8]>
    private let outboundContinuation: AsyncStream<[UInt8]>.Continuation
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    private struct State {
        var framesOut = 0
        var framesDropped = 0
        var remote: String?
    }

    init(endpoint: AutopilotEndpoint, logger: Logger) {
        self.endpoint = endpoint
        self.logger = logger
        // A slow serial link must not queue minutes of stale setpoints: the newest 256 frames are kept.
        (outbound, outboundContinuation) = AsyncStream.makeStream(
            of: [UInt8].self, bufferingPolicy: .bufferingNewest(256))
    }

    /// Queues one frame for the autopilot.
    func send(_ bytes: [UInt8]) {
        outboundContinuation.yield(bytes)
    }

    /// Opens the link and runs until cancelled: `deliver(bytes, endOfDatagram)` for everything that arrives.
    public func run(deliver: @escaping @Sendable ([UInt8], Bool) async -> Void) async {
        switch endpoint {
        case .udp(let host, let port):
            let parts = host.split(separator: "%", maxSplits: 1).map(String.init)
            let peer = PeerEndpoint(host: parts[0], port: port, scope: parts.count > 1 ? parts[1] : nil)
            guard let address = try? peer.socketAddress() else {
                logger.error("autopilot link \(endpoint): cannot use \(peer) as an address")
                return
            }
            await runUDP(bindPort: 0, fixedRemote: address, deliver: deliver)
        case .udpIn(let port):
            await runUDP(bindPort: port, fixedRemote: nil, deliver: deliver)
        case .serial(let path, let baud):
            await runSerial(path: path, baud: baud, deliver: deliver)
        }
        outboundContinuation.finish()
    }

    private func runUDP(
        bindPort: Int, fixedRemote: SocketAddress?, deliver: @escaping @Sendable ([UInt8], Bool) async -> Void
    ) async {
        var transport: UDPTransport?
        var complained = false
        while transport == nil && !Task.isCancelled {
            do {
                transport = try await UDPTransport.bind(
                    port: bindPort, group: MultiThreadedEventLoopGroup.singleton, logger: logger)
            } catch {
                if !complained {
                    logger.error(
                        "autopilot link \(endpoint): cannot bind UDP port \(bindPort): \(error); retrying every 2 s")
                }
                complained = true
                try? await Task.sleep(for: .seconds(2))
            }
        }
        guard let transport else { return }
        logger.info(
            "autopilot link \(endpoint): UDP port \(transport.port)\(fixedRemote.map { ", sending to \($0.displayString)" } ?? ", waiting for the autopilot to send")"
        )
        let remote = NIOLockedValueBox<SocketAddress?>(fixedRemote)
        let logger = self.logger
        let endpoint = self.endpoint
        let state = self.state
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                for await datagram in transport.datagrams {
                    if fixedRemote == nil {
                        let changed = remote.withLockedValue { r -> Bool in
                            defer { r = datagram.from }
                            return r != datagram.from
                        }
                        if changed {
                            logger.info("autopilot link \(endpoint): autopilot at \(datagram.from.displayString)")
                            state.withLockedValue { $0.remote = datagram.from.displayString }
                        }
                    }
                    await deliver(datagram.bytes, true)
                }
            }
            tasks.addTask { [outbound] in
                for await bytes in outbound {
                    guard let to = remote.withLockedValue({ $0 }) else {
                        state.withLockedValue { $0.framesDropped += 1 }
                        continue
                    }
                    transport.send(bytes, to: to)
                    transport.flush()
                    state.withLockedValue { $0.framesOut += 1 }
                }
            }
            // Runs until the node stops.
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            await transport.close()
            tasks.cancelAll()
        }
    }

    private func runSerial(path: String, baud: Int, deliver: @escaping @Sendable ([UInt8], Bool) async -> Void) async {
        // One writer for the whole run (the outbound stream ends when its consumer is cancelled, so it must not be
        // consumed per connection); frames are dropped while the port is closed.
        let current = NIOLockedValueBox<Channel?>(nil)
        let state = self.state
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { [outbound] in
                for await bytes in outbound {
                    guard let channel = current.withLockedValue({ $0 }) else {
                        state.withLockedValue { $0.framesDropped += 1 }
                        continue
                    }
                    var buffer = channel.allocator.buffer(capacity: bytes.count)
                    buffer.writeBytes(bytes)
                    channel.writeAndFlush(buffer, promise: nil)
                    state.withLockedValue { $0.framesOut += 1 }
                }
            }
            await serialSessions(path: path, baud: baud, current: current, deliver: deliver)
            tasks.cancelAll()
        }
    }

    /// Opens the port, reads until it closes, and opens it again, until cancelled.
    private func serialSessions(
        path: String, baud: Int, current: NIOLockedValueBox<Channel?>,
        deliver: @escaping @Sendable ([UInt8], Bool) async -> Void
    ) async {
        var complained = false
        while !Task.isCancelled {
            let fd: CInt
            do {
                fd = try Self.openSerial(path: path, baud: baud)
            } catch {
                if !complained { logger.error("autopilot link \(endpoint): \(error); retrying every 2 s") }
                complained = true
                try? await Task.sleep(for: .seconds(2))
                continue
            }
            complained = false
            let (inbound, inboundContinuation) = AsyncStream.makeStream(
                of: [UInt8].self, bufferingPolicy: .bufferingNewest(4096))
            let channel: Channel
            do {
                channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                SerialHandler(continuation: inboundContinuation))
                        }
                    }
                    .takingOwnershipOfDescriptor(inputOutput: fd).get()
            } catch {
                close(fd)
                logger.error("autopilot link \(endpoint): cannot use \(path): \(error); retrying in 2 s")
                try? await Task.sleep(for: .seconds(2))
                continue
            }
            logger.info("autopilot link \(endpoint): \(path) open at \(baud) baud")
            current.withLockedValue { $0 = channel }
            await withTaskCancellationHandler {
                for await bytes in inbound { await deliver(bytes, false) }
            } onCancel: {
                channel.close(promise: nil)
            }
            current.withLockedValue { $0 = nil }
            try? await channel.close()
            if !Task.isCancelled {
                logger.warning("autopilot link \(endpoint): \(path) closed; reopening")
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Opens a serial device raw (8N1, no flow control, no echo, no line discipline) at `baud`.
    static func openSerial(path: String, baud: Int) throws -> CInt {
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw SerialError(path: path, problem: String(cString: strerror(errno))) }
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else {
            let problem = String(cString: strerror(errno))
            close(fd)
            throw SerialError(path: path, problem: "not a serial port (\(problem))")
        }
        cfmakeraw(&t)
        t.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
        t.c_cflag &= ~(tcflag_t(CRTSCTS) | tcflag_t(CSTOPB) | tcflag_t(PARENB))
        let speed = speedConstant(baud)
        cfsetispeed(&t, speed)
        cfsetospeed(&t, speed)
        guard tcsetattr(fd, TCSANOW, &t) == 0 else {
            let problem = String(cString: strerror(errno))
            close(fd)
            throw SerialError(path: path, problem: "cannot configure the port (\(problem))")
        }
        return fd
    }

    static func speedConstant(_ baud: Int) -> speed_t {
        switch baud {
        case 9600: return speed_t(B9600)
        case 19200: return speed_t(B19200)
        case 38400: return speed_t(B38400)
        case 57600: return speed_t(B57600)
        case 115200: return speed_t(B115200)
        case 230400: return speed_t(B230400)
        case 460800: return speed_t(B460800)
        case 500000: return speed_t(B500000)
        case 576000: return speed_t(B576000)
        case 921600: return speed_t(B921600)
        case 1000000: return speed_t(B1000000)
        case 1500000: return speed_t(B1500000)
        case 2000000: return speed_t(B2000000)
        default: return speed_t(B3000000)
        }
    }

    struct SerialError: Error, CustomStringConvertible {
        let path: String
        let problem: String
        var description: String { "cannot open \(path): \(problem)" }
    }

    private final class SerialHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let continuation: AsyncStream<[UInt8]>.Continuation

        init(continuation: AsyncStream<[UInt8]>.Continuation) { self.continuation = continuation }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            continuation.yield(Array(unwrapInboundIn(data).readableBytesView))
        }

        func channelInactive(context: ChannelHandlerContext) {
            continuation.finish()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            context.close(promise: nil)
        }
    }

    /// Frames sent so far, frames dropped for want of an address (udpin before the autopilot spoke), and the
    /// autopilot's address (udpin).
    var counters: (sent: Int, dropped: Int, remote: String?) {
        state.withLockedValue { ($0.framesOut, $0.framesDropped, $0.remote) }
    }
}
