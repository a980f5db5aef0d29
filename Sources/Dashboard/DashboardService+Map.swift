import Foundation
import Hummingbird
import NIOCore

/// The map's background beyond the grid (docs/DASHBOARD.md §Map layers): `GET /api/v1/map` says what the station has,
/// `/tiles/{z}/{x}/{y}.{format}` serves the offline tile folder and `/api/v1/overlays/{index}` each GeoJSON overlay.
extension DashboardService {
    /// `GET /api/v1/map`: the tile layer (null without one) and the overlays, in the configuration's order.
    struct MapReport: Encodable {
        struct Tiles: Encodable {
            var url: String
            var maxZoom: Int
            var attribution: String?
        }
        struct Overlay: Encodable {
            var name: String
            var url: String
        }
        var tiles: Tiles?
        var overlays: [Overlay]

        enum CodingKeys: String, CodingKey { case tiles, overlays }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(tiles, forKey: .tiles)  // null, not left out, without tiles
            try container.encode(overlays, forKey: .overlays)
        }
    }

    /// What `GET /api/v1/map` answers for `configuration`.
    static func mapReport(_ configuration: DashboardConfiguration) -> MapReport {
        MapReport(
            tiles: configuration.tiles.map {
                .init(url: "/tiles/{z}/{x}/{y}.\($0.format)", maxZoom: $0.maxZoom, attribution: $0.attribution)
            },
            overlays: configuration.overlays.indices.map {
                .init(name: configuration.overlays[$0].name, url: "/api/v1/overlays/\($0)")
            })
    }

    func addMap(to router: Router<DashboardRequestContext>) {
        let configuration = self.configuration
        let api = router.group("/api/v1")
        api.get("map") { _, _ in Self.json(Self.mapReport(configuration)) }
        api.get("overlays/:index") { _, context -> Response in
            let text = context.parameters.get("index") ?? ""
            guard let index = DashboardTiles.coordinate(text, limit: 4) else {
                return Self.problem("index: expected an overlay number 0, 1, … in the path", status: .badRequest)
            }
            guard configuration.overlays.indices.contains(index) else {
                return Self.problem(
                    "no overlay \(index): this station has \(configuration.overlays.count) ([dashboard] overlays)",
                    status: .notFound)
            }
            return Response(
                status: .ok, headers: [.contentType: "application/geo+json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: configuration.overlays[index].geoJSON)))
        }
    }
}

/// Serves `/tiles/{z}/{x}/{y}.{format}` from the station's tile folder, and answers every other path under `/tiles/`
/// itself (before the page's files are looked up): an empty 404 for anything that is not a tile the folder holds.
struct TileMiddleware: RouterMiddleware {
    typealias Context = DashboardRequestContext
    let tiles: DashboardTiles?
    let fileIO = FileIO()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let path = request.uri.path
        guard path.hasPrefix("/tiles/") else { return try await next(request, context) }
        guard request.method == .get || request.method == .head else {
            var refusal = DashboardService.problem(
                "\(request.method) is not allowed on \(path) (it takes GET, HEAD)", status: .methodNotAllowed)
            refusal.headers[.allow] = "GET, HEAD"
            return refusal
        }
        // A missing tile is an empty 404: a folder rarely covers every tile the map may ask for.
        let missing = Response(status: .notFound, headers: [.cacheControl: "no-store"])
        let parts = path.dropFirst("/tiles/".count).split(separator: "/", omittingEmptySubsequences: false)
        guard let tiles, parts.count == 3,
            let file = tiles.file(z: String(parts[0]), x: String(parts[1]), name: String(parts[2]))
        else { return missing }
        let body: ResponseBody
        do {
            body = try await fileIO.loadFile(path: file, context: context)
        } catch {
            return missing
        }
        return Response(
            status: .ok, headers: [.contentType: tiles.contentType, .cacheControl: "private, max-age=3600"], body: body)
    }
}
