import Foundation
import Hummingbird

/// Logging in and out (docs/DASHBOARD.md §Accounts): `POST /api/v1/login` with `{"name", "password"}` answers the
/// account's role and the CSRF token and sets an HttpOnly, SameSite=Strict session cookie; `GET /api/v1/session` says
/// who is logged in (or that the dashboard needs no login); `POST /api/v1/logout` ends the session.
extension DashboardService {
    /// `GET /api/v1/session` and the login's answer.
    struct SessionReport: Codable {
        /// Whether this dashboard has accounts (without, it listens on loopback only and anyone there may command).
        var loginRequired: Bool
        var name: String?
        var role: DashboardRole
        /// Sent back in `X-CSRF-Token` with every state-changing request.
        var csrfToken: String?
    }

    func addLogin(to router: Router<DashboardRequestContext>, access: AccessGuard) {
        let api = router.group("/api/v1")
        // Over HTTPS the cookie is marked Secure: a browser never sends it over plain HTTP.
        let secure = configuration.tls != nil
        api.get("session") { _, context -> Response in
            guard let s = context.session else {
                return Self.json(SessionReport(loginRequired: false, name: nil, role: .operator, csrfToken: nil))
            }
            return Self.json(SessionReport(loginRequired: true, name: s.name, role: s.role, csrfToken: s.csrfToken))
        }
        api.post("login") { [logger] request, context -> Response in
            guard access.isRequired else {
                return Self.problem(
                    "this dashboard has no accounts ([[dashboard.accounts]]): there is nothing to log in to",
                    status: .notFound)
            }
            guard let object = try await Self.jsonObject(request, upTo: 4096) else {
                return Self.problem("malformed JSON: expected {\"name\": …, \"password\": …}", status: .badRequest)
            }
            if let key = object.keys.sorted().first(where: { $0 != "name" && $0 != "password" }) {
                return Self.problem("login: unknown field \"\(key)\" (login takes name, password)", status: .badRequest)
            }
            guard let name = object["name"] as? String, !name.isEmpty else {
                return Self.problem("name: missing (a string is required)", status: .badRequest)
            }
            guard let password = object["password"] as? String else {
                return Self.problem("password: missing (a string is required)", status: .badRequest)
            }
            switch await access.login(name: name, password: password, client: context.clientAddress) {
            case .tooMany(let wait):
                let seconds = Int((wait / .seconds(1)).rounded(.up))
                logger.warning(
                    "dashboard: login as \"\(name)\" from \(context.clientAddress) refused: too many failures")
                var response = Self.problem(
                    "too many failed logins from this address or for this account: try again in \(seconds) s",
                    status: .tooManyRequests)
                response.headers[.retryAfter] = String(seconds)
                return response
            case .refused:
                logger.notice("dashboard: failed login as \"\(name)\" from \(context.clientAddress)")
                return Self.problem("wrong name or password", status: .unauthorized)
            case .opened(let token, let session):
                logger.info(
                    "dashboard: \(session.name) (\(session.role.rawValue)) logged in from \(context.clientAddress)")
                var response = Self.json(
                    SessionReport(
                        loginRequired: true, name: session.name, role: session.role, csrfToken: session.csrfToken))
                response.setCookie(
                    Cookie(
                        name: access.cookieName, value: token, path: "/", secure: secure, httpOnly: true,
                        sameSite: .strict))
                return response
            }
        }
        api.post("logout") { request, context -> Response in
            if let token = request.cookies[access.cookieName]?.value { await access.logout(token: token) }
            var response = Self.json(["loggedOut": context.session?.name ?? ""])
            response.setCookie(
                Cookie(
                    name: access.cookieName, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true,
                    sameSite: .strict))
            return response
        }
    }
}
