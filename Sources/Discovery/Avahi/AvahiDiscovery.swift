import CAvahi
import Foundation
import Logging
import ServiceLifecycle

/// Publishes one DNS-SD service and browses service types through the local avahi-daemon.
///
/// A `Service`: `run()` starts Avahi's threaded poll and a client created with `AVAHI_CLIENT_NO_FAIL`, so a
/// daemon that is absent at start or restarts later is waited for and everything is re-registered when it
/// (re)appears. Avahi's callbacks copy their C data into Swift values and yield them to `events`. On graceful
/// shutdown the advertisement is withdrawn (Avahi sends goodbye packets) before `run()` returns.
public final class AvahiDiscovery: Service, @unchecked Sendable {
    /// Everything Avahi reports, in order. Finishes when `run()` returns.
    public let events: AsyncStream<DiscoveryEvent>

    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let logger: Logger
    private let browseTypes: [String]

    // State below is touched only on the poll thread (inside callbacks) or with the poll lock held.
    private var poll: ThreadedPoll?
    private var client: OpaquePointer?
    private var group: OpaquePointer?
    private var browsers: [OpaquePointer] = []
    private var resolvers: [ServiceKey: OpaquePointer] = [:]
    private var advertisement: ServiceAdvertisement?
    private var publishedName: String?

    /// - Parameters:
    ///   - advertisement: the service to publish, or nil to browse only.
    ///   - browse: DNS-SD service types to browse and resolve, e.g. `["_fleetmesh._udp"]`.
    public init(advertisement: ServiceAdvertisement?, browse: [String], logger: Logger) {
        (events, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self, bufferingPolicy: .unbounded)
        self.advertisement = advertisement
        self.browseTypes = browse
        self.logger = logger
    }

    /// How often a client is tried again when none could be made (no D-Bus system bus, or D-Bus went away).
    public static let clientRetryInterval: Duration = .seconds(1)

    public func run() async throws {
        let poll = try ThreadedPoll()
        self.poll = poll
        try poll.start()
        defer { continuation.finish() }
        await withTaskGroup(of: Void.self) { tasks in
            // Wait for graceful shutdown or cancellation …
            tasks.addTask { try? await gracefulShutdown() }
            // … while keeping a client: with a D-Bus system bus, `AVAHI_CLIENT_NO_FAIL` waits for avahi-daemon by
            // itself; without one, `avahi_client_new` fails at once, so it is tried again every second (reported
            // once per distinct reason) until the bus and the daemon are there.
            tasks.addTask { [self] in
                var lastReason: String?
                while !Task.isCancelled {
                    let reason: String? = poll.withLock {
                        guard client == nil else { return nil }
                        do {
                            try makeClient(poll: poll)
                            return nil
                        } catch {
                            return Self.explain(error)
                        }
                    }
                    if let reason, reason != lastReason { emit(.daemonUnavailable(reason: reason)) }
                    lastReason = reason
                    try? await Task.sleep(for: Self.clientRetryInterval)
                }
            }
            await tasks.next()
            tasks.cancelAll()
        }
        shutdown(poll)
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

    /// Replaces the advertisement's TXT record (for example a new UAV number) without re-probing the name.
    public func updateTXT(_ txt: [String: String]) {
        guard let poll else { return }
        poll.withLock {
            guard var ad = advertisement, ad.txt != txt else { return }
            ad.txt = txt
            advertisement = ad
            guard let group, let name = publishedName else { return }
            let list = TXTRecord.list(from: txt)
            defer { avahi_string_list_free(list) }
            let r = avahi_entry_group_update_service_txt_strlst(
                group, anyInterface, anyProtocol, AvahiPublishFlags(0),
                name, ad.type, nil, list)
            if r < 0 {
                emit(.publishFailed(reason: AvahiError(code: r, context: "updating TXT of '\(name)'").description))
            }
        }
    }

    // MARK: - Client lifecycle (lock held)

    private func makeClient(poll: ThreadedPoll) throws {
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
        for b in browsers { avahi_service_browser_free(b) }
        browsers.removeAll()
        if let g = group { avahi_entry_group_free(g) }
        group = nil
        publishedName = nil
    }

    private func shutdown(_ poll: ThreadedPoll) {
        poll.withLock {
            // Freeing the entry group withdraws the records: the daemon sends goodbyes (TTL 0).
            freeClientObjects()
            if let c = client { avahi_client_free(c) }
            client = nil
        }
        poll.stop()
        self.poll = nil
    }

    fileprivate func clientStateChanged(_ c: OpaquePointer, _ state: AvahiClientState) {
        client = c
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            emit(.daemonAvailable)
            register(c)
            startBrowsing(c)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The host name is being (re)probed: our records go with it and are re-added once running.
            if let g = group { avahi_entry_group_reset(g) }
            publishedName = nil
        case AVAHI_CLIENT_CONNECTING:
            emit(.daemonUnavailable(reason: "waiting for avahi-daemon"))
        case AVAHI_CLIENT_FAILURE:
            let code = avahi_client_errno(c)
            emit(.daemonUnavailable(reason: AvahiError(code: code, context: "avahi client failed").description))
            if code == AVAHI_ERR_DISCONNECTED, let poll {
                // The daemon went away. Every object made from the old client dies with it; make a new client
                // (NO_FAIL: it waits for the daemon and reports RUNNING when it is back).
                freeClientObjects()
                avahi_client_free(c)
                client = nil
                do { try makeClient(poll: poll) } catch {
                    // No D-Bus either: the run loop tries again every second.
                    emit(.daemonUnavailable(reason: Self.explain(error)))
                }
            }
        default:
            break
        }
    }

    // MARK: - Publishing (lock held)

    private func register(_ c: OpaquePointer) {
        guard let ad = advertisement else { return }
        if group == nil {
            group = avahi_entry_group_new(c, entryGroupCallback, Unmanaged.passUnretained(self).toOpaque())
        }
        guard let g = group else {
            emit(
                .publishFailed(
                    reason: AvahiError(code: avahi_client_errno(c), context: "creating entry group").description))
            return
        }
        guard avahi_entry_group_is_empty(g) != 0 else { return }
        let name = ad.name
        let list = TXTRecord.list(from: ad.txt)
        defer { avahi_string_list_free(list) }
        var r = avahi_entry_group_add_service_strlst(
            g, anyInterface, anyProtocol, AvahiPublishFlags(0),
            name, ad.type, nil, nil, ad.port, list)
        if r == AVAHI_ERR_COLLISION {
            rename(g)
            return
        }
        if r >= 0 { r = avahi_entry_group_commit(g) }
        if r < 0 {
            emit(.publishFailed(reason: AvahiError(code: r, context: "publishing '\(name)'").description))
            return
        }
        publishedName = name
    }

    private func rename(_ g: OpaquePointer) {
        guard let ad = advertisement else { return }
        guard let alt = avahi_alternative_service_name(ad.name) else { return }
        let new = String(cString: alt)
        avahi_free(alt)
        emit(.renamed(from: ad.name, to: new))
        advertisement?.name = new
        publishedName = nil
        avahi_entry_group_reset(g)
        if let c = client { register(c) }
    }

    fileprivate func entryGroupStateChanged(_ g: OpaquePointer, _ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            if let name = publishedName { emit(.published(name: name)) }
        case AVAHI_ENTRY_GROUP_COLLISION:
            rename(g)
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = avahi_client_errno(avahi_entry_group_get_client(g))
            emit(.publishFailed(reason: AvahiError(code: code, context: "entry group failed").description))
        default:
            break
        }
    }

    // MARK: - Browsing and resolving (lock held)

    private func startBrowsing(_ c: OpaquePointer) {
        guard browsers.isEmpty else { return }
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        for type in browseTypes {
            if let b = avahi_service_browser_new(
                c, anyInterface, anyProtocol, type, nil, AvahiLookupFlags(0),
                browserCallback, userdata)
            {
                browsers.append(b)
            } else {
                emit(
                    .lookupFailed(
                        reason: AvahiError(code: avahi_client_errno(c), context: "browsing \(type)").description))
            }
        }
    }

    fileprivate func browserEvent(
        _ b: OpaquePointer, _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiBrowserEvent,
        _ name: String, _ type: String, _ domain: String
    ) {
        guard let family = AddressFamily(proto) else { return }
        let key = ServiceKey(name: name, type: type, domain: domain, interfaceIndex: interface, family: family)
        switch event {
        case AVAHI_BROWSER_NEW:
            guard resolvers[key] == nil, let c = client else { return }
            // The resolver stays open: Avahi calls back again whenever the TXT record or address changes.
            if let r = avahi_service_resolver_new(
                c, interface, proto, name, type, domain, proto, AvahiLookupFlags(0),
                resolverCallback, Unmanaged.passUnretained(self).toOpaque())
            {
                resolvers[key] = r
            } else {
                emit(
                    .lookupFailed(
                        reason: AvahiError(code: avahi_client_errno(c), context: "resolving \(key)").description))
            }
        case AVAHI_BROWSER_REMOVE:
            if let r = resolvers.removeValue(forKey: key) { avahi_service_resolver_free(r) }
            emit(.removed(key))
        case AVAHI_BROWSER_FAILURE:
            let code = avahi_client_errno(avahi_service_browser_get_client(b))
            emit(.lookupFailed(reason: AvahiError(code: code, context: "browser failed").description))
        default:
            break
        }
    }

    fileprivate func resolverEvent(
        _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiResolverEvent,
        _ name: String, _ type: String, _ domain: String, _ host: String,
        _ address: UnsafePointer<AvahiAddress>?, _ port: UInt16,
        _ txt: UnsafeMutablePointer<AvahiStringList>?, _ flags: AvahiLookupResultFlags
    ) {
        guard let family = AddressFamily(proto) else { return }
        let key = ServiceKey(name: name, type: type, domain: domain, interfaceIndex: interface, family: family)
        switch event {
        case AVAHI_RESOLVER_FOUND:
            guard let address else { return }
            var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
            avahi_address_snprint(&buffer, buffer.count, address)
            let record = ServiceRecord(
                key: key, hostName: host,
                address: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                port: port,
                txt: TXTRecord.dictionary(from: txt),
                isLocal: flags.rawValue & AVAHI_LOOKUP_RESULT_LOCAL.rawValue != 0,
                isOwn: flags.rawValue & AVAHI_LOOKUP_RESULT_OUR_OWN.rawValue != 0)
            emit(.resolved(record))
        case AVAHI_RESOLVER_FAILURE:
            // A timeout here usually means the service left before it could be resolved; the browser reports removal.
            logger.debug("resolving \(key) failed: \(String(cString: avahi_strerror(avahi_client_errno(client))))")
        default:
            break
        }
    }

    private func emit(_ event: DiscoveryEvent) {
        continuation.yield(event)
    }
}

extension AddressFamily {
    init?(_ proto: AvahiProtocol) {
        switch proto {
        case AvahiProtocol(AVAHI_PROTO_INET): self = .ipv4
        case AvahiProtocol(AVAHI_PROTO_INET6): self = .ipv6
        default: return nil
        }
    }
}

private let anyInterface = AvahiIfIndex(AVAHI_IF_UNSPEC)
private let anyProtocol = AvahiProtocol(AVAHI_PROTO_UNSPEC)

// MARK: - C callbacks: copy the C data into Swift values, then hand over to the instance (poll thread, lock held).

private func instance(_ userdata: UnsafeMutableRawPointer?) -> AvahiDiscovery? {
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

private let browserCallback: AvahiServiceBrowserCallback = {
    browser, interface, proto, event, name, type, domain, _, userdata in
    guard let browser else { return }
    instance(userdata)?.browserEvent(
        browser, interface, proto, event,
        name.map { String(cString: $0) } ?? "", type.map { String(cString: $0) } ?? "",
        domain.map { String(cString: $0) } ?? "")
}

private let resolverCallback: AvahiServiceResolverCallback = {
    _, interface, proto, event, name, type, domain, host, address, port, txt, flags, userdata in
    instance(userdata)?.resolverEvent(
        interface, proto, event,
        name.map { String(cString: $0) } ?? "", type.map { String(cString: $0) } ?? "",
        domain.map { String(cString: $0) } ?? "", host.map { String(cString: $0) } ?? "",
        address, port, txt, flags)
}
