import Flight
import Foundation
import Geodesy
import Inspection

/// An inspection flight in the simulator: a scenario's origin and drone, a site and its snapshot points, and the
/// planner's settings (a scenario with an `[inspection]` table; Config/scenarios/inspect-*.toml).
public struct InspectionMission: Sendable {
    /// Where the cloud and the points come from.
    public enum Site: Sendable, Hashable {
        /// One of `fleetmesh plan example`'s synthetic sites, with its own points.
        case example(String)
        /// A cloud file and a points file (paths resolved against the scenario's directory).
        case files(map: String, points: String)
    }

    /// The scenario's name.
    public var name: String
    /// The map origin.
    public var origin: MapOrigin
    /// The drone that flies (the scenario's first, or the one named).
    public var drone: Scenario.Drone
    /// The site.
    public var site: Site
    /// Voxel edge, metres.
    public var resolution: Double
    /// Planner settings (clearance, hover, speed).
    public var settings: InspectionPlanner.Settings
    /// Metres above home the drone takes off to; the route starts there.
    public var takeoffAltitude: Double
    /// Whether the points may be reordered.
    public var reorder: Bool
}

extension ScenarioLoader {
    /// Reads a scenario file; returns its inspection mission when it has an `[inspection]` table, else nil.
    public static func loadInspection(path: String) throws(ScenarioError) -> InspectionMission? {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ScenarioError(file: path, key: "(file)", problem: "cannot read: \(error.localizedDescription)")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parseInspection(text, file: path, directory: base)
    }

    /// Parses scenario TOML text; returns the inspection mission when it has an `[inspection]` table, else nil.
    public static func parseInspection(_ text: String, file: String? = nil, directory: String = ".")
        throws(ScenarioError) -> InspectionMission?
    {
        let scenario = try parse(text, file: file)
        let root = try ScenarioFields.scenario(text, file: file)
        guard let t = try root.subtable("inspection") else { return nil }
        try t.rejectUnknownKeys([
            "drone", "site", "map", "points", "resolution", "clearance", "hover", "speed", "takeoff_altitude",
            "reorder",
        ])
        let droneID = try t.string("drone")
        guard let drone = droneID.map({ id in scenario.drones.first { $0.id == id } }) ?? scenario.drones.first else {
            throw t.error("drone", droneID.map { "no drone with id '\($0)'" } ?? "the scenario has no [[drones]]")
        }
        let site: InspectionMission.Site
        switch (try t.string("site"), try t.string("map"), try t.string("points")) {
        case (let s?, nil, nil):
            guard SiteScene.exampleNames.contains(s) else {
                throw t.error("site", "'\(s)' is not a site (\(SiteScene.exampleNames.joined(separator: ", ")))")
            }
            site = .example(s)
        case (nil, let m?, let p?):
            func resolve(_ f: String) -> String { f.hasPrefix("/") ? f : "\(directory)/\(f)" }
            site = .files(map: resolve(m), points: resolve(p))
        default:
            throw t.error("site", "give either site = NAME, or both map = FILE and points = FILE")
        }
        var settings = InspectionPlanner.Settings()
        settings.clearance = try t.number("clearance", default: settings.clearance)
        settings.hover = try t.number("hover", default: settings.hover)
        settings.limits.maxSpeed = try t.number("speed", default: settings.limits.maxSpeed)
        let resolution = try t.number("resolution", default: 0.2)
        guard settings.clearance > 0 else { throw t.error("clearance", "must be positive") }
        guard settings.hover >= 0 else { throw t.error("hover", "must be zero or more seconds") }
        guard settings.limits.maxSpeed > 0, settings.limits.maxSpeed <= drone.simulator.limits.maxHorizontalSpeed else {
            throw t.error(
                "speed", "must be in (0, \(drone.simulator.limits.maxHorizontalSpeed)] m/s (the drone's limit)")
        }
        guard resolution >= 0.01, resolution <= 10 else { throw t.error("resolution", "must be 0.01 to 10 m") }
        let takeoff = try t.number("takeoff_altitude", default: 3)
        guard takeoff >= 1, takeoff <= 100 else { throw t.error("takeoff_altitude", "must be 1 to 100 m") }
        return InspectionMission(
            name: scenario.name, origin: scenario.origin, drone: drone, site: site, resolution: resolution,
            settings: settings, takeoffAltitude: takeoff, reorder: try t.bool("reorder", default: false))
    }
}
