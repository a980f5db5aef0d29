import ControlProtocol
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Serves the node's control socket: a Unix socket (mode 0600, so only its owner and root can use it)
/// speaking one JSON request line and one JSON response line per connection.
struct ControlServer: Service {
    let path: String
    let group: EventLoopGroup
    let logger: Logger
    let handle: @Sendable (ControlRequest) async -> ControlResponse

    func run() async throws {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let server = try await ServerBootstrap(group: group)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { child in
                child.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child)
                }
            }
        chmod(path, 0o600)
        defer { unlink(path) }
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { tasks in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        tasks.addTask { await serve(connection) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var line: [UInt8] = []
                for try await chunk in inbound {
                    line += chunk.readableBytesView
                    if line.contains(UInt8(ascii: "\n")) || line.count > 65_536 { break }
                }
                let text = line.prefix { $0 != UInt8(ascii: "\n") }
                let response: ControlResponse
                do {
                    let request = try JSONDecoder().decode(ControlRequest.self, from: Data(text))
                    response = await handle(request)
                } catch let error as ControlRequestError {
                    response = ControlResponse(error: error.description)
                } catch {
                    response = ControlResponse(
                        error: "malformed control request: expected one JSON object like {\"command\":\"status\"}")
                }
                var data = try JSONEncoder().encode(response)
                data.append(UInt8(ascii: "\n"))
                try await outbound.write(ByteBuffer(bytes: data))
            }
        } catch {
            logger.debug("control connection ended: \(error)")
        }
    }
}
