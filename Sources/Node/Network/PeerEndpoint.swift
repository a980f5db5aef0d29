import Foundation
import NIOCore

/// A UDP endpoint written by a person or resolved by discovery: host, port and, for IPv6 link-local, the interface.
public struct PeerEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// Interface name or index for IPv6 scoped addresses ("eth0" or "3").
    public var scope: String?

    public init(host: String, port: Int, scope: String? = nil) {
        self.host = host
        self.port = port
        self.scope = scope
    }

    /// Parses "10.0.0.5:47800", "[fe80::1%eth0]:47800" or "[2001:db8::1]:47800".
    public init?(parsing text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = Int(portText), (1...65535).contains(port), !host.isEmpty else { return nil }
        if let pct = host.firstIndex(of: "%") {
            self.init(host: String(host[..<pct]), port: port, scope: String(host[host.index(after: pct)...]))
        } else {
            self.init(host: String(host), port: port)
        }
        guard (try? socketAddress()) != nil else { return nil }
    }

    public var description: String {
        host.contains(":") ? "[\(host)\(scope.map { "%\($0)" } ?? "")]:\(port)" : "\(host):\(port)"
    }

    /// The address to send to from FleetMesh's dual-stack IPv6 socket: IPv4 becomes IPv4-mapped IPv6.
    public func socketAddress() throws -> SocketAddress {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return try SocketAddress(ipAddress: "::ffff:\(host)", port: port)
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else {
            throw PeerEndpointError(text: description, problem: "not a numeric IPv4 or IPv6 address")
        }
        var sa = sockaddr_in6()
        sa.sin6_family = sa_family_t(AF_INET6)
        sa.sin6_port = in_port_t(UInt16(port).bigEndian)
        sa.sin6_addr = v6
        if let scope {
            if let index = UInt32(scope) {
                sa.sin6_scope_id = index
            } else {
                let index = if_nametoindex(scope)
                guard index != 0 else {
                    throw PeerEndpointError(text: description, problem: "no interface named \(scope)")
                }
                sa.sin6_scope_id = index
            }
        }
        return SocketAddress(sa, host: host)
    }
}

/// A peer endpoint that cannot be turned into a socket address.
public struct PeerEndpointError: Error, CustomStringConvertible {
    public let text: String
    public let problem: String
    public var description: String { "\(text): \(problem)" }
}

extension SocketAddress {
    /// How a person writes this address: IPv4-mapped IPv6 shown as plain IPv4, link-local with its interface.
    public var displayString: String {
        guard case .v6(let v6) = self else { return description(ipv4: true) }
        return description(ipv4: false, scope: v6.address.sin6_scope_id)
    }

    private func description(ipv4: Bool, scope: UInt32 = 0) -> String {
        let ip = ipAddress ?? "?"
        let p = port ?? 0
        if ip.hasPrefix("::ffff:"), !ip.dropFirst(7).contains(":") { return "\(ip.dropFirst(7)):\(p)" }
        if ipv4 { return "\(ip):\(p)" }
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        let scopeText =
            scope == 0
            ? ""
            : "%"
                + (if_indextoname(scope, &name) != nil
                    ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    : String(scope))
        return "[\(ip)\(scopeText)]:\(p)"
    }
}
