/// Logging in and out (docs/DASHBOARD.md §Accounts; the handlers are `DashboardAPI`'s).
extension DashboardService {
    /// `GET /api/v1/session` and the login's answer.
    struct SessionReport: Codable, Hashable, Sendable {
        /// Whether this dashboard has accounts (without, it listens on loopback only and anyone there may command).
        var loginRequired: Bool
        var name: String?
        var role: DashboardRole
        /// Sent back in `X-CSRF-Token` with every state-changing request.
        var csrfToken: String?
    }
}
