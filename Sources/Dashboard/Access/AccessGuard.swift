import NIOPosix

/// The shell around `AccessControl`: its one copy, the clock, fresh random tokens, and bcrypt checks on NIO's thread
/// pool (a check takes about a quarter of a second and must not hold up anything else).
actor AccessGuard {
    private var control: AccessControl
    private let clock: ContinuousClock
    /// Checked against when the account does not exist, so a wrong name takes as long as a wrong password.
    private var decoyHash: String?

    init(accounts: [DashboardAccount], clock: ContinuousClock) {
        control = AccessControl(accounts: accounts)
        isRequired = control.isRequired
        self.clock = clock
    }

    nonisolated let cookieName = "fleetmesh_session"

    /// Whether any account exists (fixed for the dashboard's life).
    nonisolated let isRequired: Bool

    /// What a login attempt got.
    enum LoginResult {
        case opened(token: String, session: AccessControl.Session)
        case refused
        case tooMany(retryAfter: Duration)
    }

    func login(name: String, password: String, client: String) async -> LoginResult {
        // Counted as a failure before the password is checked (this actor runs other logins while bcrypt works).
        let begun = clock.now
        if case .tooMany(let wait) = control.begin(client: client, name: name, now: begun) {
            return .tooMany(retryAfter: wait)
        }
        let account = control.account(named: name)
        let hash: String
        if let account {
            hash = account.passwordHash
        } else {
            if decoyHash == nil { decoyHash = try? await Self.offload { DashboardPassword.hash("decoy") } }
            hash = decoyHash ?? ""
        }
        let matches = (try? await Self.offload { DashboardPassword.verify(password, hash: hash) }) ?? false
        guard let account, matches else { return .refused }
        control.succeeded(client: client, name: name, begunAt: begun)
        let token = Self.randomToken()
        let session = control.open(account, token: token, csrfToken: Self.randomToken(), now: clock.now)
        return .opened(token: token, session: session)
    }

    func session(token: String) -> AccessControl.Session? { control.session(token: token, now: clock.now) }

    func logout(token: String) { control.close(token: token) }

    /// 32 random bytes from the system's generator (getrandom), as 64 hex digits.
    static func randomToken() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var g = SystemRandomNumberGenerator()
        var out: [UInt8] = []
        for _ in 0..<32 {
            let b = UInt8.random(in: 0...255, using: &g)
            out += [digits[Int(b >> 4)], digits[Int(b & 15)]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func offload<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive { work() }
    }
}
