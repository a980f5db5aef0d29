import ControlProtocol
import Coordinator
import Foundation

/// Answers control requests from the node's parts. The request was checked field by field when it was decoded;
/// what only the node can check gets a precise error here, and the node keeps running.
enum ControlRequestHandler {
    /// One control request.
    static func handle(
        _ request: ControlRequest, shell coordinator: NodeShell, targetSources: TargetSourceSubscription?
    ) async -> ControlResponse {
        switch request {
        case .status, .peers:
            return ControlResponse(status: await coordinator.status())
        case .vehicles:
            return ControlResponse(vehicles: await coordinator.vehicles())
        case .airspace:
            return ControlResponse(airspace: await coordinator.airspace())
        case .sources:
            return ControlResponse(
                sources: await targetSources?.report()
                    ?? TargetSourcesReport(subscribing: false, port: nil, sources: [], rejected: [:]))
        case .origin:
            guard let origin = await coordinator.origin() else {
                return ControlResponse(
                    error: "origin: no map origin known yet (a station announces one from its [mission] origin)")
            }
            return ControlResponse(origin: origin)
        case .send(let send):
            let command: Command
            do {
                command = try FleetCommandParser.parse(send.args)
            } catch {
                return ControlResponse(error: "send: \(error)")
            }
            return ControlResponse(
                command: await coordinator.send(
                    command, toUAV: UInt8(send.uav), takeover: send.takeover,
                    timeout: .milliseconds(send.timeoutMs)))
        case .group(let group):
            let command: Command
            do {
                command = try FleetCommandParser.parse(group.args)
            } catch {
                return ControlResponse(error: "group: \(error)")
            }
            return ControlResponse(
                group: await coordinator.sendGroup(
                    command, toUAVs: group.uavs.map { UInt8($0) }, lead: .milliseconds(group.leadMs),
                    takeover: group.takeover, timeout: .milliseconds(group.timeoutMs)))
        case .target(let target):
            let location: GeoPoint
            do {
                location = try FleetCommandParser.position(target.latitude, target.longitude, target.altitude)
            } catch {
                return ControlResponse(error: "target: \(error)")
            }
            let uav: UInt8? =
                switch target.to {
                case .uav(let n): UInt8(n)
                case .all: nil
                }
            return ControlResponse(
                target: await coordinator.target(
                    location, uav: uav, follow: target.follow,
                    timeout: .milliseconds(target.timeoutMs)))
        case .manual(let m):
            let a = m.axes.map { Int16($0) }
            let report = await coordinator.streamManualControl(
                (a[0], a[1], a[2], a[3]), to: m.uavs.map { UInt8($0) }, rate: m.rateHz,
                duration: .milliseconds(m.durationMs),
                takeover: m.takeover)
            return ControlResponse(manual: report)
        case .events(let e):
            return ControlResponse(events: await coordinator.events(after: e.after, limit: e.limit))
        case .geofence:
            return ControlResponse(geofence: await coordinator.geofenceReport())
        case .setGeofence(let g):
            let fence: SharedGeofence
            do {
                fence = try SharedGeofence(degrees: g.corners, floor: g.floor, ceiling: g.ceiling)
            } catch {
                return ControlResponse(error: "setGeofence: \(error)")
            }
            guard let report = await coordinator.setGeofence(fence) else {
                return ControlResponse(error: "setGeofence: only a station announces a geofence (this node is a drone)")
            }
            return ControlResponse(geofence: report)
        case .clearGeofence:
            guard let report = await coordinator.setGeofence(nil) else {
                return ControlResponse(
                    error: "clearGeofence: only a station announces a geofence (this node is a drone)")
            }
            return ControlResponse(geofence: report)
        }
    }
}
