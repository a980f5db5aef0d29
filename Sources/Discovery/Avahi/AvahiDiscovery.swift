import CAvahi
import Foundation
import Logging
import ServiceLifecycle

/// The process's one Avahi client: publishes this process's DNS-SD services (the mesh node's record, a station's
/// `_mavlink._udp`) and browses the service types its parts ask for (`_fleetmesh._udp`, `_loc-broadcaster._udp`).
///
/// A `Service`: `run()` starts Avahi's threaded poll and a client created with `AVAHI_CLIENT_NO_FAIL`, so a
/// daemon that is absent at start or restarts later is waited for and everything is re-registered when it
/// (re)appears. Avahi's callbacks copy their C data into Swift values and yield them to the streams of the parts
/// that subscribed (`subscribe(browsing:publishing:)`), each getting the events of its own service types and the
/// daemon's comings and goings. Every other call takes the poll lock, and none makes its caller wait for it:
/// `subscribe`, `publish`, `updateTXT`, `resolve` and `stopResolving` return at once and reach Avahi in order on a
/// queue of their own (each is a synchronous D-Bus round trip to avahi-daemon, which takes seconds when the daemon is
/// short of CPU; the node that made it must not wait, docs/BENCHMARKS.md §10.20). On graceful shutdown every
/// advertisement is withdrawn (Avahi sends goodbye packets) before `run()` returns.
public final class AvahiDiscovery: Service, @unchecked Sendable {
    /// One part of the process listening: the types it browses, the advertisement type it publishes.
    struct Subscriber {
        var browse: Set<String>
        var publishing: String?
        /// Whether every browse result is resolved as it appears (otherwise only on `resolve(_:)`).
        var resolvesFound: Bool
        var continuation: AsyncStream<DiscoveryEvent>.Continuation
    }

    /// One service this process publishes, by DNS-SD type.
    struct Published {
        var advertisement: ServiceAdvertisement
        var group: OpaquePointer?
        /// The name the entry group was committed under (nil until committed, and after a reset).
        var name: String?
    }

    let logger: Logger
    private let poll: ThreadedPoll
    /// Where the calls of a running node wait for the poll lock and for avahi-daemon's answers, in order.
    private let calls = DispatchQueue(label: "fleetmesh.avahi.calls")

    // State below is touched only on the poll thread (inside callbacks) or with the poll lock held.
    var client: OpaquePointer?
    var running = false
    var subscribers: [Subscriber] = []
    var published: [String: Published] = [:]
    var browsers: [String: OpaquePointer] = [:]
    var resolvers: [ServiceKey: OpaquePointer] = [:]

    /// A client for this process; nothing reaches Avahi until `run()`.
    public init(logger: Logger) throws(AvahiError) {
        self.logger = logger
        self.poll = try ThreadedPoll()
    }

    /// How often a client is tried again when none could be made (no D-Bus system bus, or D-Bus went away).
    public static let clientRetryInterval: Duration = .seconds(1)

    /// Events for one part of the process: records of the `browsing` types (resolved, changed, removed, lookup
    /// failures), what happens to its own advertisement of type `publishing` (published, renamed, failed), and the
    /// daemon's availability. Every browse result is reported as `found`; with `resolvingFound` it is also resolved at
    /// once, and otherwise only when the subscriber asks (`resolve(_:)`). A resolver stays open, so a changed TXT
    /// record or address is reported again, until the service is removed or `stopResolving(_:)` closes it. The
    /// stream finishes when `run()` returns.
    public func subscribe(
        browsing types: [String], publishing type: String? = nil, resolvingFound: Bool = true
    ) -> AsyncStream<DiscoveryEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self, bufferingPolicy: .unbounded)
        later { [self] in
            subscribers.append(
                Subscriber(
                    browse: Set(types), publishing: type, resolvesFound: resolvingFound, continuation: continuation))
            if let c = client, running { startBrowsing(c) }
        }
        return stream
    }

    /// Follows a browse result's records again with a fresh resolver (its address or TXT record may have changed):
    /// Avahi answers from its cache at once and queries the link again. If the service has gone, the resolution
    /// fails quietly (the browser reports the removal). Without a running daemon nothing happens: when it is back,
    /// browsing starts over and resolves every record.
    public func resolve(_ key: ServiceKey) {
        later { [self] in
            guard let c = client, running else { return }
            if let r = resolvers.removeValue(forKey: key) { avahi_service_resolver_free(r) }
            openResolver(key, c)
        }
    }

    /// Stops following a browse result's records; nothing if no resolver is open. Avahi keeps querying for each
    /// open resolver's records at growing intervals, and every daemon on the link answers: for a whole fleet's
    /// records, work in proportion to N² for every daemon (docs/BENCHMARKS.md §10.8). The mesh follows a peer's
    /// records only while it is out of session.
    public func stopResolving(_ key: ServiceKey) {
        later { [self] in
            if let r = resolvers.removeValue(forKey: key) { avahi_service_resolver_free(r) }
        }
    }

    /// Publishes `advertisement` (replacing one of the same type) as soon as the daemon runs; at once if it does.
    public func publish(_ advertisement: ServiceAdvertisement) {
        later { [self] in
            if let old = published[advertisement.type]?.group { avahi_entry_group_free(old) }
            published[advertisement.type] = Published(advertisement: advertisement)
            if let c = client, running { register(advertisement.type, c) }
        }
    }

    public func run() async throws {
        try poll.start()
        await withTaskGroup(of: Void.self) { tasks in
            // Wait for graceful shutdown or cancellation …
            tasks.addTask { try? await gracefulShutdown() }
            // … while keeping a client: with a D-Bus system bus, `AVAHI_CLIENT_NO_FAIL` waits for avahi-daemon by
            // itself; without one, `avahi_client_new` fails at once, so it is tried again every second (reported
            // once per distinct reason) until the bus and the daemon are there.
            tasks.addTask { [self] in
                var lastReason: String?
                while !Task.isCancelled {
                    let reason: String? = await locked { [self] in
                        guard client == nil else { return nil }
                        do {
                            try makeClient()
                            return nil
                        } catch {
                            return Self.explain(error)
                        }
                    }
                    if let reason, reason != lastReason {
                        later { [self] in emit(.daemonUnavailable(reason: reason)) }
                    }
                    lastReason = reason
                    try? await Task.sleep(for: Self.clientRetryInterval)
                }
            }
            await tasks.next()
            tasks.cancelAll()
        }
        await shutdown()
    }

    /// Why no client could be made, in words an operator can act on.
    static func explain(_ error: Error) -> String {
        let bus =
            ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
        let path = bus.hasPrefix("unix:path=") ? String(bus.dropFirst("unix:path=".count)) : nil
        let noBus = path.map { !FileManager.default.fileExists(atPath: $0) } ?? false
        let cause = noBus ? "no D-Bus system bus at \(path!) (is dbus running?)" : "\(error)"
        return "waiting for avahi-daemon: \(cause); retrying every \(clientRetryInterval.components.seconds) s"
    }

    /// Replaces the TXT record of the advertisement of `type` (for example a new UAV number) without re-probing
    /// the name.
    public func updateTXT(type: String, _ txt: [String: String]) {
        later { [self] in
            guard var p = published[type], p.advertisement.txt != txt else { return }
            p.advertisement.txt = txt
            published[type] = p
            guard let group = p.group, let name = p.name else { return }
            let list = TXTRecord.list(from: txt)
            defer { avahi_string_list_free(list) }
            let r = avahi_entry_group_update_service_txt_strlst(
                group, anyInterface, anyProtocol, AvahiPublishFlags(0), name, type, nil, list)
            if r < 0 {
                emit(
                    .publishFailed(reason: AvahiError(code: r, context: "updating TXT of '\(name)'").description),
                    publishing: type)
            }
        }
    }

    /// Runs `body` on the calls' queue holding the poll lock; returns at once.
    private func later(_ body: @escaping @Sendable () -> Void) {
        calls.async { [self] in poll.withLock(body) }
    }

    /// Runs `body` on the calls' queue holding the poll lock and returns its result, without holding a thread of
    /// the concurrency pool while it waits (the poll thread holds the lock through every callback).
    private func locked<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in calls.async { [self] in done.resume(returning: poll.withLock(body)) } }
    }

    // MARK: - Client lifecycle (lock held)

    private func makeClient() throws {
        var error: Int32 = 0
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        guard let c = avahi_client_new(poll.api, AVAHI_CLIENT_NO_FAIL, clientCallback, userdata, &error) else {
            throw AvahiError(code: error, context: "creating the Avahi client")
        }
        client = c
    }

    private func freeClientObjects() {
        for (_, r) in resolvers { avahi_service_resolver_free(r) }
        resolvers.removeAll()
        for (_, b) in browsers { avahi_service_browser_free(b) }
        browsers.removeAll()
        for (type, p) in published {
            if let g = p.group { avahi_entry_group_free(g) }
            published[type]?.group = nil
            published[type]?.name = nil
        }
        running = false
    }

    /// After the calls queued before it: every advertisement withdrawn, the client freed, the poll thread stopped
    /// and every subscriber's stream finished.
    private func shutdown() async {
        await locked { [self] in
            // Freeing the entry groups withdraws the records: the daemon sends goodbyes (TTL 0).
            freeClientObjects()
            if let c = client { avahi_client_free(c) }
            client = nil
        }
        poll.stop()
        await locked { [self] in for s in subscribers { s.continuation.finish() } }
    }

    fileprivate func clientStateChanged(_ c: OpaquePointer, _ state: AvahiClientState) {
        client = c
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            running = true
            emit(.daemonAvailable)
            for type in published.keys.sorted() { register(type, c) }
            startBrowsing(c)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The host name is being (re)probed: our records go with it and are re-added once running.
            running = false
            for (type, p) in published {
                if let g = p.group { avahi_entry_group_reset(g) }
                published[type]?.name = nil
            }
        case AVAHI_CLIENT_CONNECTING:
            running = false
            emit(.daemonUnavailable(reason: "waiting for avahi-daemon"))
        case AVAHI_CLIENT_FAILURE:
            running = false
            let code = avahi_client_errno(c)
            emit(.daemonUnavailable(reason: AvahiError(code: code, context: "avahi client failed").description))
            if code == AVAHI_ERR_DISCONNECTED {
                // The daemon went away. Every object made from the old client dies with it; make a new client
                // (NO_FAIL: it waits for the daemon and reports RUNNING when it is back).
                freeClientObjects()
                avahi_client_free(c)
                client = nil
                do { try makeClient() } catch {
                    // No D-Bus either: the run loop tries again every second.
                    emit(.daemonUnavailable(reason: Self.explain(error)))
                }
            }
        default:
            break
        }
    }

    // MARK: - Publishing (lock held)

    private func register(_ type: String, _ c: OpaquePointer) {
        guard var p = published[type] else { return }
        if p.group == nil {
            p.group = avahi_entry_group_new(c, entryGroupCallback, Unmanaged.passUnretained(self).toOpaque())
            published[type] = p
        }
        guard let g = p.group else {
            emit(
                .publishFailed(
                    reason: AvahiError(code: avahi_client_errno(c), context: "creating entry group").description),
                publishing: type)
            return
        }
        guard avahi_entry_group_is_empty(g) != 0 else { return }
        let ad = p.advertisement
        let list = TXTRecord.list(from: ad.txt)
        defer { avahi_string_list_free(list) }
        var r = avahi_entry_group_add_service_strlst(
            g, anyInterface, anyProtocol, AvahiPublishFlags(0), ad.name, ad.type, nil, nil, ad.port, list)
        if r == AVAHI_ERR_COLLISION {
            rename(type, g)
            return
        }
        if r >= 0 { r = avahi_entry_group_commit(g) }
        if r < 0 {
            emit(
                .publishFailed(reason: AvahiError(code: r, context: "publishing '\(ad.name)'").description),
                publishing: type)
            return
        }
        published[type]?.name = ad.name
    }

    private func rename(_ type: String, _ g: OpaquePointer) {
        guard let ad = published[type]?.advertisement, let alt = avahi_alternative_service_name(ad.name) else {
            return
        }
        let new = String(cString: alt)
        avahi_free(alt)
        emit(.renamed(from: ad.name, to: new), publishing: type)
        published[type]?.advertisement.name = new
        published[type]?.name = nil
        avahi_entry_group_reset(g)
        if let c = client { register(type, c) }
    }

    /// The type of the advertisement whose entry group is `g`.
    private func type(of g: OpaquePointer) -> String? {
        published.first { $0.value.group == g }?.key
    }

    fileprivate func entryGroupStateChanged(_ g: OpaquePointer, _ state: AvahiEntryGroupState) {
        guard let type = type(of: g) else { return }
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            if let name = published[type]?.name { emit(.published(name: name), publishing: type) }
        case AVAHI_ENTRY_GROUP_COLLISION:
            rename(type, g)
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = avahi_client_errno(avahi_entry_group_get_client(g))
            emit(
                .publishFailed(reason: AvahiError(code: code, context: "entry group failed").description),
                publishing: type)
        default:
            break
        }
    }

    /// To every subscriber: the daemon's availability.
    func emit(_ event: DiscoveryEvent) {
        for s in subscribers { s.continuation.yield(event) }
    }

    /// To the subscribers browsing `type`.
    func emit(_ event: DiscoveryEvent, browsing type: String) {
        for s in subscribers where s.browse.contains(type) { s.continuation.yield(event) }
    }

    /// To the subscribers publishing `type`.
    func emit(_ event: DiscoveryEvent, publishing type: String) {
        for s in subscribers where s.publishing == type { s.continuation.yield(event) }
    }
}

let anyInterface = AvahiIfIndex(AVAHI_IF_UNSPEC)
let anyProtocol = AvahiProtocol(AVAHI_PROTO_UNSPEC)

// MARK: - C callbacks: copy the C data into Swift values, then hand over to the instance (poll thread, lock held).

func instance(_ userdata: UnsafeMutableRawPointer?) -> AvahiDiscovery? {
    userdata.map { Unmanaged<AvahiDiscovery>.fromOpaque($0).takeUnretainedValue() }
}

private let clientCallback: AvahiClientCallback = { client, state, userdata in
    guard let client else { return }
    instance(userdata)?.clientStateChanged(client, state)
}

private let entryGroupCallback: AvahiEntryGroupCallback = { group, state, userdata in
    guard let group else { return }
    instance(userdata)?.entryGroupStateChanged(group, state)
}
