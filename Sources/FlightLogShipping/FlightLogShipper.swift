import FlightLog
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// Ships one flight log to one PostgreSQL server. The local log is the outbox: a batch is read from it, stored on the
/// server in one transaction, and only then marked shipped locally. A batch stored but not marked (the node killed
/// in between, the connection dropped before the commit's answer arrived) is sent again and the server keeps its
/// first copy: every row arrives exactly once however often the connection drops.
public struct FlightLogShipper: Sendable {
    public let target: PostgresTarget
    public let store: FlightLogStore
    let logger: Logger
    /// Rows of each table per batch.
    let batchRows: Int
    /// A batch not stored within this is given up (the connection closed) and sent again.
    let batchTimeout: Duration

    public init(
        target: PostgresTarget, store: FlightLogStore, logger: Logger, batchRows: Int = 500,
        batchTimeout: Duration = .seconds(10)
    ) {
        self.target = target
        self.store = store
        self.logger = logger
        self.batchRows = batchRows
        self.batchTimeout = batchTimeout
    }

    /// One connection to the server.
    public struct Session: Sendable {
        let connection: PostgresConnection

        public func close() async { try? await connection.close() }

        /// Runs `body`, or closes the connection and throws if it takes longer than `limit` (a server gone without
        /// closing the connection, its host unplugged, would otherwise leave the shipper waiting on TCP's timeouts).
        /// A connection the server already closed fails at once.
        func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T
        {
            guard !connection.isClosed else { throw ConnectionClosed() }
            let connection = connection
            // Raced rather than awaited in a task group: a query on a connection the server dropped may never
            // answer, and the shipper must not wait for it.
            return try await withCheckedThrowingContinuation { continuation in
                let pending = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(continuation)
                @Sendable func finish(_ result: Result<T, any Error>) {
                    pending.withLockedValue { c in
                        c?.resume(with: result)
                        c = nil
                    }
                }
                Task {
                    do { finish(.success(try await body())) } catch { finish(.failure(error)) }
                }
                Task {
                    try? await Task.sleep(for: limit)
                    guard pending.withLockedValue({ $0 != nil }) else { return }
                    try? await connection.close()
                    finish(.failure(TimedOut(limit: limit)))
                }
            }
        }
    }

    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the server closed the connection" }
    }

    struct TimedOut: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "no answer within \(limit); the connection is closed" }
    }

    /// Connects, making the server's tables if they are missing, and records which node this log belongs to.
    public func connect(timeout: Duration = .seconds(5)) async throws(FlightLogShippingError) -> Session {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: try target.configuration(connectTimeout: timeout), id: 1, logger: logger)
        } catch {
            throw FlightLogShippingError(target: target, problem: "cannot connect: \(Self.describe(error))")
        }
        do {
            let log = try store.logIdentity()
            let run = try store.runs().last?.run
            try await connection.withTransaction(logger: logger) { c in
                // One node at a time makes the tables (CREATE ... IF NOT EXISTS races with itself).
                try await c.query("SELECT pg_advisory_xact_lock(6170617)", logger: logger)
                for statement in PostgresLogSchema.statements {
                    try await c.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let version =
                    try await c.query("SELECT version FROM fleetmesh.schema_version", logger: logger)
                    .collect().first?.decode(Int.self) ?? 0
                guard version <= PostgresLogSchema.version else {
                    throw FlightLogShippingError(
                        target: target,
                        problem:
                            "the server's fleetmesh tables are version \(version), newer than this node's \(PostgresLogSchema.version): update FleetMesh"
                    )
                }
                try await c.query(
                    """
                    INSERT INTO fleetmesh.log (log, node, name, role) VALUES (\(log), \(run?.node ?? ""), \(run?.name ?? ""), \(run?.role ?? ""))
                        ON CONFLICT (log) DO UPDATE SET name = excluded.name, role = excluded.role
                    """, logger: logger)
            }
        } catch {
            try? await connection.close()
            throw FlightLogShippingError(target: target, problem: "cannot prepare its tables: \(Self.describe(error))")
        }
        return Session(connection: connection)
    }

    /// Ships the next batch over `connection`; returns it (empty: the server has everything).
    public func shipNext(on session: Session) async throws(FlightLogShippingError) -> OutboxBatch {
        let batch: OutboxBatch
        do {
            batch = try store.outboxBatch(target: target.display, limit: batchRows)
        } catch {
            throw FlightLogShippingError(target: target, problem: "cannot read the local log: \(error)")
        }
        guard batch.rowCount > 0 else { return batch }
        do {
            let logger = logger
            try await session.within(batchTimeout) {
                try await session.connection.withTransaction(logger: logger) { c in
                    for part in batch.parts {
                        var binds = PostgresBindings(capacity: part.rows.count * (part.table.columns.count + 2))
                        for row in part.rows {
                            binds.append(batch.log)
                            for value in row {
                                switch value {
                                case .integer(let v): binds.append(v)
                                case .real(let v): binds.append(v)
                                case .text(let v): binds.append(v)
                                case .null: binds.appendNull()
                                }
                            }
                        }
                        try await c.query(
                            PostgresQuery(
                                unsafeSQL: PostgresLogSchema.insert(part.table, rows: part.rows.count), binds: binds),
                            logger: logger)
                    }
                }
            }
        } catch {
            throw FlightLogShippingError(target: target, problem: Self.describe(error))
        }
        do {
            try await store.markShipped(batch, target: target.display)
        } catch {
            throw FlightLogShippingError(target: target, problem: "cannot mark a batch shipped: \(error)")
        }
        return batch
    }

    /// The server's own words (postgres-nio's descriptions hide them).
    static func describe(_ error: any Error) -> String {
        if let e = error as? FlightLogShippingError { return e.problem }
        if let e = error as? PSQLError {
            if let message = e.serverInfo?[.message] {
                return "\(message) (SQLSTATE \(e.serverInfo?[.sqlState] ?? "?"))"
            }
            if let underlying = e.underlying { return describe(underlying) }
            return "\(e.code)"
        }
        if let e = error as? PostgresTransactionError {
            if let e = e.closureError { return describe(e) }
            if let e = e.beginError { return describe(e) }
            if let e = e.commitError { return describe(e) }
        }
        if let e = error as? IOError { return e.description }
        if let e = error as? TimedOut { return e.description }
        if let e = error as? ConnectionClosed { return e.description }
        return "\(error)"
    }
}

/// Shipping to a server failed, and why (the node keeps logging locally and tries again).
public struct FlightLogShippingError: Error, CustomStringConvertible, Sendable {
    public let target: String
    public let problem: String

    init(target: PostgresTarget, problem: String) {
        self.target = target.display
        self.problem = problem
    }

    public var description: String { "shipping the flight log to \(target): \(problem)" }
}
