import Foundation

/// A flight's commanded paths as a QGroundControl mission (`.plan`, JSON, mission version 2): takeoff where the
/// flight began, each goto's and trajectory's waypoints in order (a goto's commanded speed as DO_CHANGE_SPEED before
/// it), and a landing where it ended. Altitudes are relative to home (MAV_FRAME_GLOBAL_RELATIVE_ALT), as FleetMesh
/// commands them. QGroundControl opens it under File → Open, shows it on its map and can upload it to an autopilot.
public enum MissionPlanExport {
    /// MAV_CMD values used.
    static let takeoff = 22, waypoint = 16, land = 21, changeSpeed = 178
    /// MAV_FRAME_GLOBAL_RELATIVE_ALT.
    static let relativeFrame = 3

    /// The `.plan` text; `samples` are the flight's own (time order), `plans` its commanded paths.
    public static func plan(flight: FlightRow, samples: [TelemetryRecord], plans: [PlanComparison]) -> String {
        var items: [[String: Any]] = []
        func item(_ command: Int, _ params: [Any], altitude: Double?) {
            var entry: [String: Any] = [
                "type": "SimpleItem", "autoContinue": true, "command": command, "doJumpId": items.count + 1,
                "frame": command == changeSpeed ? 2 : relativeFrame, "params": params,
            ]
            if let altitude {
                entry["Altitude"] = altitude
                entry["AltitudeMode"] = 1
                entry["AMSLAltAboveTerrain"] = NSNull()
            }
            items.append(entry)
        }
        let first = samples.first?.state.position
        let climb =
            plans.first?.path.first?[2] ?? samples.map { Double($0.state.position.altitudeMillimetres) / 1000 }.max()
            ?? 10
        if let first {
            item(takeoff, [0, 0, 0, NSNull(), first.latitude, first.longitude, climb], altitude: climb)
        }
        for p in plans where p.outcome != "rejected" {
            if p.kind == "goto", let planned = p.plannedSeconds, planned > 0 {
                // DO_CHANGE_SPEED: ground speed (1), the goto's commanded speed, no throttle change.
                item(changeSpeed, [1, p.plannedMetres / planned, -1, 0, 0, 0, 0], altitude: nil)
            }
            for w in p.path.dropFirst() where w.count == 3 {
                item(waypoint, [0, 0, 0, NSNull(), w[0], w[1], w[2]], altitude: w[2])
            }
        }
        if flight.endMs != nil, let last = samples.last?.state.position {
            item(land, [0, 0, 0, NSNull(), last.latitude, last.longitude, 0], altitude: 0)
        }
        let home: [Any] = first.map { [$0.latitude, $0.longitude, 0] } ?? [0, 0, 0]
        let document: [String: Any] = [
            "fileType": "Plan", "version": 1, "groundStation": "FleetMesh",
            "geoFence": ["circles": [Any](), "polygons": [Any](), "version": 2],
            "rallyPoints": ["points": [Any](), "version": 2],
            "mission": [
                "version": 2, "firmwareType": 0, "vehicleType": 2, "cruiseSpeed": 5, "hoverSpeed": 5,
                "plannedHomePosition": home, "items": items,
            ],
        ]
        let data =
            (try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
