import Dashboard
import Foundation
import Testing

@testable import Node

private func parse(_ text: String) throws(ConfigError) -> NodeConfiguration {
    try NodeConfiguration.parse(text, file: "/etc/fm/node.toml", baseDirectory: "/etc/fm")
}

/// A bcrypt hash of "correct horse" (cost 4: quick).
private let hash = DashboardPassword.hash("correct horse", cost: 4)

private func node(_ role: String) -> String {
    "[node]\nname = \"n\"\nrole = \"\(role)\"\nkey_file = \"k\"\n"
}

/// `[dashboard]`: on for stations at 127.0.0.1:8080 unless turned off, off for drones unless turned on, and never on
/// an address other machines reach without `[[dashboard.accounts]]`.
@Suite struct DashboardConfigTests {
    @Test func stationsServeTheDashboardOnLoopbackByDefaultAndDronesDoNot() throws {
        #expect(try parse(node("station")).dashboard == DashboardConfiguration(host: "127.0.0.1", port: 8080))
        #expect(try parse(node("drone")).dashboard == nil)
        #expect(try parse(node("station") + "[dashboard]\nenabled = false").dashboard == nil)
        let drone = try parse(node("drone") + "[dashboard]\nenabled = true\nlisten = \"127.0.0.1:9090\"")
        #expect(drone.dashboard == DashboardConfiguration(host: "127.0.0.1", port: 9090))
        let v6 = try parse(node("station") + "[dashboard]\nlisten = \"[::1]:8081\"\nlive_rate_hz = 10")
        #expect(v6.dashboard == DashboardConfiguration(host: "::1", port: 8081, liveRateHz: 10))
    }

    @Test(arguments: [
        ("listen = \"0.0.0.0:8080\"", "[dashboard] listen: 0.0.0.0:8080 is reachable from other machines"),
        ("listen = \"10.0.0.5:8080\"", "add [[dashboard.accounts]] (name, role, password_hash"),
        ("listen = \"localhost\"", "[dashboard] listen: expected \"address:port\""),
        ("listen = \"127.0.0.1:70000\"", "[dashboard] listen: expected \"address:port\""),
        ("live_rate_hz = 50", "[dashboard] live_rate_hz: must be 1–20, found 50.0"),
        ("enabled = \"yes\"", "[dashboard] enabled: expected true or false, found string"),
        (
            "port = 8080",
            "[dashboard] port: unknown field (known: accounts, enabled, inspection, listen, live_rate_hz"
        ),
        ("[[dashboard.accounts]]\nrole = \"viewer\"", "[dashboard.accounts[0]] name: missing"),
        ("[[dashboard.accounts]]\nname = \"a b\"", "name: must be 1–64 characters without spaces"),
        (
            "[[dashboard.accounts]]\nname = \"ops\"\nrole = \"admin\"",
            "role: must be viewer or operator, found \"admin\""
        ),
        (
            "[[dashboard.accounts]]\nname = \"ops\"",
            "password_hash: missing (a bcrypt hash: run `fleetmesh hash-password`)"
        ),
        (
            "[[dashboard.accounts]]\nname = \"ops\"\npassword_hash = \"hunter22\"",
            "password_hash: is not a bcrypt hash ($2b$…, 60 characters"
        ),
        (
            "[[dashboard.accounts]]\nname = \"ops\"\npassword = \"x\"",
            "password: unknown field (known: name, password_hash, role)"
        ),
        (
            "[[dashboard.accounts]]\nname = \"ops\"\npassword_hash = \"\(hash)\"\n[[dashboard.accounts]]\nname = \"ops\"",
            "\"ops\" is taken by accounts[0]"
        ),
    ])
    func badDashboardSettingsNameTheField(line: String, expected: String) {
        #expect {
            try parse(node("station") + "[dashboard]\n" + line)
        } throws: { error in
            // A password typed where its hash belongs is never repeated back.
            "\(error)".contains(expected) && !"\(error)".contains("hunter22")
        }
    }

    @Test func accountsLetTheDashboardLeaveLoopback() throws {
        let text =
            node("station") + "[dashboard]\nlisten = \"0.0.0.0:8080\"\n[[dashboard.accounts]]\nname = \"ops\"\n"
            + "role = \"operator\"\npassword_hash = \"\(hash)\"\n[[dashboard.accounts]]\nname = \"eyes\"\n"
            + "password_hash = \"\(hash)\"\n"
        let c = try #require(try parse(text).dashboard)
        #expect(c.host == "0.0.0.0" && !c.isLoopback)
        #expect(
            c.accounts == [
                DashboardAccount(name: "ops", role: .operator, passwordHash: hash),
                DashboardAccount(name: "eyes", role: .viewer, passwordHash: hash),
            ])
    }

    @Test func theShippedStationConfigServesTheDashboardOnLoopback() throws {
        let c = try NodeConfiguration.load(path: repositoryRoot + "/Config/station.toml")
        #expect(c.dashboard?.isLoopback == true && c.dashboard?.port == 8080 && c.dashboard?.liveRateHz == 5)
    }
}

/// `[dashboard] tiles` and `overlays`: a tile folder and GeoJSON files on the station's disk, read and checked when the
/// configuration is, each refusal naming the field and the file.
@Suite struct DashboardMapLayersConfigTests {
    /// A folder with `tiles/17/70795/44368.png`, `site.geojson` (a polygon) and the files a test adds.
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("fm-map-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: folder + "/tiles/17/70795", withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: folder + "/tiles/17/70795/44368.png"))
        try write(
            "site.geojson",
            #"{"type":"Polygon","coordinates":[[[14.4,50.0],[14.5,50.0],[14.5,50.1],[14.4,50.0]]]}"#)
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
    }

    func parse(_ dashboard: String) throws(ConfigError) -> DashboardConfiguration? {
        try NodeConfiguration.parse(
            node("station") + "[dashboard]\n" + dashboard, file: folder + "/station.toml", baseDirectory: folder
        ).dashboard
    }

    @Test func aTileFolderAndOverlaysAreReadRelativeToTheConfigFile() throws {
        try write("fence.json", #"{"type":"FeatureCollection","features":[]}"#)
        let c = try #require(
            try parse(
                """
                tiles = "tiles"
                tiles_format = "png"
                tiles_max_zoom = 17
                tiles_attribution = "© site survey 2026"
                overlays = [{ name = "site", file = "site.geojson" }, { name = "geofence", file = "\(folder)/fence.json" }]
                """))
        #expect(
            c.tiles
                == DashboardTiles(
                    folder: folder + "/tiles", format: "png", maxZoom: 17, attribution: "© site survey 2026"))
        #expect(c.overlays.map(\.name) == ["site", "geofence"])
        #expect(c.overlays.map(\.file) == [folder + "/site.geojson", folder + "/fence.json"])
        #expect(String(decoding: c.overlays[1].geoJSON, as: UTF8.self).contains("FeatureCollection"))
        // The defaults: png, zoom 19, no attribution; no tiles and no overlays without the fields.
        #expect(try parse("tiles = \"\(folder)/tiles\"")?.tiles == DashboardTiles(folder: folder + "/tiles"))
        #expect(try parse("")?.tiles == nil && (try parse("")?.overlays.isEmpty ?? false))
        // The [[dashboard.overlays]] form is the same array.
        let tables = try parse("[[dashboard.overlays]]\nname = \"site\"\nfile = \"site.geojson\"")
        #expect(tables?.overlays.map(\.name) == ["site"])
    }

    @Test func eachRefusalNamesTheFieldAndTheFile() throws {
        try FileManager.default.createDirectory(atPath: folder + "/empty", withIntermediateDirectories: true)
        try write("broken.geojson", #"{"type":"Polygon","coordinates":[[[14.4,50.0]"#)
        try write("list.geojson", "[1, 2]")
        try write("topo.geojson", #"{"type":"Topology","objects":{}}"#)
        try write("nofeatures.geojson", #"{"type":"FeatureCollection"}"#)
        try write(
            "huge.geojson", #"{"type":"FeatureCollection","features":[]}"# + String(repeating: " ", count: 5 << 20))
        let cases: [(String, String)] = [
            ("tiles = \"nowhere\"", "[dashboard] tiles: \(folder)/nowhere does not exist"),
            ("tiles = \"site.geojson\"", "[dashboard] tiles: \(folder)/site.geojson is not a folder"),
            (
                "tiles = \"empty\"",
                "[dashboard] tiles: \(folder)/empty holds no tile {z}/{x}/{y}.png with z within 0…19"
            ),
            ("tiles = \"tiles\"\ntiles_format = \"jpg\"", "holds no tile {z}/{x}/{y}.jpg"),
            ("tiles = \"tiles\"\ntiles_max_zoom = 16", "holds no tile {z}/{x}/{y}.png with z within 0…16"),
            (
                "tiles = \"tiles\"\ntiles_format = \"gif\"",
                "[dashboard] tiles_format: must be png, jpg or webp, found \"gif\""
            ),
            ("tiles = \"tiles\"\ntiles_max_zoom = 23", "[dashboard] tiles_max_zoom: must be 0–22, found 23"),
            ("tiles = \"tiles\"\ntiles_max_zoom = -1", "[dashboard] tiles_max_zoom: must be 0–22, found -1"),
            ("tiles = \"tiles\"\ntiles_max_zoom = 18.5", "[dashboard] tiles_max_zoom: expected an integer"),
            ("tiles_max_zoom = 18", "[dashboard] tiles_max_zoom: needs a tile folder: add tiles = "),
            ("tiles = \"tiles\"\ntiles_attribution = \"a\\nb\"", "[dashboard] tiles_attribution: must be one line"),
            ("tiles = 5", "[dashboard] tiles: expected a string"),
            (
                "overlays = [{ name = \"fence\", file = \"broken.geojson\" }]",
                "[dashboard.overlays[0]] file: \(folder)/broken.geojson: not valid JSON"
            ),
            (
                "overlays = [{ name = \"fence\", file = \"list.geojson\" }]",
                "list.geojson: not a GeoJSON object (expected a JSON object)"
            ),
            (
                "overlays = [{ name = \"fence\", file = \"topo.geojson\" }]",
                "topo.geojson: not GeoJSON: type \"Topology\" (expected one of Feature, FeatureCollection"
            ),
            (
                "overlays = [{ name = \"fence\", file = \"nofeatures.geojson\" }]",
                "nofeatures.geojson: not GeoJSON: a FeatureCollection needs \"features\""
            ),
            (
                "overlays = [{ name = \"fence\", file = \"huge.geojson\" }]",
                "[dashboard.overlays[0]] file: \(folder)/huge.geojson: 5242922 bytes, larger than the 5 MB allowed"
            ),
            (
                "overlays = [{ name = \"fence\", file = \"gone.geojson\" }]",
                "[dashboard.overlays[0]] file: \(folder)/gone.geojson: no such file"
            ),
            ("overlays = [{ name = \"fence\", file = \"tiles\" }]", "file: \(folder)/tiles: not a regular file"),
            ("overlays = [{ file = \"site.geojson\" }]", "[dashboard.overlays[0]] name: missing"),
            ("overlays = [{ name = \"fence\" }]", "[dashboard.overlays[0]] file: missing"),
            (
                "overlays = [{ name = \"a\", file = \"site.geojson\" }, { name = \"a\", file = \"site.geojson\" }]",
                "[dashboard.overlays[1]] name: \"a\" is taken by overlays[0]"
            ),
            (
                "overlays = [{ name = \"a\", file = \"site.geojson\", colour = \"red\" }]",
                "colour: unknown field (known: file, name)"
            ),
            ("overlays = [\"site.geojson\"]", "[dashboard] overlays[0]: expected a table, found string"),
        ]
        for (line, expected) in cases {
            #expect(throws: ConfigError.self, "\(line)") { try parse(line) }
            do {
                _ = try parse(line)
            } catch {
                #expect("\(error)".contains(expected), "\(line): \(error)")
            }
        }
    }

    @Test func anInspectionSiteIsReadFromItsTableWithDefaultsAndItsFileMustExist() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-insp-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "VERSION 0.7\n".write(toFile: "\(dir)/site.pcd", atomically: true, encoding: .utf8)
        let dashboard = try parse("[dashboard.inspection]\nmap = \"\(dir)/site.pcd\"\nclearance = 1.5")
        #expect(dashboard?.inspection == DashboardInspection(map: "\(dir)/site.pcd", clearance: 1.5))
        for (table, message) in [
            ("resolution = 0.2", "[dashboard.inspection] map: missing (the site's point cloud"),
            ("map = \"/nowhere/site.pcd\"", "[dashboard.inspection] map: cannot read /nowhere/site.pcd"),
            ("map = \"\(dir)/site.pcd\"\nclearance = 0.0", "[dashboard.inspection] clearance: must be more than 0"),
            (
                "map = \"\(dir)/site.pcd\"\nspeed = 30.0",
                "[dashboard.inspection] speed: must be more than 0 and at most 20"
            ),
            ("map = \"\(dir)/site.pcd\"\nwings = 2", "[dashboard.inspection] wings: unknown field"),
        ] {
            #expect {
                _ = try parse("[dashboard.inspection]\n" + table)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
    }
}
