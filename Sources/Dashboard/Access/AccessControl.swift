/// Who is logged in to the dashboard, and who has tried too often: a pure value with time injected, which the HTTP
/// layer asks on every request. Passwords are checked outside it (bcrypt is slow by design).
public struct AccessControl: Sendable {
    public typealias Instant = ContinuousClock.Instant

    /// A logged-in browser: the account it is, and the token it must send with every state-changing request.
    public struct Session: Sendable, Equatable {
        public var name: String
        public var role: DashboardRole
        public var csrfToken: String
        public var expiresAt: Instant
    }

    /// Whether a login may be tried now.
    public enum LoginGate: Sendable, Equatable {
        case open
        /// Too many failures from this client or for this account lately: the next try is allowed after this long.
        case tooMany(retryAfter: Duration)
    }

    /// The limits.
    public struct Limits: Sendable {
        /// A session ends after this long without a request.
        public var idle: Duration = .seconds(12 * 3600)
        /// Failed logins allowed per client address, and per account name, within `failureWindow`.
        public var failures = 5
        public var failureWindow: Duration = .seconds(60)
        /// Open sessions kept at most (the one expiring first goes).
        public var sessions = 256

        public init() {}
    }

    public let limits: Limits
    private let accounts: [String: DashboardAccount]
    private var sessions: [String: Session] = [:]
    private var failures: [String: [Instant]] = [:]

    public init(accounts: [DashboardAccount], limits: Limits = .init()) {
        self.accounts = Dictionary(accounts.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.limits = limits
    }

    /// Whether any account exists (with none, the dashboard is open: it then listens on loopback only).
    public var isRequired: Bool { !accounts.isEmpty }

    public func account(named name: String) -> DashboardAccount? { accounts[name] }

    /// Whether `client` may try to log in as `name` now.
    public mutating func gate(client: String, name: String, now: Instant) -> LoginGate {
        var wait: Duration = .zero
        for key in [Self.clientKey(client), Self.accountKey(name)] {
            let recent = prune(key, now: now)
            if recent.count >= limits.failures, let oldest = recent.first {
                wait = max(wait, oldest + limits.failureWindow - now)
            }
        }
        return wait > .zero ? .tooMany(retryAfter: wait) : .open
    }

    /// Starts a login attempt by `client` as `name`: refused when too many failed lately; otherwise it counts as a
    /// failure until `succeeded` says otherwise, so attempts checked at the same time (each waits a quarter of a
    /// second for bcrypt) cannot slip past the limit together.
    public mutating func begin(client: String, name: String, now: Instant) -> LoginGate {
        let gate = gate(client: client, name: name, now: now)
        if gate == .open { failed(client: client, name: name, now: now) }
        return gate
    }

    /// The attempt `begin` counted at `begunAt` had the right password: it is no failure after all.
    public mutating func succeeded(client: String, name: String, begunAt: Instant) {
        for key in [Self.clientKey(client), Self.accountKey(name)] {
            if let i = failures[key]?.lastIndex(of: begunAt) { failures[key]!.remove(at: i) }
        }
    }

    /// A failed login by `client` as `name`.
    public mutating func failed(client: String, name: String, now: Instant) {
        for key in [Self.clientKey(client), Self.accountKey(name)] {
            failures[key, default: []].append(now)
            // Only the last `failures` matter to the gate.
            if failures[key]!.count > limits.failures { failures[key]!.removeFirst() }
        }
    }

    /// A successful login: a session for `account` under `token`; the account's failures are forgotten (the
    /// client's are not: a valid account must not reset the count of guesses at another).
    public mutating func open(_ account: DashboardAccount, token: String, csrfToken: String, now: Instant) -> Session {
        failures[Self.accountKey(account.name)] = nil
        sessions = sessions.filter { $0.value.expiresAt > now }
        while sessions.count >= limits.sessions,
            let first = sessions.min(by: { $0.value.expiresAt < $1.value.expiresAt })
        {
            sessions[first.key] = nil
        }
        let session = Session(
            name: account.name, role: account.role, csrfToken: csrfToken, expiresAt: now + limits.idle)
        sessions[token] = session
        return session
    }

    /// The session behind `token`, its idle time starting over; nil if there is none or it expired.
    public mutating func session(token: String, now: Instant) -> Session? {
        guard var s = sessions[token] else { return nil }
        guard s.expiresAt > now else {
            sessions[token] = nil
            return nil
        }
        s.expiresAt = now + limits.idle
        sessions[token] = s
        return s
    }

    /// Logs `token` out.
    public mutating func close(token: String) { sessions[token] = nil }

    /// How many sessions are open (expired ones may still be counted until they are next looked at).
    public var openSessions: Int { sessions.count }

    private mutating func prune(_ key: String, now: Instant) -> [Instant] {
        let recent = (failures[key] ?? []).filter { now - $0 < limits.failureWindow }
        failures[key] = recent.isEmpty ? nil : recent
        return recent
    }

    private static func clientKey(_ client: String) -> String { "client " + client }
    private static func accountKey(_ name: String) -> String { "account " + name }
}
