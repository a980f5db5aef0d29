import ControlProtocol
import Foundation
import Geodesy
import Inspection

/// The station's inspection site and routes planned in it (docs/INSPECTION.md, `[dashboard.inspection]`).
extension DashboardAPI {
    /// Why an inspection request cannot be answered: no site, or no map origin to place it.
    private enum Unavailable: Error {
        case noSite, noOrigin(String)
    }

    /// The workspace and the mission's map origin, or why not.
    private func inspectionContext() async throws(Unavailable) -> (InspectionWorkspace, MapOrigin) {
        guard let workspace = state.inspection else { throw .noSite }
        let response = await backend.answer(.origin)
        guard let o = response.origin else {
            throw .noOrigin(
                "inspection: the station has no map origin yet ([mission] origin), so the cloud cannot be placed")
        }
        do {
            let zone = try UTMZone(parsing: o.zone)
            return (
                workspace,
                try MapOrigin(
                    latitude: o.latitude, longitude: o.longitude, altitude: o.altitude, forcedZone: zone.number)
            )
        } catch {
            throw .noOrigin("inspection: the map origin cannot be used: \(error)")
        }
    }

    func inspectionSite(_ input: Operations.InspectionSite.Input) async throws -> Operations.InspectionSite.Output {
        let workspace: InspectionWorkspace, origin: MapOrigin
        do { (workspace, origin) = try await inspectionContext() } catch {
            switch error {
            case .noSite: return .notFound(.init(body: .json(Self.error(Self.noSiteMessage))))
            case .noOrigin(let m): return .conflict(.init(body: .json(Self.error(m))))
            }
        }
        let site: InspectionWorkspace.Site
        switch await workspace.site() {
        case .success(let s): site = s
        case .failure(let e): return .internalServerError(.init(body: .json(Self.error("inspection: \(e.message)"))))
        }
        let v = site.top
        let w = v.west, s = v.south, e = v.west + Double(v.columns) * v.cell, n = v.south + Double(v.rows) * v.cell
        let corners = [(w, s), (e, s), (e, n), (w, n)].map { c -> [Double] in
            let g = origin.geodetic(LocalPosition(east: c.0, north: c.1, up: 0))
            return [g.latitude, g.longitude]
        }
        let settings = workspace.settings
        return .ok(
            .init(
                body: .json(
                    .init(
                        map: settings.map, format: site.cloud.format, points: site.cloud.points.count,
                        droppedNonFinite: site.cloud.droppedNonFinite, voxels: site.map.voxelCount,
                        isolatedVoxels: site.map.isolatedVoxels, resolution: settings.resolution,
                        clearance: settings.clearance, loadSeconds: site.loadSeconds,
                        view: .init(
                            corners: corners, cell: v.cell, columns: v.columns, rows: v.rows, floor: v.floor,
                            top: v.top, heights: v.heights)))))
    }

    func inspectionPlan(_ input: Operations.InspectionPlan.Input) async throws -> Operations.InspectionPlan.Output {
        guard case .json(let body) = input.body else {
            return .badRequest(.init(body: .json(Self.error("inspection-plan: expected a JSON body"))))
        }
        guard (1...200).contains(body.points.count) else {
            return .badRequest(
                .init(body: .json(Self.error("inspection-plan: points: 1 to 200 points, found \(body.points.count)"))))
        }
        let workspace: InspectionWorkspace, origin: MapOrigin
        do { (workspace, origin) = try await inspectionContext() } catch {
            switch error {
            case .noSite: return .notFound(.init(body: .json(Self.error(Self.noSiteMessage))))
            case .noOrigin(let m): return .conflict(.init(body: .json(Self.error(m))))
            }
        }
        func local(_ p: Components.Schemas.InspectionPoint, _ label: String) throws -> SnapshotPoint {
            guard p.latitude.isFinite, p.longitude.isFinite, p.altitude.isFinite, abs(p.altitude) <= 10_000,
                p.heading.map({ $0.isFinite }) ?? true
            else { throw APIRefusal(message: "inspection-plan: \(label): values must be finite", status: .badRequest) }
            do {
                let l = try origin.local(
                    GeodeticCoordinate(
                        latitude: p.latitude, longitude: p.longitude, altitude: origin.coordinate.altitude + p.altitude)
                )
                return SnapshotPoint(position: SIMD3(l.east, l.north, l.up), heading: p.heading, label: label)
            } catch {
                throw APIRefusal(message: "inspection-plan: \(label): not on the map: \(error)", status: .badRequest)
            }
        }
        let points: [SnapshotPoint]
        let start: SnapshotPoint?
        do {
            points = try body.points.enumerated().map { try local($1, "point \($0 + 1)") }
            start = try body.start.map { try local($0, "the start") }
        } catch let refusal as APIRefusal {
            return .badRequest(.init(body: .json(Self.error(refusal.message))))
        }
        do {
            let (route, clearance, seconds) = try await workspace.plan(points, start: start?.position)
            let waypoints = route.vertices.dropFirst(route.hasStart ? 1 : 0).map { v -> [Double] in
                let g = origin.geodetic(LocalPosition(east: v.x, north: v.y, up: v.z))
                return [
                    (g.latitude * 1e8).rounded() / 1e8, (g.longitude * 1e8).rounded() / 1e8,
                    (v.z * 1000).rounded() / 1000,
                ]
            }
            return .ok(
                .init(
                    body: .json(
                        .init(
                            waypoints: waypoints,
                            snapshots: route.snapshotVertices.map { $0 - (route.hasStart ? 1 : 0) }, holdS: route.hover,
                            lengthM: route.length, durationS: route.duration, minimumClearanceM: clearance,
                            planMs: seconds * 1000, expandedCells: route.expandedCells))))
        } catch let error as InspectionError {
            return .unprocessableContent(.init(body: .json(Self.error("inspection-plan: \(error)"))))
        } catch let error as InspectionWorkspace.InspectionLoadError {
            return .internalServerError(.init(body: .json(Self.error("inspection: \(error.message)"))))
        }
    }

    private static let noSiteMessage =
        "inspection: this station has no inspection site (set [dashboard.inspection] map = \"site.pcd\")"
}
