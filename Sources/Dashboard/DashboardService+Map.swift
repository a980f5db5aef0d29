import Foundation
import Hummingbird
import NIOCore

/// The map's background beyond the grid (docs/DASHBOARD.md §Map layers): `GET /api/v1/map` says what the station has
/// (`DashboardAPI.map`), `/tiles/{z}/{x}/{y}.{format}` serves the offline tile folder and `/api/v1/overlays/{index}`
/// each GeoJSON overlay (`DashboardAPI.overlay`).
extension DashboardService {
    /// `GET /api/v1/map`: the tile layer (null without one) and the overlays, in the configuration's order.
    struct MapReport: Encodable, Hashable, Sendable {
        struct Tiles: Encodable, Hashable, Sendable {
            var url: String
            var maxZoom: Int
            var attribution: String?
        }
        struct Overlay: Encodable, Hashable, Sendable {
            var name: String
            var url: String
        }
        var tiles: Tiles?
        var overlays: [Overlay]
        /// Whether `GET /api/v1/inspection` has a site (`[dashboard.inspection]`).
        var inspection: Bool

        enum CodingKeys: String, CodingKey { case tiles, overlays, inspection }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(tiles, forKey: .tiles)  // null, not left out, without tiles
            try container.encode(overlays, forKey: .overlays)
            try container.encode(inspection, forKey: .inspection)
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
            }, inspection: configuration.inspection != nil)
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
