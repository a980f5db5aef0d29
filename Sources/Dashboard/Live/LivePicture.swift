import ControlProtocol
import Foundation
import ServiceLifecycle

/// The live picture every WebSocket client receives (docs/DASHBOARD.md, "The live stream"):
/// - each vehicle's telemetry pushed as it arrives at the station, paced per client (its watched drones at `watchHz`,
///   the rest at `othersHz`; a sample that comes sooner is held and replaced by newer ones, never queued);
/// - a periodic frame with the predictions and the map origin, carrying every vehicle and the geofence once a second
///   (and first for a new client), so vehicles that fell silent or left are seen as such;
/// - the node's events as they are logged.
/// Each message is encoded once for all clients. A client's outbox holds only the newest of each kind, so a slow
/// client skips ahead and never slows the node or grows memory.
actor LivePicture: Service {
    /// A periodic frame on the wire (`type` is `picture`); `vehicles` only in full frames.
    struct Frame: Encodable {
        var type = "picture"
        /// Milliseconds since the epoch at the station when the frame was taken.
        var time: Int64
        var vehicles: [VehicleReport]?
        var airspace: [AirspaceReport]
        var origin: OriginReport?
        /// The geofence in force and which one every node uses (full frames only).
        var geofence: GeofenceReport?
    }

    /// One vehicle's telemetry as it arrived (an entry of a `vehicles` message).
    struct VehicleUpdate: Encodable {
        /// Milliseconds since the epoch at the station when the update left the node (the sample arrived `ageMs`
        /// before).
        var time: Int64
        var vehicle: VehicleReport
    }

    /// An encoded update of one vehicle, waiting for its client's pace.
    struct Pushed {
        var node: String
        var text: String
    }

    private struct Watcher {
        let client: LiveClient
        var subscription: LiveSubscription
        var pacer = VehiclePacer<Pushed>()
        var hadFullFrame = false
    }

    /// Every vehicle is in a frame at least this often.
    static let fullFrameInterval = Duration.seconds(1)
    /// How often held vehicle updates are looked at.
    static let pacingTick = Duration.milliseconds(20)

    private let backend: DashboardBackend
    private let interval: Duration
    private let clock: ContinuousClock
    private let defaultSubscription: LiveSubscription
    private var watchers: [Int: Watcher] = [:]
    private var nextClient = 0
    private var lastFullFrame: (text: String, at: ContinuousClock.Instant)?
    /// The newest event already sent (nil until the first frame).
    private var eventsSeen: Int?
    private let encoder: JSONEncoder
    private let (clientsArrive, clientArrived) = AsyncStream.makeStream(
        of: Void.self, bufferingPolicy: .bufferingNewest(1))

    /// A live picture taking a frame every `interval`; clients start with `othersHz` at `1 / interval`.
    init(backend: DashboardBackend, interval: Duration, clock: ContinuousClock) {
        self.backend = backend
        self.interval = interval
        self.clock = clock
        var subscription = LiveSubscription()
        subscription.othersHz = min(
            max(1 / (interval / .seconds(1)), LiveSubscription.othersRange.lowerBound),
            LiveSubscription.othersRange.upperBound)
        defaultSubscription = subscription
        encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
    }

    /// A new client: a full frame first (the newest at once if it is recent, else the next one), then everything live.
    func subscribe() -> LiveClient {
        nextClient += 1
        let client = LiveClient(id: nextClient)
        watchers[client.id] = Watcher(client: client, subscription: defaultSubscription)
        if let full = lastFullFrame, clock.now - full.at < Self.fullFrameInterval {
            client.post(frame: full.text, full: true)
            watchers[client.id]?.hadFullFrame = true
        }
        clientArrived.yield()
        return client
    }

    /// Changes what a client is sent and how often.
    func change(_ id: Int, to subscription: LiveSubscription) {
        watchers[id]?.subscription = subscription
    }

    /// A client's subscription (the default for a new one).
    func subscription(of id: Int) -> LiveSubscription { watchers[id]?.subscription ?? defaultSubscription }

    func unsubscribe(_ id: Int) {
        watchers.removeValue(forKey: id)?.client.finish()
        // With nobody watching, frames stop; the next client must not start from an old one.
        if watchers.isEmpty { lastFullFrame = nil }
    }

    /// Takes frames, pushes arrivals and paces held updates while anyone watches; on graceful shutdown every
    /// client's stream ends.
    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.takeFrames() }
                group.addTask { await self.pushArrivals() }
                group.addTask { await self.releaseHeldUpdates() }
                await group.waitForAll()
            }
        }
        for watcher in watchers.values { watcher.client.finish() }
        watchers.removeAll()
    }

    // MARK: - Frames

    private func takeFrames() async {
        var next = clock.now
        while !Task.isCancelled {
            if !watchers.isEmpty { await takeFrame() }
            next = next.advanced(by: interval)
            if next < clock.now { next = clock.now }
            try? await clock.sleep(until: next)
        }
    }

    private func takeFrame() async {
        let now = clock.now
        let full =
            watchers.values.contains { !$0.hadFullFrame }
            || lastFullFrame.map { now - $0.at >= Self.fullFrameInterval - interval / 2 } ?? true
        async let airspace = backend.answer(.airspace).airspace
        async let origin = backend.answer(.origin).origin
        async let vehicles = full ? backend.answer(.vehicles).vehicles : nil
        async let geofence = full ? backend.answer(.geofence).geofence : nil
        // The first frame only learns where the events are; each later one sends those logged since.
        let page = await backend.answer(.events(.init(after: eventsSeen ?? 0, limit: eventsSeen == nil ? 1 : 1000)))
        let events = eventsSeen == nil ? [] : page.events?.events ?? []
        if let latest = page.events?.latest { eventsSeen = latest }
        var frame = Frame(time: Self.epochMilliseconds(), airspace: await airspace ?? [], origin: await origin)
        guard let light = encode(frame) else { return }
        var fullText: String?
        if full {
            frame.vehicles = await vehicles ?? []
            frame.geofence = await geofence
            fullText = encode(frame)
            if let fullText { lastFullFrame = (fullText, now) }
        }
        let encodedEvents = events.compactMap(encode)
        for (id, watcher) in watchers {
            if let fullText {
                watcher.client.post(frame: fullText, full: true)
                watchers[id]?.hadFullFrame = true
            } else {
                watcher.client.post(frame: light, full: false)
            }
            watcher.client.post(events: encodedEvents)
        }
    }

    // MARK: - Vehicles as they arrive

    private func pushArrivals() async {
        for await _ in clientsArrive {
            guard !watchers.isEmpty else { continue }
            // Observed only while someone watches: the node builds no reports for nobody.
            for await report in await backend.vehicleUpdates() {
                guard !watchers.isEmpty else { break }
                push(report)
            }
        }
    }

    private func push(_ report: VehicleReport) {
        guard let text = encode(VehicleUpdate(time: Self.epochMilliseconds(), vehicle: report)) else { return }
        let now = clock.now
        let pushed = Pushed(node: report.node, text: text)
        // A client's first message is a full frame: pushes wait for it.
        for id in watchers.keys where watchers[id]!.hadFullFrame {
            let period = watchers[id]!.subscription.period(for: report.uavNumber)
            if let out = watchers[id]!.pacer.arrived(pushed, vehicle: report.node, period: period, now: now) {
                watchers[id]!.client.post(vehicle: out.node, update: out.text)
            }
        }
    }

    private func releaseHeldUpdates() async {
        var next = clock.now
        while !Task.isCancelled {
            let now = clock.now
            for id in watchers.keys {
                for out in watchers[id]!.pacer.due(now: now) {
                    watchers[id]!.client.post(vehicle: out.node, update: out.text)
                }
            }
            next = next.advanced(by: Self.pacingTick)
            if next < clock.now { next = clock.now }
            try? await clock.sleep(until: next)
        }
    }

    // MARK: - Encoding

    private func encode(_ value: some Encodable) -> String? {
        (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func epochMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
