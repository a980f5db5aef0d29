import Foundation
import Hummingbird

/// Logging in and out (docs/DASHBOARD.md §Accounts): the login answers the account's role and the CSRF token and sets
/// an HttpOnly, SameSite=Strict session cookie; `session` says who is logged in (or that the dashboard needs no login).
extension DashboardAPI {
    func session(_ input: Operations.Session.Input) async throws -> Operations.Session.Output {
        guard let s = APICaller.current.session else {
            return .ok(.init(body: .json(.init(loginRequired: false, name: nil, role: .operator, csrfToken: nil))))
        }
        return .ok(.init(body: .json(.init(loginRequired: true, name: s.name, role: s.role, csrfToken: s.csrfToken))))
    }

    func login(_ input: Operations.Login.Input) async throws -> Operations.Login.Output {
        guard access.isRequired else {
            return .notFound(
                .init(
                    body: .json(
                        Self.error(
                            "this dashboard has no accounts ([[dashboard.accounts]]): there is nothing to log in to"))))
        }
        guard case .json(let body) = input.body else {
            throw APIRefusal(message: "login: no body", status: .badRequest)
        }
        guard !body.name.isEmpty else {
            return .badRequest(.init(body: .json(Self.error("name: missing (a string is required)"))))
        }
        let (name, client) = (body.name, APICaller.current.address)
        switch await access.login(name: name, password: body.password, client: client) {
        case .tooMany(let wait):
            let seconds = Int((wait / .seconds(1)).rounded(.up))
            logger.warning("dashboard: login as \"\(name)\" from \(client) refused: too many failures")
            return .tooManyRequests(
                .init(
                    headers: .init(retryAfter: seconds),
                    body: .json(
                        Self.error(
                            "too many failed logins from this address or for this account: try again in \(seconds) s"))
                ))
        case .refused:
            logger.notice("dashboard: failed login as \"\(name)\" from \(client)")
            return .unauthorized(.init(body: .json(Self.error("wrong name or password"))))
        case .opened(let token, let session):
            logger.info("dashboard: \(session.name) (\(session.role.rawValue)) logged in from \(client)")
            let cookie = Cookie(
                name: access.cookieName, value: token, path: "/", secure: secureCookies, httpOnly: true,
                sameSite: .strict)
            return .ok(
                .init(
                    headers: .init(setCookie: cookie.description),
                    body: .json(
                        .init(
                            loginRequired: true, name: session.name, role: session.role, csrfToken: session.csrfToken)))
            )
        }
    }

    /// Over HTTPS the session cookie is marked Secure: a browser never sends it over plain HTTP.
    var secureCookies: Bool { configuration.tls != nil }

    /// Ends the session on the station and clears the cookie.
    func logout(_ input: Operations.Logout.Input) async throws -> Operations.Logout.Output {
        let caller = APICaller.current
        if let token = caller.sessionToken { await access.logout(token: token) }
        let cleared = Cookie(
            name: access.cookieName, value: "", maxAge: 0, path: "/", secure: secureCookies, httpOnly: true,
            sameSite: .strict)
        return .ok(
            .init(
                headers: .init(setCookie: cleared.description),
                body: .json(.init(loggedOut: caller.session?.name ?? ""))))
    }
}
