import ControlProtocol
import Foundation

/// One command to several drones that start it at the same moment (the control request `group`, `fleetmesh send
/// --together`), answered once every drone's final answer is in.
extension DashboardAPI {
    func group(_ input: Operations.Group.Input) async throws -> Operations.Group.Output {
        guard case .json(let body) = input.body else {
            throw APIRefusal(message: "group: no body", status: .badRequest)
        }
        var fields: [String: Any] = ["uavs": body.uavs, "args": body.args]
        if let leadMs = body.leadMs { fields["leadMs"] = leadMs }
        if let timeoutMs = body.timeoutMs { fields["timeoutMs"] = timeoutMs }
        if let takeover = body.takeover { fields["takeover"] = takeover }
        let response: ControlResponse
        do {
            response = await backend.answer(try Self.controlRequest("group", fields))
        } catch {
            return .badRequest(.init(body: .json(Self.error(error.description))))
        }
        guard let report = response.group else {
            return .badRequest(.init(body: .json(Self.error(response.error ?? "group: the node gave no answer"))))
        }
        return .ok(.init(body: .json(report)))
    }
}
