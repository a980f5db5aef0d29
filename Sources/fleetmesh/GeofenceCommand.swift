import ArgumentParser
import ControlProtocol
import Foundation

/// `fleetmesh geofence`: the geofence a station announces to the mesh (shown, set, cleared).
struct GeofenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geofence",
        abstract: "Show, set or clear the geofence a station announces to every drone.",
        discussion: """
            A station's geofence replaces each drone's configured one ([avoidance] geofence) from the drone's next \
            control cycle; the newest announcement wins on every node. Drones keep inside it by collision avoidance: \
            a goal outside is moved to the nearest point 1 m inside.
            """,
        subcommands: [GeofenceShowCommand.self, GeofenceSetCommand.self, GeofenceClearCommand.self],
        defaultSubcommand: GeofenceShowCommand.self)
}

struct GeofenceShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show the geofence in force and which one every node uses.")

    @OptionGroup var target: NodeOption
    @Flag(help: "Print JSON (a stable format for scripts).")
    var json = false

    func run() throws {
        guard let report = try target.ask(ControlRequest.geofence).geofence else {
            throw failure("error: empty answer", code: 1)
        }
        try printGeofence(report, json: json)
    }
}

struct GeofenceSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Announce a geofence to the mesh (stations).",
        discussion:
            "Example: fleetmesh geofence set --floor 2 --ceiling 60 50.0750,14.4370 50.0760,14.4370 50.0760,14.4390")

    @OptionGroup var target: NodeOption
    @Option(help: "Lowest allowed altitude, metres above home.")
    var floor: Double = 2
    @Option(help: "Highest allowed altitude, metres above home.")
    var ceiling: Double = 120
    @Flag(help: "Print JSON.")
    var json = false
    @Argument(help: "The corners in order, each LAT,LON in degrees (3–64).")
    var corners: [String]

    func run() throws {
        var pairs: [[Double]] = []
        for (i, word) in corners.enumerated() {
            let parts = word.split(separator: ",")
            guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
                throw failure("error: corner \(i + 1) \"\(word)\": expected LAT,LON in degrees", code: 64)
            }
            pairs.append([lat, lon])
        }
        let request = ControlRequest.setGeofence(.init(corners: pairs, floor: floor, ceiling: ceiling))
        guard let report = try target.ask(request).geofence else { throw failure("error: empty answer", code: 1) }
        try printGeofence(report, json: json)
    }
}

struct GeofenceClearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Announce that there is no geofence (stations): drones fly without one, configured or not.")

    @OptionGroup var target: NodeOption
    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        guard let report = try target.ask(ControlRequest.clearGeofence).geofence else {
            throw failure("error: empty answer", code: 1)
        }
        try printGeofence(report, json: json)
    }
}

/// The fence in force, then one line per node.
func printGeofence(_ report: GeofenceReport, json: Bool) throws {
    if json { return try printJSON(report) }
    if let f = report.inForce {
        if let corners = f.corners, let floor = f.floor, let ceiling = f.ceiling {
            print(String(format: "geofence   %d corners, %.1f–%.1f m above home", corners.count, floor, ceiling))
            for c in corners { print(String(format: "           %.7f %.7f", c[0], c[1])) }
        } else {
            print("geofence   none (cleared)")
        }
        print("announced  by \(f.announcedBy) (\(f.announcedByNode)), epoch \(f.epoch), heard \(formatMs(f.ageMs)) ago")
    } else {
        print("geofence   none announced (drones fly their configured fence, if any)")
    }
    print(
        renderTable(
            ["NODE", "ROLE", "UAV", "USES"],
            report.nodes.map { n in
                [
                    n.name, n.role, n.uavNumber.map(String.init) ?? "-",
                    n.epoch.map { "epoch \($0)\(n.current ? "" : " (not the one in force here)")" } ?? "configured",
                ]
            }))
}
