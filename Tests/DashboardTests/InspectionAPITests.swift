import ControlProtocol
import Foundation
import Geodesy
import HTTPTypes
import Hummingbird
import Inspection
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import Dashboard

/// `/api/v1/inspection` and `/api/v1/inspection/plan` over the router, with the bridge site written as a real PCD file.
@Suite struct InspectionAPITests {
    static let origin = OriginReport(
        latitude: 59.9127, longitude: 10.7461, altitude: 2, zone: "32N", zoneForced: false, announcedBy: "station",
        announcedByNode: "00", epoch: 1, ageMs: 2, utmEasting: 0, utmNorthing: 0)

    static func router(inspection: DashboardInspection?, withOrigin: Bool = true) throws -> any HTTPResponder<
        DashboardRequestContext
    > {
        let backend = DashboardBackend(answer: { request in
            if case .origin = request, withOrigin { return ControlResponse(origin: Self.origin) }
            return ControlResponse(error: "\(request.command): no map origin known yet")
        })
        let configuration = DashboardConfiguration(inspection: inspection)
        let service = DashboardService(
            configuration: configuration, backend: backend, clock: ContinuousClock(), logger: Logger(label: "test"))
        return try service.makeRouter(
            live: LivePicture(backend: backend, interval: .seconds(1), clock: ContinuousClock()),
            state: DashboardState(inspection: inspection), access: AccessGuard(accounts: [], clock: ContinuousClock())
        ).buildResponder()
    }

    static func call(
        _ responder: any HTTPResponder<DashboardRequestContext>, _ method: HTTPRequest.Method, _ path: String,
        body: String? = nil
    )
        async throws -> (status: Int, json: [String: Any])
    {
        var fields = HTTPFields()
        if body != nil { fields[.contentType] = "application/json" }
        let head = HTTPRequest(
            method: method, scheme: "http", authority: "127.0.0.1:8080", path: path, headerFields: fields)
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(string: body ?? "")))
        let context = DashboardRequestContext(
            source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: Logger(label: "test")))
        let response = try await responder.respond(to: request, context: context)
        let sink = APITests.Sink()
        try await response.body.write(APITests.SinkWriter(sink: sink))
        let json = (try? JSONSerialization.jsonObject(with: Data(String(buffer: sink.buffer).utf8))) as? [String: Any]
        return (response.status.code, json ?? [:])
    }

    /// A local point of the site as the request's latitude, longitude and altitude.
    static func point(_ x: Double, _ y: Double, _ z: Double, heading: Double? = nil) throws -> String {
        let o = try MapOrigin(latitude: origin.latitude, longitude: origin.longitude, altitude: origin.altitude)
        let g = o.geodetic(LocalPosition(east: x, north: y, up: z))
        return #"{"latitude": \#(g.latitude), "longitude": \#(g.longitude), "altitude": \#(z)"#
            + (heading.map { #", "heading": \#($0)}"# } ?? "}")
    }

    @Test func theSiteIsServedAndARouteUnderTheBridgeKeepsTheClearance() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleetmesh-dash-insp-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scene = SiteScene.bridge()
        try PointCloudWriter.write(scene.cloud.points, as: .pcd(.binaryCompressed), to: "\(dir)/bridge.pcd")
        let responder = try Self.router(inspection: DashboardInspection(map: "\(dir)/bridge.pcd"))

        let site = try await Self.call(responder, .get, "/api/v1/inspection")
        #expect(site.status == 200, "\(site.json)")
        #expect(site.json["points"] as? Int == scene.cloud.points.count)
        #expect(site.json["format"] as? String == "PCD binary_compressed")
        let view = try #require(site.json["view"] as? [String: Any])
        let columns = try #require(view["columns"] as? Int), rows = try #require(view["rows"] as? Int)
        let heights = try #require(view["heights"] as? [Int])
        #expect(heights.count == columns * rows && columns <= 400 && rows <= 400)
        // The deck (its top at 7 m) is the highest: 70 dm above the ground at 0.
        #expect(heights.max() == 70 && (view["top"] as? Double) == 7)
        let corners = try #require(view["corners"] as? [[Double]])
        #expect(corners.count == 4 && corners[0][0] < corners[2][0] && corners[0][1] < corners[2][1])

        // Under the deck from one side to the other, from a drone hovering west of it.
        let body =
            #"{"points": [\#(try Self.point(-15, 0, 3, heading: 90)), \#(try Self.point(15, 0, 3))], "start": \#(try Self.point(-25, 0, 3))}"#
        let plan = try await Self.call(responder, .post, "/api/v1/inspection/plan", body: body)
        #expect(plan.status == 200, "\(plan.json)")
        let waypoints = try #require(plan.json["waypoints"] as? [[Double]])
        #expect(waypoints.count == 2 && waypoints.allSatisfy { abs($0[2] - 3) < 1e-6 })
        #expect(abs((plan.json["lengthM"] as? Double ?? 0) - 40) < 0.01)
        #expect((plan.json["minimumClearanceM"] as? Double ?? 0) >= 2.9)
        #expect(plan.json["snapshots"] as? [Int] == [0, 1])

        // A point inside the deck's clearance is refused by name.
        let inside = try await Self.call(
            responder, .post, "/api/v1/inspection/plan", body: #"{"points": [\#(try Self.point(0, 0, 5.5))]}"#)
        #expect(inside.status == 422)
        #expect((inside.json["error"] as? String ?? "").contains("point 1 (0.0, 0.0, 5.5) is 0."), "\(inside.json)")
        let bad = try await Self.call(responder, .post, "/api/v1/inspection/plan", body: #"{"points": []}"#)
        #expect(bad.status == 400)
    }

    @Test func noSiteNoOriginAndAnUnreadableCloudAreNamed() async throws {
        let none = try await Self.call(try Self.router(inspection: nil), .get, "/api/v1/inspection")
        #expect(none.status == 404 && (none.json["error"] as? String ?? "").contains("[dashboard.inspection]"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleetmesh-dash-bad-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nend_header\n1\n".write(
            toFile: "\(dir)/bad.ply", atomically: true, encoding: .utf8)
        let noOrigin = try await Self.call(
            try Self.router(inspection: DashboardInspection(map: "\(dir)/bad.ply"), withOrigin: false), .get,
            "/api/v1/inspection")
        #expect(noOrigin.status == 409 && (noOrigin.json["error"] as? String ?? "").contains("no map origin"))
        let unreadable = try await Self.call(
            try Self.router(inspection: DashboardInspection(map: "\(dir)/bad.ply")), .get, "/api/v1/inspection")
        #expect(
            unreadable.status == 500 && (unreadable.json["error"] as? String ?? "").contains("bad.ply"),
            "\(unreadable.json)")
    }
}
