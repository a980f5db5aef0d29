import Foundation
import LabKit

/// After the landings: the station's flight log (`fleetmesh log flights`), the mission bundled for review (`fleetmesh
/// log bundle`), and an inspection route planned in a bridge's point cloud and flown by the simulator.
func showTheRecordsAndAnInspection(station: NodeProcess, home: (Double, Double)) async throws {
    // The recorder writes every 200 ms: read the table until the landings are in it (at most 5 s).
    var flights = ""
    for _ in 0..<25 {
        flights = try await shellOffPool([try fleetmeshBinary(), "log", "flights", "--node", station.socketPath])
        if !flights.contains("(flying)") { break }
        try await Task.sleep(for: .milliseconds(200))
    }
    say("the flight log: station-1 recorded every flight as it saw it (`fleetmesh log flights`):")
    for line in flights.split(separator: "\n") { say("  \(line)") }
    say(
        "  export one for QGIS, Google Earth or QGroundControl: fleetmesh log export FLIGHT --format geojson|kml|gpx|csv|tlog"
    )
    // The whole mission for whoever reviews it: tlogs, plans, events, tracks, each flight's plots, in one zip.
    let bundleFolder = FileManager.default.currentDirectoryPath + "/.lab"
    try? FileManager.default.createDirectory(atPath: bundleFolder, withIntermediateDirectories: true)
    let bundlePath = bundleFolder + "/demo-mission.zip"
    let bundled =
        (try? await shellOffPool([
            try fleetmeshBinary(), "log", "bundle", "--out", bundlePath, "--node", station.socketPath,
        ])) ?? ""
    say("the mission in one archive for review (`fleetmesh log bundle`):")
    for line in bundled.split(separator: "\n") { say("  \(line)") }
    show("")

    // Inspection: a route planned in a point-cloud map of a bridge, then flown by the simulator.
    let site = bundleFolder + "/inspection"
    _ = try? await shellOffPool([try fleetmeshBinary(), "plan", "example", "bridge", "--dir", site])
    say(
        "inspection: a bridge's point cloud and 3 snapshot points (`fleetmesh plan example bridge`); a route 1 m clear"
    )
    say(
        "of every point, under the deck (`fleetmesh plan inspection`), to send with `fleetmesh send N trajectory @FILE`:"
    )
    let planned =
        (try? await shellOffPool([
            try fleetmeshBinary(), "plan", "inspection", "--map", site + "/bridge.pcd", "--points",
            site + "/bridge-points.csv", "--origin", "\(home.0),\(home.1)", "--start=-25,0,3", "--out",
            site + "/route.txt",
        ])) ?? ""
    for line in planned.split(separator: "\n") { say("  \(line)") }
    let scenario = repositoryRoot.appendingPathComponent("Config/scenarios/inspect-bridge.toml").path
    let simulated = (try? await shellOffPool([try fleetmeshBinary(), "simulate", "--quiet", scenario])) ?? ""
    say("and flown by the simulator (`fleetmesh simulate Config/scenarios/inspect-bridge.toml`):")
    for line in simulated.split(separator: "\n") where !line.isEmpty { say("  \(line)") }
    show("")
}
