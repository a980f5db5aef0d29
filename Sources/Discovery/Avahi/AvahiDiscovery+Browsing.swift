import CAvahi

/// Browsing and resolving the service types the process's parts subscribed to (poll thread or poll lock held).
extension AvahiDiscovery {
    /// Browses every type a subscriber wants that no browser covers yet.
    func startBrowsing(_ c: OpaquePointer) {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        for type in Set(subscribers.flatMap(\.browse)).sorted() where browsers[type] == nil {
            if let b = avahi_service_browser_new(
                c, anyInterface, anyProtocol, type, nil, AvahiLookupFlags(0), browserCallback, userdata)
            {
                browsers[type] = b
            } else {
                lookupFailed(avahi_client_errno(c), "browsing \(type)", type)
            }
        }
    }

    /// Tells the subscribers browsing `type` that a lookup failed, with Avahi's error text.
    private func lookupFailed(_ code: Int32, _ context: String, _ type: String) {
        emit(.lookupFailed(reason: AvahiError(code: code, context: context).description), browsing: type)
    }

    func browserEvent(
        _ b: OpaquePointer, _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiBrowserEvent,
        _ name: String, _ type: String, _ domain: String
    ) {
        guard let family = AddressFamily(proto) else { return }
        let key = ServiceKey(name: name, type: type, domain: domain, interfaceIndex: interface, family: family)
        switch event {
        case AVAHI_BROWSER_NEW:
            emit(.found(key), browsing: type)
            guard resolvers[key] == nil, let c = client,
                subscribers.contains(where: { $0.browse.contains(type) && $0.resolvesFound })
            else { return }
            openResolver(key, c)
        case AVAHI_BROWSER_REMOVE:
            if let r = resolvers.removeValue(forKey: key) { avahi_service_resolver_free(r) }
            emit(.removed(key), browsing: type)
        case AVAHI_BROWSER_FAILURE:
            lookupFailed(avahi_client_errno(avahi_service_browser_get_client(b)), "browsing \(type) failed", type)
        default:
            break
        }
    }

    /// Opens a resolver for `key`, answering with the browse result's own protocol for the address. It stays open
    /// (Avahi calls back whenever the TXT record or address changes) until the browser reports the service removed
    /// or `stopResolving(_:)` closes it.
    func openResolver(_ key: ServiceKey, _ c: OpaquePointer) {
        let proto = key.family.avahiProtocol
        if let r = avahi_service_resolver_new(
            c, key.interfaceIndex, proto, key.name, key.type, key.domain, proto, AvahiLookupFlags(0),
            resolverCallback, Unmanaged.passUnretained(self).toOpaque())
        {
            resolvers[key] = r
        } else {
            lookupFailed(avahi_client_errno(c), "resolving \(key)", key.type)
        }
    }

    func resolverEvent(
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
            emit(.resolved(record), browsing: type)
        case AVAHI_RESOLVER_FAILURE:
            // A timeout here usually means the service left before it could be resolved; the browser reports removal.
            logger.debug("resolving \(key) failed: \(String(cString: avahi_strerror(avahi_client_errno(client))))")
        default:
            break
        }
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

    var avahiProtocol: AvahiProtocol {
        switch self {
        case .ipv4: AvahiProtocol(AVAHI_PROTO_INET)
        case .ipv6: AvahiProtocol(AVAHI_PROTO_INET6)
        }
    }
}

// MARK: - C callbacks of browsers and resolvers: copy the C data into Swift values (poll thread, lock held).

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
