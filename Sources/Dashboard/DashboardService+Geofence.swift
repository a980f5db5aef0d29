import ControlProtocol
import Hummingbird

/// The geofence endpoints (docs/DASHBOARD.md): read the fence in force and which one every node uses, set a new one
/// or clear it (operators; the access middleware's CSRF and JSON rules apply as to every change). Each is the
/// control request `fleetmesh geofence` sends, so the node's own checks name any field that is wrong.
extension DashboardService {
    func addGeofence(to router: Router<DashboardRequestContext>) {
        let backend = self.backend
        let api = router.group("/api/v1")
        api.get("geofence") { _, _ in Self.answer(await backend.answer(.geofence), notFoundWhenError: true) }
        api.post("geofence") { request, _ -> Response in
            try await Self.relay(request, as: "setGeofence", adding: [:], to: backend)
        }
        api.post("geofence/clear") { request, _ -> Response in
            try await Self.relay(request, as: "clearGeofence", adding: [:], to: backend)
        }
    }
}
