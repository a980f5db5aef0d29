/// The address family of a resolved DNS-SD service address.
public enum AddressFamily: String, Sendable, Codable {
    case ipv4, ipv6
}

/// Identifies one browse result: the same service seen on one interface over one protocol.
public struct ServiceKey: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var type: String
    public var domain: String
    public var interfaceIndex: Int32
    public var family: AddressFamily

    public init(name: String, type: String, domain: String, interfaceIndex: Int32, family: AddressFamily) {
        self.name = name
        self.type = type
        self.domain = domain
        self.interfaceIndex = interfaceIndex
        self.family = family
    }

    public var description: String { "'\(name)' \(type) on if\(interfaceIndex)/\(family.rawValue)" }
}

/// A resolved DNS-SD service: its address, port and TXT record, copied out of Avahi's C structures.
public struct ServiceRecord: Sendable, Equatable {
    public var key: ServiceKey
    public var hostName: String
    /// The numeric address, without scope (for IPv6 link-local, `interfaceIndex` is the scope).
    public var address: String
    public var port: UInt16
    public var txt: [String: String]
    /// Published by this machine (any process on it).
    public var isLocal: Bool
    /// Published by this very process.
    public var isOwn: Bool

    public init(
        key: ServiceKey, hostName: String, address: String, port: UInt16, txt: [String: String], isLocal: Bool,
        isOwn: Bool
    ) {
        self.key = key
        self.hostName = hostName
        self.address = address
        self.port = port
        self.txt = txt
        self.isLocal = isLocal
        self.isOwn = isOwn
    }

    /// Whether the address is an IPv6 link-local one, which needs the interface as its scope.
    public var isLinkLocal: Bool { key.family == .ipv6 && address.lowercased().hasPrefix("fe80:") }
}

/// A service this process publishes.
public struct ServiceAdvertisement: Sendable, Equatable {
    public var name: String
    public var type: String
    public var port: UInt16
    public var txt: [String: String]

    public init(name: String, type: String, port: UInt16, txt: [String: String]) {
        self.name = name
        self.type = type
        self.port = port
        self.txt = txt
    }
}

/// What the discovery service reports, in the order Avahi reported it.
public enum DiscoveryEvent: Sendable, Equatable {
    /// The avahi-daemon is reachable and the client is running.
    case daemonAvailable
    /// The avahi-daemon is not reachable (absent at start or gone); the client keeps waiting for it.
    case daemonUnavailable(reason: String)
    /// The advertisement was registered under `name` (possibly an alternative after a collision).
    case published(name: String)
    /// The advertised name was taken on the link; it is now published under `to`.
    case renamed(from: String, to: String)
    /// Publishing failed; the reason is Avahi's error text.
    case publishFailed(reason: String)
    /// A browse result appeared (resolved at once only for subscribers that asked for it).
    case found(ServiceKey)
    /// A service was resolved, or its TXT record or address changed.
    case resolved(ServiceRecord)
    /// A service went away (goodbye packet or expiry).
    case removed(ServiceKey)
    /// Browsing or resolving failed; the reason is Avahi's error text.
    case lookupFailed(reason: String)
}
