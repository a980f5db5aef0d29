import Foundation
import NIOSSL
import PostgresNIO

/// Where `[log] postgres` points: a libpq-style URL, `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, with
/// `?host=/run/postgresql` for a Unix socket directory and `?sslmode=disable|prefer|require` (default `prefer` over
/// TCP). The password never appears in `display`, which names the target in status, events and the outbox.
public struct PostgresTarget: Sendable, Hashable {
    public enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    public var username: String
    public var password: String?
    public var database: String
    public var host: String?
    public var port: Int
    /// A Unix socket directory (the socket is `.s.PGSQL.PORT` in it).
    public var socketDirectory: String?
    public var tls: TLSMode

    /// Parses the URL; the error says which part is wrong.
    public init(url: String) throws(PostgresTargetError) {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw PostgresTargetError("not a postgres:// URL (write postgres://USER@HOST[:PORT]/DATABASE)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresTargetError("no user name (write postgres://USER@HOST/DATABASE)")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresTargetError("no database name after the host (write postgres://USER@HOST/DATABASE)")
        }
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        host = components.host.flatMap { $0.isEmpty ? nil : $0 }
        port = components.port ?? 5432
        var tls: TLSMode?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "host":
                guard let dir = item.value, dir.hasPrefix("/") else {
                    throw PostgresTargetError("host= must be a socket directory (an absolute path)")
                }
                socketDirectory = dir
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw PostgresTargetError("sslmode must be disable, prefer or require")
                }
                tls = mode
            default:
                throw PostgresTargetError("unknown parameter \"\(item.name)\" (known: host, sslmode)")
            }
        }
        guard host != nil || socketDirectory != nil else {
            throw PostgresTargetError("no host (write postgres://USER@HOST/DATABASE, or ?host=/socket/directory)")
        }
        if socketDirectory != nil, tls == .require {
            throw PostgresTargetError("sslmode=require needs a TCP host, not a Unix socket")
        }
        self.tls = tls ?? (socketDirectory == nil ? .prefer : .disable)
    }

    /// The target without its password: `user@host:port/database` or `user@/dir/.s.PGSQL.port/database`.
    public var display: String {
        if let dir = socketDirectory { return "\(username)@\(socketPath(dir))/\(database)" }
        return "\(username)@\(host ?? ""):\(port)/\(database)"
    }

    func socketPath(_ directory: String) -> String { "\(directory)/.s.PGSQL.\(port)" }

    /// postgres-nio's configuration for one connection.
    func configuration(connectTimeout: Duration) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let dir = socketDirectory {
            configuration = .init(
                unixSocketPath: socketPath(dir), username: username, password: password, database: database)
        } else {
            let tlsConfiguration: PostgresConnection.Configuration.TLS
            switch tls {
            case .disable: tlsConfiguration = .disable
            case .prefer: tlsConfiguration = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tlsConfiguration = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            configuration = .init(
                host: host ?? "localhost", port: port, username: username, password: password, database: database,
                tls: tlsConfiguration)
        }
        let (seconds, attoseconds) = connectTimeout.components
        configuration.options.connectTimeout = .milliseconds(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        return configuration
    }
}

/// A `[log] postgres` URL that cannot be used, and why.
public struct PostgresTargetError: Error, CustomStringConvertible, Sendable {
    public let problem: String
    init(_ problem: String) { self.problem = problem }
    public var description: String { problem }
}
