import ControlProtocol
import Coordinator
import Foundation
import Geodesy
import Logging
import MeshTypes

/// The geofence a station announces: a drone flies the one in force in place of its configured fence, every node
/// reports which one it uses, and stations set and clear it (`geofence`, `setGeofence`, `clearGeofence`).
extension NodeShell {
    /// A new announcement is in force: a drone flies it from its next control cycle; either way the node reports it as
    /// the one it uses (a drone without collision avoidance flies none, and says so).
    func adoptGeofence(_ a: GeofenceAnnouncement, now t: MeshInstant) {
        let what = "\(Self.describe(a)) from \(displayName(a.announcedBy)) (epoch \(a.epoch))"
        var used: GeofenceStamp? = a.stamp
        if var p = pilot {
            let corners =
                a.fence?.corners.map { GeodeticCoordinate(latitude: $0.latitude, longitude: $0.longitude, altitude: 0) }
                ?? []
            let altitudes = a.fence.map { $0.floor...$0.ceiling } ?? 0...1
            do {
                if try p.replaceGeofence(corners, altitudes: altitudes) {
                    event(.notice, "geofence", "\(what): flown from now on")
                } else {
                    used = nil
                    event(.warning, "geofence", "\(what): not flown, collision avoidance is off on this drone")
                }
            } catch {
                used = core.geofenceInUse
                event(
                    .error, "geofence",
                    "\(what): cannot be placed on this drone's map (\(error)); keeping the fence flown")
            }
            pilot = p
        } else {
            event(.notice, "geofence", what)
        }
        coordinate(now: t) { $0.onGeofenceInUse(used, now: t) }
    }

    /// `4 corners, 2–60 m above home` or `no geofence`.
    static func describe(_ a: GeofenceAnnouncement) -> String {
        guard let f = a.fence else { return "no geofence" }
        return
            "geofence of \(f.corners.count) corners, \(formatFixed(f.floor, 1))–\(formatFixed(f.ceiling, 1)) m above home"
    }

    /// Stations: announces `fence` (nil: no fence) to the mesh, its epoch from this machine's wall clock; nil on a
    /// drone (drones do not announce fences).
    public func setGeofence(_ fence: SharedGeofence?) -> GeofenceReport? {
        guard configuration.role == .station else { return nil }
        let t = now
        let wall = UInt64(max(0, (Date().timeIntervalSince1970 * 1000).rounded()))
        coordinate(now: t) { $0.setGeofence(fence, wallClockMilliseconds: wall, now: t) }
        return geofenceReport()
    }

    /// The announcement in force here and which one every reachable node uses.
    public func geofenceReport() -> GeofenceReport {
        let t = now
        coordinate(now: t) {
            $0.refreshRoutes()
            return []
        }
        let inForce = core.geofenceInForce.map { heard -> GeofenceReport.InForce in
            let a = heard.announcement
            return GeofenceReport.InForce(
                corners: a.fence?.corners.map { [$0.latitude, $0.longitude] }, floor: a.fence?.floor,
                ceiling: a.fence?.ceiling, epoch: a.epoch, announcedBy: displayName(a.announcedBy),
                announcedByNode: a.announcedBy.hex, ageMs: Int((t - heard.lastHeardAt).wholeMilliseconds))
        }
        let current = core.geofenceInForce?.announcement.stamp
        func entry(_ id: NodeID, role: NodeRole, uav: UInt8?) -> GeofenceReport.NodeFence {
            let used = core.geofenceInUse(by: id)
            return GeofenceReport.NodeFence(
                node: id.hex, name: displayName(id), role: role.rawValue,
                uavNumber: role == .drone ? uav.map(Int.init) : nil, epoch: used?.epoch,
                announcedByNode: used?.announcedBy.hex, current: used != nil && used == current)
        }
        var others: [GeofenceReport.NodeFence] = []
        for id in core.routes.keys where id != nodeID {
            guard let ad = core.advertisement(of: id) else { continue }
            others.append(entry(id, role: ad.role, uav: ad.uavNumber))
        }
        others.sort { ($0.name, $0.node) < ($1.name, $1.node) }
        return GeofenceReport(
            inForce: inForce, nodes: [entry(nodeID, role: configuration.role, uav: core.uavNumber)] + others)
    }
}
