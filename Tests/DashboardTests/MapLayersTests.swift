import Foundation
import Testing

@testable import Dashboard

/// The offline tiles and GeoJSON overlays: which tile paths the station serves (only numbers inside the zoom's range,
/// only the folder's format: no path leaves the folder) and what `GET /api/v1/map` answers.
@Suite struct MapLayersTests {
    let tiles = DashboardTiles(folder: "/srv/tiles", format: "png", maxZoom: 18)

    @Test func onlyNumbersWithinTheZoomsRangeAndTheFoldersFormatNameATile() {
        #expect(tiles.file(z: "17", x: "70795", name: "44368.png") == "/srv/tiles/17/70795/44368.png")
        #expect(tiles.file(z: "0", x: "0", name: "0.png") == "/srv/tiles/0/0/0.png")
        #expect(tiles.file(z: "1", x: "1", name: "1.png") == "/srv/tiles/1/1/1.png")
        let refused: [(String, String, String)] = [
            ("19", "0", "0.png"),  // deeper than the folder
            ("1", "2", "0.png"), ("1", "0", "2.png"),  // outside zoom 1's 2×2 tiles
            ("..", "..", "passwd"), ("1", "..", "0.png"), ("1", "0", "..png"), ("1", "0", "../0.png"),
            ("1", "0", "0.jpg"), ("1", "0", "0.png.png"), ("1", "0", "x.png"), ("1", "0", ".png"),
            ("-1", "0", "0.png"), ("+1", "0", "0.png"), ("1", " 0", "0.png"), ("1", "0x1", "0.png"),
            ("1", "0", "%2e%2e.png"), ("", "0", "0.png"), ("١", "0", "0.png"), ("1", "99999999999", "0.png"),
        ]
        for (z, x, name) in refused { #expect(tiles.file(z: z, x: x, name: name) == nil, "\(z)/\(x)/\(name)") }
        #expect(DashboardTiles(folder: "/t", format: "webp").file(z: "3", x: "1", name: "2.webp") == "/t/3/1/2.webp")
        #expect(DashboardTiles(folder: "/t", format: "jpg").contentType == "image/jpeg")
    }

    @Test func theMapAnswerListsTheTilesAndEachOverlay() throws {
        func answer(_ c: DashboardConfiguration) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return String(decoding: try encoder.encode(DashboardService.mapReport(c)), as: UTF8.self)
        }
        #expect(try answer(DashboardConfiguration()) == #"{"inspection":false,"overlays":[],"tiles":null}"#)
        let overlays = [
            DashboardOverlay(name: "site", file: "/a", geoJSON: Data()),
            DashboardOverlay(name: "fence", file: "/b", geoJSON: Data()),
        ]
        let full = DashboardConfiguration(
            tiles: DashboardTiles(folder: "/t", format: "jpg", maxZoom: 17, attribution: "survey"), overlays: overlays,
            inspection: DashboardInspection(map: "/site.pcd"))
        #expect(
            try answer(full)
                == #"{"inspection":true,"overlays":[{"name":"site","url":"\/api\/v1\/overlays\/0"},{"name":"fence","url":"\/api\/v1\/overlays\/1"}],"tiles":{"attribution":"survey","maxZoom":17,"url":"\/tiles\/{z}\/{x}\/{y}.jpg"}}"#
        )
    }

    @Test func anOverlayMustBeOneGeoJSONObject() {
        #expect(DashboardOverlay.problem(in: Data(#"{"type":"Feature","geometry":null,"properties":{}}"#.utf8)) == nil)
        #expect(DashboardOverlay.problem(in: Data(#"{"type":"LineString","coordinates":[[1,2],[3,4]]}"#.utf8)) == nil)
        #expect(DashboardOverlay.problem(in: Data(#"{"type":"GeometryCollection","geometries":[]}"#.utf8)) == nil)
        #expect(DashboardOverlay.problem(in: Data(#"{"type":"Feature"}"#.utf8))?.contains("needs \"geometry\"") == true)
        #expect(
            DashboardOverlay.problem(in: Data(#"{"type":"Point"}"#.utf8))?.contains("needs \"coordinates\"") == true)
        #expect(DashboardOverlay.problem(in: Data(#"{"kind":"Point"}"#.utf8))?.contains("has no \"type\"") == true)
        #expect(DashboardOverlay.problem(in: Data("".utf8))?.hasPrefix("not valid JSON") == true)
    }
}
