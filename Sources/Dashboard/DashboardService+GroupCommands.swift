import ControlProtocol
import Foundation
import Hummingbird

/// `POST /api/v1/group-commands`: one command to several drones that start it at the same moment (the control
/// protocol's `group`, `fleetmesh send --together`), answered once every drone's final answer is in.
extension DashboardService {
    func addGroupCommands(to router: Router<DashboardRequestContext>) {
        let backend = self.backend
        router.post("/api/v1/group-commands") { request, _ -> Response in
            let takes = Self.takes("group")
            guard let object = try await Self.jsonObject(request, upTo: Self.maximumBody) else {
                return Self.problem("malformed JSON: expected one object (group takes \(takes))", status: .badRequest)
            }
            if let key = object.keys.sorted().first(where: { object[$0] is NSNull }) {
                return Self.problem(
                    "group: \(key) is null (leave a field out to use its default)", status: .badRequest)
            }
            if let key = ["command", "v"].first(where: { object[$0] != nil }) {
                return Self.problem("group: unknown field \"\(key)\" (group takes \(takes))", status: .badRequest)
            }
            var fields = object
            fields["command"] = "group"
            let group: ControlRequest
            do {
                group = try JSONDecoder().decode(
                    ControlRequest.self, from: try JSONSerialization.data(withJSONObject: fields))
            } catch let error as ControlRequestError {
                return Self.problem(error.description, status: .badRequest)
            } catch {
                return Self.problem("malformed JSON: \(error)", status: .badRequest)
            }
            let answer = await backend.answer(group)
            if let error = answer.error { return Self.problem(error, status: .badRequest) }
            guard let report = answer.group else {
                return Self.problem("the node gave no answer", status: .internalServerError)
            }
            return Self.json(report)
        }
    }
}
