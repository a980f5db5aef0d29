import ControlProtocol
import Foundation
import ServiceLifecycle

/// The live picture every WebSocket client receives: built once per interval from the node (vehicles, airspace,
/// origin) and encoded once, then offered to each client. A client's stream holds only the newest picture, so a slow
/// client skips ahead and never slows the node or grows memory.
actor LivePicture: Service {
    /// One picture on the wire (`type` is `picture`).
    struct Frame: Encodable {
        var type = "picture"
        /// Milliseconds since the epoch at the station when the picture was taken.
        var time: Int64
        var vehicles: [VehicleReport]
        var airspace: [AirspaceReport]
        var origin: OriginReport?
        /// The node's events since the previous picture (the page asks `/api/v1/events` for older ones).
        var events: [EventReport]
    }

    private let backend: DashboardBackend
    private let interval: Duration
    private let clock: ContinuousClock
    private var clients: [Int: AsyncStream<String>.Continuation] = [:]
    private var nextClient = 0
    private var latest: String?
    /// The newest event already in a picture (nil until the first picture).
    private var eventsSeen: Int?

    init(backend: DashboardBackend, interval: Duration, clock: ContinuousClock) {
        self.backend = backend
        self.interval = interval
        self.clock = clock
    }

    /// A new client's stream: the latest picture at once (if there is one), then each new one.
    func subscribe() -> (id: Int, frames: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
        nextClient += 1
        clients[nextClient] = continuation
        if let latest { continuation.yield(latest) }
        return (nextClient, stream)
    }

    func unsubscribe(_ id: Int) {
        clients.removeValue(forKey: id)?.finish()
        // With nobody watching, pictures stop; the next client must not start from an old one.
        if clients.isEmpty { latest = nil }
    }

    /// Clients connected now.
    var clientCount: Int { clients.count }

    /// Builds a picture every interval while anyone watches; on graceful shutdown every client's stream ends.
    func run() async throws {
        let clock = self.clock
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        await cancelWhenGracefulShutdown {
            var next = clock.now
            while !Task.isCancelled {
                if await self.clientCount > 0 {
                    let frame = await self.take()
                    if let data = try? encoder.encode(frame) {
                        await self.publish(String(decoding: data, as: UTF8.self))
                    }
                }
                next = next.advanced(by: self.interval)
                if next < clock.now { next = clock.now }
                try? await clock.sleep(until: next)
            }
        }
        for continuation in clients.values { continuation.finish() }
        clients.removeAll()
    }

    private func take() async -> Frame {
        async let vehicles = backend.answer(.vehicles).vehicles
        async let airspace = backend.answer(.airspace).airspace
        async let origin = backend.answer(.origin).origin
        // The first picture only learns where the events are; each later one carries those since the one before.
        let page = await backend.answer(.events(.init(after: eventsSeen ?? 0, limit: eventsSeen == nil ? 1 : 1000)))
        let events = eventsSeen == nil ? [] : page.events?.events ?? []
        if let latest = page.events?.latest { eventsSeen = latest }
        return Frame(
            time: Int64(Date().timeIntervalSince1970 * 1000), vehicles: await vehicles ?? [],
            airspace: await airspace ?? [], origin: await origin, events: events)
    }

    private func publish(_ text: String) {
        latest = text
        for continuation in clients.values { continuation.yield(text) }
    }
}
