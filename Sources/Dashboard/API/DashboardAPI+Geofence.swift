import ControlProtocol
import Foundation

/// The geofence (docs/DASHBOARD.md): the fence in force and which one every node flies; set a new one or clear it
/// (operators). Each is the control request `fleetmesh geofence` sends, so the node's own checks name a wrong field.
extension DashboardAPI {
    func geofence(_ input: Operations.Geofence.Input) async throws -> Operations.Geofence.Output {
        .ok(.init(body: .json(try await read(.geofence, \.geofence))))
    }

    /// Announces the fence to the mesh; the answer is the fence in force at once.
    func setGeofence(_ input: Operations.SetGeofence.Input) async throws -> Operations.SetGeofence.Output {
        guard case .json(let body) = input.body else {
            throw APIRefusal(message: "setGeofence: no body", status: .badRequest)
        }
        var fields: [String: Any] = ["corners": body.corners]
        if let floor = body.floor { fields["floor"] = floor }
        if let ceiling = body.ceiling { fields["ceiling"] = ceiling }
        switch await change("setGeofence", fields) {
        case .success(let report): return .ok(.init(body: .json(report)))
        case .failure(let refusal): return .badRequest(.init(body: .json(Self.error(refusal.message))))
        }
    }

    /// Announces that there is no fence.
    func clearGeofence(_ input: Operations.ClearGeofence.Input) async throws -> Operations.ClearGeofence.Output {
        switch await change("clearGeofence", [:]) {
        case .success(let report): return .ok(.init(body: .json(report)))
        case .failure(let refusal): return .badRequest(.init(body: .json(Self.error(refusal.message))))
        }
    }

    /// Asks the node for a geofence change: its report, or the refusal naming the field.
    private func change(_ command: String, _ fields: [String: Any]) async -> Result<GeofenceReport, APIRefusal> {
        do {
            let response = await backend.answer(try Self.controlRequest(command, fields))
            guard let report = response.geofence else {
                return .failure(
                    APIRefusal(message: response.error ?? "\(command): the node gave no answer", status: .badRequest))
            }
            return .success(report)
        } catch {
            return .failure(APIRefusal(message: error.description, status: .badRequest))
        }
    }
}
