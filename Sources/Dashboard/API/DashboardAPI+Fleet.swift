import ControlProtocol
import Foundation

/// The fleet: the CLI's reads, commands, targets and the trajectory preview.
extension DashboardAPI {
    func status(_ input: Operations.Status.Input) async throws -> Operations.Status.Output {
        .ok(.init(body: .json(try await read(.status, \.status))))
    }

    func vehicles(_ input: Operations.Vehicles.Input) async throws -> Operations.Vehicles.Output {
        .ok(.init(body: .json(try await read(.vehicles, \.vehicles))))
    }

    func airspace(_ input: Operations.Airspace.Input) async throws -> Operations.Airspace.Output {
        .ok(.init(body: .json(try await read(.airspace, \.airspace))))
    }

    func sources(_ input: Operations.Sources.Input) async throws -> Operations.Sources.Output {
        .ok(.init(body: .json(try await read(.sources, \.sources))))
    }

    /// 404 while no origin is known.
    func origin(_ input: Operations.Origin.Input) async throws -> Operations.Origin.Output {
        let response = await backend.answer(.origin)
        if let origin = response.origin { return .ok(.init(body: .json(origin))) }
        return .notFound(.init(body: .json(Self.error(response.error ?? "origin: the node gave no answer"))))
    }

    func events(_ input: Operations.Events.Input) async throws -> Operations.Events.Output {
        var fields: [String: Any] = [:]
        if let after = input.query.after { fields["after"] = after }
        if let limit = input.query.limit { fields["limit"] = limit }
        let request: ControlRequest
        do {
            request = try Self.controlRequest("events", fields)
        } catch {
            return .badRequest(.init(body: .json(Self.error(error.description))))
        }
        return .ok(.init(body: .json(try await read(request, \.events))))
    }

    /// Answers once the command's final answer is in; a number no drone holds is the node's `rejected` answer.
    func send(_ input: Operations.Send.Input) async throws -> Operations.Send.Output {
        guard case .json(let body) = input.body else { throw APIRefusal(message: "send: no body", status: .badRequest) }
        var fields: [String: Any] = ["uav": input.path.uav, "args": body.args]
        if let timeoutMs = body.timeoutMs { fields["timeoutMs"] = timeoutMs }
        if let takeover = body.takeover { fields["takeover"] = takeover }
        let response: ControlResponse
        do {
            response = await backend.answer(try Self.controlRequest("send", fields))
        } catch {
            return .badRequest(.init(body: .json(Self.error(error.description))))
        }
        guard let report = response.command else {
            return .badRequest(.init(body: .json(Self.error(response.error ?? "send: the node gave no answer"))))
        }
        return .ok(.init(body: .json(report)))
    }

    func target(_ input: Operations.Target.Input) async throws -> Operations.Target.Output {
        guard case .json(let body) = input.body else {
            throw APIRefusal(message: "target: no body", status: .badRequest)
        }
        var fields: [String: Any] = [
            "latitude": body.latitude, "longitude": body.longitude, "altitude": body.altitude,
        ]
        if let uav = body.uav { fields["uav"] = uav }
        if let all = body.all { fields["all"] = all }
        if let follow = body.follow { fields["follow"] = follow }
        if let timeoutMs = body.timeoutMs { fields["timeoutMs"] = timeoutMs }
        let response: ControlResponse
        do {
            response = await backend.answer(try Self.controlRequest("target", fields))
        } catch {
            return .badRequest(.init(body: .json(Self.error(error.description))))
        }
        guard let report = response.target else {
            return .badRequest(.init(body: .json(Self.error(response.error ?? "target: the node gave no answer"))))
        }
        return .ok(.init(body: .json(report)))
    }

    /// The path the drone would fly (`TrajectoryPreview`); nothing is sent to it.
    func trajectoryPreview(_ input: Operations.TrajectoryPreview.Input) async throws
        -> Operations.TrajectoryPreview.Output
    {
        guard case .json(let body) = input.body else {
            throw APIRefusal(message: "trajectory-preview: no body", status: .badRequest)
        }
        let vehicles = try await read(.vehicles, \.vehicles)
        do throws(PreviewRefusal) {
            let waypoints = try TrajectoryPreview.waypoints(body.waypoints)
            return .ok(.init(body: .json(try TrajectoryPreview.plan(waypoints, for: input.path.uav, in: vehicles))))
        } catch {
            let body = Self.error(error.description)
            switch error.status {
            case 404: return .notFound(.init(body: .json(body)))
            case 409: return .conflict(.init(body: .json(body)))
            default: return .badRequest(.init(body: .json(body)))
            }
        }
    }
}
