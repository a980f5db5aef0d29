import Testing

@testable import Dashboard

/// `AccessControl`: sessions that expire when idle, logins limited per address and per account, bcrypt hashes.
@Suite struct AccessControlTests {
    let t0 = ContinuousClock.now
    let ops = DashboardAccount(name: "ops", role: .operator, passwordHash: "")
    let eyes = DashboardAccount(name: "eyes", role: .viewer, passwordHash: "")

    @Test func fiveFailuresCloseTheAddressAndTheAccountForTheRestOfTheMinute() {
        var a = AccessControl(accounts: [ops, eyes])
        for i in 0..<5 {
            #expect(a.gate(client: "10.0.0.9", name: "ops", now: t0 + .seconds(i)) == .open)
            a.failed(client: "10.0.0.9", name: "ops", now: t0 + .seconds(i))
        }
        let now = t0 + .seconds(10)
        // The first failure was 10 s ago: 50 s to wait, from that address for any account and for that account from
        // any address; another address trying another account is not held up.
        #expect(a.gate(client: "10.0.0.9", name: "ops", now: now) == .tooMany(retryAfter: .seconds(50)))
        #expect(a.gate(client: "10.0.0.9", name: "eyes", now: now) == .tooMany(retryAfter: .seconds(50)))
        #expect(a.gate(client: "10.0.0.7", name: "ops", now: now) == .tooMany(retryAfter: .seconds(50)))
        #expect(a.gate(client: "10.0.0.7", name: "eyes", now: now) == .open)
        // A minute after the first failure one try is free again (four remain in the window).
        #expect(a.gate(client: "10.0.0.9", name: "ops", now: t0 + .seconds(60)) == .open)
        a.failed(client: "10.0.0.9", name: "ops", now: t0 + .seconds(60))
        #expect(a.gate(client: "10.0.0.9", name: "ops", now: t0 + .seconds(60)) == .tooMany(retryAfter: .seconds(1)))
    }

    @Test func attemptsCheckedAtTheSameTimeCannotSlipPastTheLimit() {
        var a = AccessControl(accounts: [ops])
        // Five attempts begun before any password check ended: the sixth is refused already.
        for _ in 0..<5 { #expect(a.begin(client: "10.0.0.9", name: "ops", now: t0) == .open) }
        #expect(a.begin(client: "10.0.0.9", name: "ops", now: t0) == .tooMany(retryAfter: .seconds(60)))
        // One of them had the right password: it no longer counts, so one more try is open.
        a.succeeded(client: "10.0.0.9", name: "ops", begunAt: t0)
        #expect(a.begin(client: "10.0.0.9", name: "ops", now: t0 + .seconds(1)) == .open)
        // A right password on its own never counts against anyone.
        var b = AccessControl(accounts: [ops])
        for i in 0..<10 {
            let at = t0 + .seconds(i)
            #expect(b.begin(client: "laptop", name: "ops", now: at) == .open)
            b.succeeded(client: "laptop", name: "ops", begunAt: at)
        }
    }

    @Test func aLoginForgetsTheAccountsFailuresButNotTheAddresss() {
        var a = AccessControl(accounts: [ops, eyes])
        for _ in 0..<4 { a.failed(client: "attacker", name: "ops", now: t0) }
        for _ in 0..<4 { a.failed(client: "attacker", name: "eyes", now: t0) }
        // The attacker owns "eyes" and logs in: its count starts over, the address's does not.
        _ = a.open(eyes, token: "t", csrfToken: "c", now: t0)
        #expect(a.gate(client: "attacker", name: "eyes", now: t0) == .tooMany(retryAfter: .seconds(60)))
        #expect(a.gate(client: "elsewhere", name: "eyes", now: t0) == .open)
    }

    @Test func sessionsLastWhileUsedAndEndWhenIdleOrClosed() {
        var limits = AccessControl.Limits()
        limits.idle = .seconds(100)
        limits.sessions = 2
        var a = AccessControl(accounts: [ops, eyes], limits: limits)
        let s = a.open(ops, token: "one", csrfToken: "csrf-1", now: t0)
        #expect(s.role == .operator && s.csrfToken == "csrf-1" && s.name == "ops")
        // Used every 90 s it lives on; left alone 100 s it is gone.
        #expect(a.session(token: "one", now: t0 + .seconds(90)) != nil)
        #expect(a.session(token: "one", now: t0 + .seconds(180)) != nil)
        #expect(a.session(token: "one", now: t0 + .seconds(280)) == nil)
        #expect(a.session(token: "nobody", now: t0) == nil)
        // Closed: gone at once.
        _ = a.open(eyes, token: "two", csrfToken: "c", now: t0)
        a.close(token: "two")
        #expect(a.session(token: "two", now: t0) == nil)
        // At most two: a third login ends the one expiring first.
        _ = a.open(ops, token: "a", csrfToken: "c", now: t0)
        _ = a.open(ops, token: "b", csrfToken: "c", now: t0 + .seconds(1))
        _ = a.open(eyes, token: "c", csrfToken: "c", now: t0 + .seconds(2))
        #expect(a.openSessions == 2)
        #expect(a.session(token: "a", now: t0 + .seconds(3)) == nil)
        #expect(a.session(token: "c", now: t0 + .seconds(3))?.role == .viewer)
    }

    @Test func passwordsAreStoredAsBcryptHashesOnly() {
        let hash = DashboardPassword.hash("correct horse battery", cost: 4)
        #expect(DashboardAccount.isBcryptHash(hash) && hash.hasPrefix("$2b$04$") && !hash.contains("correct"))
        #expect(DashboardPassword.verify("correct horse battery", hash: hash))
        #expect(!DashboardPassword.verify("correct horse batterz", hash: hash))
        #expect(!DashboardAccount.isBcryptHash("correct horse battery"))
        #expect(!DashboardAccount.isBcryptHash("$2b$03$" + String(hash.dropFirst(7))))
        #expect(!DashboardAccount.isBcryptHash(String(hash.dropLast())))
        #expect(!DashboardAccount.isBcryptHash(String(hash.dropLast()) + "!"))
    }

    @Test func tokensAreFreshAndLong() {
        let tokens = Set((0..<100).map { _ in AccessGuard.randomToken() })
        #expect(tokens.count == 100 && tokens.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
    }
}
