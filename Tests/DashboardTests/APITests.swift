import ControlProtocol
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import Dashboard
@testable import FlightLog

/// The JSON API through the dashboard's whole router (its middleware, the server generated from openapi.yaml, the
/// handlers) against a node that records what it is asked: the answers are the control protocol's types byte for byte
/// as the CLI's `--json` encodes them, a command reaches the node as its control request, and every malformed request
/// is refused naming the field without reaching the node.
@Suite struct APITests {
    /// A node that answers from fixed reports and records every request.
    final class Node: Sendable {
        let asked = Mutex<[ControlRequest]>([])
        let status = NodeStatus(
            node: .init(
                id: "0123456789abcdef0123456789abcdef", name: "station", publishedName: "station", role: "station",
                uavNumber: nil, incarnation: "1", port: 4500, fingerprint: "ab:cd", uptimeMs: 1234,
                avahi: "running", rejections: ["malformed": 2], groundControl: "listening on UDP 14550"),
            peers: [
                .init(
                    id: "fedcba9876543210fedcba9876543210", name: "drone-2", role: "drone", uavNumber: 7,
                    address: "10.0.0.2:4500", state: "established", hops: 1, incarnation: "3", lastHeardMsAgo: 12,
                    rttMs: 1.5, linkQuality: 0.98, discoveredAtMs: 10, establishedAtMs: 20, stateSinceMs: 20)
            ],
            unverified: [
                .init(claimedID: "00", claimedName: nil, address: "10.0.0.9", state: "discovered", seenForMs: 5)
            ],
            mapOrigin: nil,
            manualControl: .init(received: 3, rateHz: 100, latencyP50Ms: 1.25, lastMsAgo: 40),
            autopilot: .init(
                link: "udpin:14601", connected: true, silent: false, autopilot: "ardupilot", systemID: 1,
                componentID: 1, mode: "GUIDED", armed: true, linkQuality: 100, lastHeartbeatMsAgo: 300,
                framesSent: 10, framesDropped: 0))
        let vehicle = VehicleReport(
            uavNumber: 7, node: "fedcba9876543210fedcba9876543210", name: "drone-2", role: "drone",
            latitude: 50.0755, longitude: 14.4378, altitude: 10.25, speed: 0.5, heading: 90, activity: "hovering",
            armed: true, batteryPercent: 88, ageMs: 40, stale: false, linkQuality: 100, velocityNorth: 0.1,
            velocityEast: -0.2, velocityUp: 0, controller: "station",
            controllerNode: "0123456789abcdef0123456789abcdef",
            controlledHere: true)
        let fence = GeofenceReport(
            inForce: .init(
                corners: [[50.075, 14.437], [50.075, 14.4384], [50.0759, 14.4384]], floor: 2, ceiling: 60,
                epoch: 1_764_112_345_678, announcedBy: "station", announcedByNode: "0123456789abcdef0123456789abcdef",
                ageMs: 0),
            nodes: [
                .init(
                    node: "fedcba9876543210fedcba9876543210", name: "drone-2", role: "drone", uavNumber: 7,
                    epoch: 1_764_112_345_678, announcedByNode: "0123456789abcdef0123456789abcdef", current: true)
            ])
        let events = EventsReport(
            events: [
                .init(
                    seq: 1, timeMs: 1_764_112_345_678, kind: "peer", level: "info", text: "peer drone-2 → established")
            ],
            latest: 1, droppedThrough: 0)

        func answer(_ request: ControlRequest) -> ControlResponse {
            asked.withLock { $0.append(request) }
            switch request {
            case .status, .peers: return ControlResponse(status: status)
            case .vehicles: return ControlResponse(vehicles: [vehicle])
            case .airspace: return ControlResponse(airspace: [])
            case .origin: return ControlResponse(error: "origin: no map origin known yet")
            case .sources:
                return ControlResponse(sources: .init(subscribing: true, port: 4600, sources: [], rejected: [:]))
            case .events: return ControlResponse(events: events)
            case .send(let s):
                guard s.args.first != "fly" else { return ControlResponse(error: "send: unknown command 'fly'") }
                return ControlResponse(
                    command: .init(
                        uavNumber: s.uav, command: s.args.joined(separator: " "),
                        answers: [.init(answer: "accepted", afterMs: 2), .init(answer: "completed", afterMs: 900)],
                        timedOut: false))
            case .target(let t):
                return ControlResponse(
                    target: .init(address: "all", latitude: t.latitude, longitude: t.longitude, altitude: t.altitude))
            case .manual: return ControlResponse(error: "manual: not here")
            case .geofence, .setGeofence, .clearGeofence: return ControlResponse(geofence: fence)
            case .group(let g):
                return ControlResponse(
                    group: .init(
                        command: g.args.joined(separator: " "), leadMs: g.leadMs, startsAtMs: 1_764_112_345_678,
                        commands: g.uavs.map {
                            .init(
                                uavNumber: $0, command: g.args.joined(separator: " "),
                                answers: [.init(answer: "accepted", afterMs: 2)], timedOut: false)
                        }))
            }
        }

        /// The commands and targets the node was asked for (reads do not count).
        var orders: [ControlRequest] {
            asked.withLock { list in
                list.filter {
                    switch $0 {
                    case .send, .target, .group, .setGeofence, .clearGeofence: return true
                    default: return false
                    }
                }
            }
        }
    }

    struct Answer {
        var status: Int
        var headers: HTTPFields
        var body: String
        var error: String? {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["error"] as? String
        }
    }

    /// Collects a response body.
    final class Sink: @unchecked Sendable {
        var buffer = ByteBuffer()
    }
    struct SinkWriter: ResponseBodyWriter {
        let sink: Sink
        mutating func write(_ buffer: ByteBuffer) async throws {
            var b = buffer
            sink.buffer.writeBuffer(&b)
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    let node = Node()
    let responder: any HTTPResponder<DashboardRequestContext>

    init() throws {
        let node = self.node
        let backend = DashboardBackend(answer: { node.answer($0) }, metrics: { Array(Self.exposition.utf8) })
        let overlay = DashboardOverlay(
            name: "site", file: "/site.geojson", geoJSON: Data(#"{"type": "FeatureCollection", "features": []}"#.utf8))
        let service = DashboardService(
            configuration: DashboardConfiguration(overlays: [overlay]), backend: backend, clock: ContinuousClock(),
            logger: Logger(label: "test"))
        let router = try service.makeRouter(
            live: LivePicture(backend: backend, interval: .seconds(1), clock: ContinuousClock()),
            state: DashboardState(), access: AccessGuard(accounts: [], clock: ContinuousClock()))
        responder = router.buildResponder()
    }

    func call(
        _ method: HTTPRequest.Method, _ path: String, body: String? = nil, contentType: String = "application/json",
        headers: HTTPFields = [:]
    ) async throws -> Answer {
        var fields = headers
        if body != nil { fields[.contentType] = contentType }
        let head = HTTPRequest(
            method: method, scheme: "http", authority: "127.0.0.1:8080", path: path, headerFields: fields)
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(string: body ?? "")))
        let context = DashboardRequestContext(
            source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: Logger(label: "test")))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            return Answer(status: Int(error.status.code), headers: [:], body: "")
        }
        let sink = Sink()
        try await response.body.write(SinkWriter(sink: sink))
        return Answer(status: response.status.code, headers: response.headers, body: String(buffer: sink.buffer))
    }

    /// What the hand-written routes answered: the value encoded with sorted keys.
    func encoded(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func readsAnswerTheControlProtocolsTypesAsTheCLIEncodesThem() async throws {
        let (expectedStatus, expectedVehicles, expectedEvents) = (
            try encoded(node.status), try encoded([node.vehicle]), try encoded(node.events)
        )
        let status = try await call(.get, "/api/v1/status")
        #expect(status.status == 200 && status.body == expectedStatus, "\(status.body)")
        #expect(status.headers[.contentType] == "application/json" && status.headers[.cacheControl] == "no-store")
        let vehicles = try await call(.get, "/api/v1/vehicles", headers: [.accept: "text/html"])
        #expect(vehicles.status == 200 && vehicles.body == expectedVehicles, "\(vehicles.body)")
        let events = try await call(.get, "/api/v1/events?after=0&limit=10")
        #expect(events.body == expectedEvents, "\(events.body)")
        #expect(node.asked.withLock { $0.contains(.events(.init(after: 0, limit: 10))) })
        #expect(try await call(.get, "/api/v1/airspace").body == "[]")
        let sources = try await call(.get, "/api/v1/sources")
        #expect(sources.body == #"{"port":4600,"rejected":{},"sources":[],"subscribing":true}"#)
        let origin = try await call(.get, "/api/v1/origin")
        #expect(origin.status == 404 && origin.error == "origin: no map origin known yet")
        #expect(
            try await call(.get, "/api/v1/map").body
                == #"{"inspection":false,"overlays":[{"name":"site","url":"\/api\/v1\/overlays\/0"}],"tiles":null}"#)
        let overlay = try await call(.get, "/api/v1/overlays/0")
        #expect(overlay.status == 200 && overlay.headers[.contentType] == "application/geo+json")
        #expect(overlay.body == #"{"features":[],"type":"FeatureCollection"}"#)
        #expect(try await call(.get, "/healthz").body == #"{"alive":true}"#)
        let ready = try await call(.get, "/readyz")
        #expect(ready.status == 200 && ready.body == #"{"problems":[],"ready":true}"#, "\(ready.body)")
        let session = try await call(.get, "/api/v1/session")
        #expect(session.body == #"{"loginRequired":false,"role":"operator"}"#)
        let login = try await call(.post, "/api/v1/login", body: #"{"name":"ops","password":"x"}"#)
        #expect(login.status == 404 && login.error?.contains("this dashboard has no accounts") == true)
        let fence = try await call(.get, "/api/v1/geofence")
        let expectedFence = try encoded(node.fence)
        #expect(fence.status == 200 && fence.body == expectedFence, "\(fence.body)")
    }

    @Test func aCommandAndATargetReachTheNodeAsTheirControlRequests() async throws {
        let takeoff = try await call(
            .post, "/api/v1/uavs/7/commands", body: #"{"args":["takeoff","10"],"timeoutMs":5000}"#)
        #expect(takeoff.status == 200, "\(takeoff.body)")
        #expect(
            takeoff.body
                == #"{"answers":[{"afterMs":2,"answer":"accepted"},{"afterMs":900,"answer":"completed"}],"command":"takeoff 10","timedOut":false,"uavNumber":7}"#
        )
        let target = try await call(
            .post, "/api/v1/targets",
            body: #"{"latitude":50.1,"longitude":14.2,"altitude":12,"all":true,"follow":true}"#)
        #expect(target.body == #"{"address":"all","altitude":12,"latitude":50.1,"longitude":14.2}"#, "\(target.body)")
        #expect(
            node.orders == [
                .send(.init(uav: 7, args: ["takeoff", "10"], timeoutMs: 5000, takeover: false)),
                .target(.init(latitude: 50.1, longitude: 14.2, altitude: 12, to: .all, follow: true)),
            ])
        // The node's own refusal of the words is a 400 with its message.
        let fly = try await call(.post, "/api/v1/uavs/7/commands", body: #"{"args":["fly"]}"#)
        #expect(fly.status == 400 && fly.error == "send: unknown command 'fly'")
        // A group at one moment, a geofence set and cleared: each the control request the CLI sends.
        let group = try await call(
            .post, "/api/v1/group-commands", body: #"{"uavs":[7,3],"args":["hover"],"leadMs":2000}"#)
        #expect(group.status == 200 && group.body.contains(#""leadMs":2000"#), "\(group.body)")
        let set = try await call(
            .post, "/api/v1/geofence",
            body: #"{"corners":[[50.075,14.437],[50.075,14.4384],[50.0759,14.4384]],"floor":5}"#
        )
        let expectedFence = try encoded(node.fence)
        #expect(set.status == 200 && set.body == expectedFence, "\(set.body)")
        #expect(try await call(.post, "/api/v1/geofence/clear", body: "{}").status == 200)
        #expect(
            Array(node.orders.suffix(3)) == [
                .group(.init(uavs: [7, 3], args: ["hover"], leadMs: 2000)),
                .setGeofence(
                    .init(
                        corners: [[50.075, 14.437], [50.075, 14.4384], [50.0759, 14.4384]], floor: 5, ceiling: 120)),
                .clearGeofence,
            ])
    }

    /// Each refusal's status and message; none reaches the node as a command or target.
    @Test func everyMalformedRequestIsRefusedNamingTheField() async throws {
        let sendTakes = "(send takes args, timeoutMs, takeover)"
        let tooMany = Array(repeating: "[50,14,10]", count: 201).joined(separator: ",")
        let cases: [(HTTPRequest.Method, String, String?, Int, String)] = [
            (
                .post, "/api/v1/group-commands", #"{"uavs":[7],"args":["hover"],"leadMs":null}"#, 400,
                "group: leadMs is null (leave a field out to use its default)"
            ),
            (
                .post, "/api/v1/group-commands", #"{"uavs":"7","args":["hover"]}"#, 400,
                #"uavs: expected an array, found the string "7""#
            ),
            (.post, "/api/v1/group-commands", #"{"args":["hover"]}"#, 400, "uavs: missing (group needs uavs, args)"),
            (
                .post, "/api/v1/geofence", #"{"corners":[[50,14],[50,14.1]],"floor":"low"}"#, 400,
                #"floor: expected a number, found the string "low""#
            ),
            (
                .post, "/api/v1/geofence", #"{"corners":[[50,14],[50,14.1],[50.1,14.1]],"roof":5}"#, 400,
                #"setGeofence: unknown field "roof" (setGeofence takes corners, floor, ceiling)"#
            ),
            (
                .post, "/api/v1/geofence/clear", #"{"all":true}"#, 400,
                #"clearGeofence: unknown field "all" (clearGeofence takes no fields: send {})"#
            ),
            (.post, "/api/v1/uavs/7/commands", "{not json", 400, "malformed JSON: expected one object \(sendTakes)"),
            (.post, "/api/v1/uavs/7/commands", "[1,2]", 400, "malformed JSON: expected one object \(sendTakes)"),
            (.post, "/api/v1/uavs/7/commands", "", 400, "malformed JSON: expected one object \(sendTakes)"),
            (
                .post, "/api/v1/uavs/7/commands", #"{"args":"land"}"#, 400,
                #"args: expected an array, found the string "land""#
            ),
            (.post, "/api/v1/uavs/7/commands", #"{"args":["land",5]}"#, 400, "args[1]: expected a string, found 5"),
            (
                .post, "/api/v1/uavs/7/commands", #"{"args":["land"],"uav":3}"#, 400,
                #"send: unknown field "uav" \#(sendTakes)"#
            ),
            (
                .post, "/api/v1/uavs/7/commands", #"{"args":["land"],"takeover":null}"#, 400,
                "send: takeover is null (leave a field out to use its default)"
            ),
            (
                .post, "/api/v1/uavs/7/commands", #"{"args":["land"],"timeoutMs":-5}"#, 400,
                #"send: "timeoutMs" must be 1–600000, found -5"#
            ),
            (
                .post, "/api/v1/uavs/7/commands", #"{"args":["land"],"timeoutMs":"x"}"#, 400,
                #"timeoutMs: expected an integer, found the string "x""#
            ),
            (
                .post, "/api/v1/uavs/7/commands", #"{"args":["land"],"takeover":1}"#, 400,
                "takeover: expected true or false, found 1"
            ),
            (.post, "/api/v1/uavs/7/commands", #"{"timeoutMs":5}"#, 400, "args: missing (send needs args)"),
            (
                .post, "/api/v1/uavs/abc/commands", #"{"args":["land"]}"#, 400,
                #"uav: expected a UAV number 1–250 in the path, found "abc""#
            ),
            (
                .post, "/api/v1/uavs/0/commands", #"{"args":["land"]}"#, 400,
                #"uav: expected a UAV number 1–250 in the path, found "0""#
            ),
            (
                .post, "/api/v1/uavs/251/trajectory-preview", #"{"waypoints":[[50,14,10]]}"#, 400,
                #"uav: expected a UAV number 1–250 in the path, found "251""#
            ),
            (
                .post, "/api/v1/targets", #"{"latitude":"50","longitude":14,"altitude":10}"#, 400,
                #"latitude: expected a number, found the string "50""#
            ),
            (
                .post, "/api/v1/targets", #"{"latitude":50,"longitude":14}"#, 400,
                "altitude: missing (target needs latitude, longitude, altitude)"
            ),
            (
                .post, "/api/v1/targets", #"{"latitude":50,"longitude":14,"altitude":10}"#, 400,
                #"target: say which drones: "uav" (1–250) or "all": true"#
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", "[[50,14,10]]", 400,
                "malformed JSON: expected one object (trajectory-preview takes waypoints)"
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":[[50,14,10]],"speed":3}"#, 400,
                #"trajectory-preview: unknown field "speed" (trajectory-preview takes waypoints)"#
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", "{}", 400,
                "waypoints: missing (trajectory-preview needs waypoints)"
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":"50,14,10"}"#, 400,
                #"waypoints: expected an array, found the string "50,14,10""#
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":[]}"#, 400,
                "waypoints: expected at least one waypoint, found none"
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":[\#(tooMany)]}"#, 400,
                "waypoints: at most 200 waypoints, found 201"
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":[[50,14]]}"#, 400,
                "waypoints[0]: expected [latitude, longitude, altitude], found an array of 2"
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":[[50,14,10],{"lat":50}]}"#, 400,
                "waypoints[1]: expected an array, found an object"
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":[[50,14,10],[50,"14",10]]}"#, 400,
                #"waypoints[1][1]: expected a number, found the string "14""#
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":[[true,14,10]]}"#, 400,
                "waypoints[0][0]: expected a number, found true"
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":[[50,14,null]]}"#, 400,
                "waypoints[0][2]: expected a number, found null"
            ),
            (
                .post, "/api/v1/uavs/7/trajectory-preview", #"{"waypoints":[[95,14,10]]}"#, 400,
                "waypoints[0][0]: latitude must be within -90…90 degrees, found 95"
            ),
            (
                .post, "/api/v1/uavs/9/trajectory-preview", #"{"waypoints":[[50,14,10]]}"#, 404,
                "uav: no drone holds UAV number 9"
            ),
            (
                .post, "/api/v1/login", #"{"name":"ops","password":"x","otp":1}"#, 400,
                #"login: unknown field "otp" (login takes name, password)"#
            ),
            (.post, "/api/v1/login", #"{"name":null,"password":"x"}"#, 400, "name: expected a string, found null"),
            (.get, "/api/v1/events?limit=5000", nil, 400, #"events: "limit" must be 1–1000, found 5000"#),
            (.get, "/api/v1/events?after=x", nil, 400, #"events: "after" must be an integer, found "x""#),
            (
                .get, "/api/v1/events?since=3", nil, 400,
                #"events: unknown query parameter "since" (events takes after, limit)"#
            ),
            (
                .get, "/api/v1/overlays/x", nil, 400,
                #"index: expected an overlay number 0, 1, … in the path, found "x""#
            ),
            (.get, "/api/v1/overlays/3", nil, 404, "no overlay 3: this station has 1 ([dashboard] overlays)"),
            (.put, "/api/v1/vehicles", "{}", 405, "PUT is not allowed on /api/v1/vehicles (it takes GET, HEAD)"),
            (
                .get, "/api/v1/nothing", nil, 404,
                "no such resource: GET /api/v1/nothing (the API is described at /api/openapi.yaml)"
            ),
        ]
        for (method, path, body, status, message) in cases {
            let answer = try await call(method, path, body: body)
            #expect(
                answer.status == status && answer.error == message,
                "\(method) \(path) \(body ?? ""): \(answer.status) \(answer.body)")
            if answer.status != 404 || path.hasPrefix("/api/v1/overlays") {
                #expect(answer.headers[.contentType] == "application/json", "\(path): \(answer.headers)")
            }
        }
        // Too large, or not JSON.
        let large = try await call(
            .post, "/api/v1/uavs/7/commands", body: #"{"args":["\#(String(repeating: "x", count: 300_000))"]}"#)
        #expect(large.status == 413 && large.error == "413 Content Too Large", "\(large.body.prefix(200))")
        let text = try await call(
            .post, "/api/v1/uavs/7/commands", body: #"{"args":["land"]}"#, contentType: "text/plain")
        #expect(text.status == 415 && text.error?.contains("application/json") == true)
        #expect(node.orders.isEmpty, "\(node.orders)")
    }

    /// Each answer schema of openapi.yaml lists exactly the fields its type sends with every optional one set, and
    /// requires exactly those it sends with none set (schemathesis checks only the answers a lab run happens to give).
    @Test func theDocumentDescribesEveryFieldOfEveryAnswer() throws {
        func keys(_ value: some Encodable) throws -> Set<String> {
            let object = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as? [String: Any]
            return Set(object?.keys.map { $0 } ?? [])
        }
        func check(_ schema: String, full: some Encodable, minimal: some Encodable) throws {
            let described = try #require(APIOperation.schemas[schema], "no schema \(schema)")
            let (sent, alwaysSent) = (try keys(full), try keys(minimal))
            #expect(sent == Set(described.fields), "\(schema): its type sends \(sent)")
            #expect(alwaysSent == Set(described.required), "\(schema): its type always sends \(alwaysSent)")
        }
        let origin = OriginReport(
            latitude: 50, longitude: 14, altitude: 0, zone: "33N", zoneForced: false, announcedBy: "station",
            announcedByNode: "00", epoch: 1, ageMs: 2, utmEasting: 1, utmNorthing: 2)
        let full = node.status
        var fullStatus = full
        fullStatus.mapOrigin = origin
        fullStatus.node.uavNumber = 3
        let traffic = NodeStatus.Traffic(
            bytesInPerSecond: 1, bytesOutPerSecond: 2, datagramsInPerSecond: 3, datagramsOutPerSecond: 4, bytesIn: 5,
            bytesOut: 6, datagramsIn: 7, datagramsOut: 8, droppedByKernel: 9, droppedByQueue: 10, receiveBuffer: 11,
            publicationPace: "full")
        fullStatus.node.traffic = traffic
        let problem = NodeStatus.HandshakeProblem(
            address: "10.0.0.2:47800", problem: "handshakes unanswered", category: "unanswered", msAgo: 0, count: 1)
        fullStatus.node.handshakeProblems = [problem]
        fullStatus.autopilot?.remote = "10.0.0.3:14550"
        let shipping = FlightLogShippingReport(
            target: "t", connected: false, problem: "down", shipped: 1, backlog: 2, lagMs: 3)
        let flightLog = FlightLogReport(
            path: "p", recording: false, problem: "full", written: 1, dropped: 2, bytes: 3, shipping: shipping)
        fullStatus.flightLog = flightLog
        let minimalNode = NodeStatus.LocalNode(
            id: "00", name: "s", role: "station", incarnation: "1", port: 1, fingerprint: "f", uptimeMs: 1,
            avahi: "running", rejections: [:])
        try check("Status", full: fullStatus, minimal: NodeStatus(node: minimalNode, peers: []))
        try check("LocalNode", full: fullStatus.node, minimal: minimalNode)
        let minimalTraffic = NodeStatus.Traffic(
            bytesInPerSecond: 1, bytesOutPerSecond: 2, datagramsInPerSecond: 3, datagramsOutPerSecond: 4, bytesIn: 5,
            bytesOut: 6, datagramsIn: 7, datagramsOut: 8)
        try check("Traffic", full: traffic, minimal: minimalTraffic)
        try check("HandshakeProblem", full: problem, minimal: problem)
        try check("Peer", full: full.peers[0], minimal: NodeStatus.Peer(id: "00", state: "relayed", hops: 2))
        try check(
            "UnverifiedAdvert",
            full: NodeStatus.UnverifiedAdvert(
                claimedID: "00", claimedName: "x", address: "a", state: "discovered", seenForMs: 1),
            minimal: NodeStatus.UnverifiedAdvert(claimedID: "00", state: "discovered", seenForMs: 1))
        try check(
            "ManualControl",
            full: ManualControlReport(
                received: 1, rateHz: 1, latencyP50Ms: 1, latencyP99Ms: 1, latencyMaxMs: 1, gapP99Ms: 1, gapMaxMs: 1,
                lastMsAgo: 1),
            minimal: ManualControlReport(received: 1, lastMsAgo: 1))
        try check(
            "Autopilot", full: try #require(fullStatus.autopilot),
            minimal: AutopilotReport(
                link: "l", connected: false, silent: false, linkQuality: 0, framesSent: 0, framesDropped: 0))
        try check(
            "Vehicle", full: node.vehicle,
            minimal: VehicleReport(
                node: "00", name: "d", role: "drone", latitude: 0, longitude: 0, altitude: 0, speed: 0, heading: 0,
                activity: "landed", armed: false, batteryPercent: 1, ageMs: 1, stale: false))
        try check(
            "Airspace",
            full: AirspaceReport(
                uavNumber: 1, node: "00", name: "d", ageMs: 1, stepMs: 1, points: [], uncertaintyGrowth: 0.5),
            minimal: AirspaceReport(node: "00", name: "d", ageMs: 1, stepMs: 1, points: []))
        let command = CommandReport(uavNumber: 1, command: "land", answers: [], timedOut: false)
        try check("Command", full: command, minimal: command)
        try check(
            "CommandAnswer", full: CommandReport.Answer(answer: "rejected", reason: "r", afterMs: 1),
            minimal: CommandReport.Answer(answer: "accepted", afterMs: 1))
        try check(
            "Target", full: TargetReport(address: "all", latitude: 0, longitude: 0, altitude: 0, follow: [command]),
            minimal: TargetReport(address: "all", latitude: 0, longitude: 0, altitude: 0))
        try check("Origin", full: origin, minimal: origin)
        try check(
            "Sources", full: TargetSourcesReport(subscribing: true, port: 1, sources: [], rejected: [:]),
            minimal: TargetSourcesReport(subscribing: false, sources: [], rejected: [:]))
        try check(
            "TargetSource",
            full: TargetSourceReport(
                name: "n", addresses: [], targets: 1, lastTargetMsAgo: 1, lastAddress: "all", lastLatitude: 0,
                lastLongitude: 0, lastAltitude: 0),
            minimal: TargetSourceReport(name: "n", addresses: [], targets: 0))
        try check("Events", full: node.events, minimal: node.events)
        try check(
            "Event",
            full: EventReport(seq: 1, timeMs: 1, kind: "peer", level: "info", text: "t", node: "00", uavNumber: 1),
            minimal: EventReport(seq: 1, timeMs: 1, kind: "peer", level: "info", text: "t"))
        try check(
            "Ready", full: ReadyReport(ready: true, problems: []), minimal: ReadyReport(ready: true, problems: []))
        try check(
            "Session",
            full: DashboardService.SessionReport(loginRequired: true, name: "ops", role: .operator, csrfToken: "t"),
            minimal: DashboardService.SessionReport(loginRequired: false, name: nil, role: .operator, csrfToken: nil))
        let tiles = DashboardService.MapReport.Tiles(url: "/tiles/{z}/{x}/{y}.png", maxZoom: 1, attribution: "a")
        try check(
            "Map", full: DashboardService.MapReport(tiles: tiles, overlays: [], inspection: true),
            minimal: DashboardService.MapReport(tiles: nil, overlays: [], inspection: false))
        try check(
            "MapTiles", full: tiles, minimal: DashboardService.MapReport.Tiles(url: "u", maxZoom: 1, attribution: nil))
        let overlay = DashboardService.MapReport.Overlay(name: "n", url: "u")
        try check("MapOverlay", full: overlay, minimal: overlay)
        let preview = TrajectoryPreview(points: [], durationS: 0, lengthM: 0, legs: 0)
        try check("Preview", full: preview, minimal: preview)
        let group = GroupCommandReport(command: "hover", leadMs: 1500, startsAtMs: 1, commands: [command])
        try check("Group", full: group, minimal: group)
        try check("Geofence", full: node.fence, minimal: GeofenceReport(inForce: nil, nodes: []))
        try check(
            "GeofenceInForce", full: try #require(node.fence.inForce),
            minimal: GeofenceReport.InForce(
                corners: nil, floor: nil, ceiling: nil, epoch: 1, announcedBy: "s", announcedByNode: "00", ageMs: 0))
        try check(
            "GeofenceNode", full: node.fence.nodes[0],
            minimal: GeofenceReport.NodeFence(
                node: "00", name: "s", role: "station", uavNumber: nil, epoch: nil, announcedByNode: nil,
                current: false))
        try check(
            "FlightLogStatus", full: flightLog,
            minimal: FlightLogReport(path: "p", recording: true, problem: nil, written: 1, dropped: 0, bytes: 3))
        try check(
            "FlightLogShippingStatus", full: shipping,
            minimal: FlightLogShippingReport(
                target: "t", connected: true, problem: nil, shipped: 0, backlog: 0, lagMs: nil))
        let summary = FlightSummary(
            flight: 1, uavNumber: 3, node: "00", name: "d", startMs: 1, endMs: 2, durationSeconds: 1, distanceMetres: 1,
            maxAltitudeMetres: 1, closestApproachMetres: 1, closestApproachUAV: 4, batteryUsedPercent: 1, commands: 1,
            samples: 1)
        let openSummary = FlightSummary(
            flight: 1, uavNumber: nil, node: "00", name: "d", startMs: 1, endMs: nil, durationSeconds: 1,
            distanceMetres: 1, maxAltitudeMetres: 1, closestApproachMetres: nil, closestApproachUAV: nil,
            batteryUsedPercent: 1, commands: 1, samples: 1)
        try check("FlightSummary", full: summary, minimal: openSummary)
        let point = FlightTrack.Point(
            timeMs: 1, latitude: 0, longitude: 0, altitude: 0, speed: 0, battery: 1, activity: "landed", nearest: 1,
            crossTrack: 1)
        let bare = FlightTrack.Point(
            timeMs: 1, latitude: 0, longitude: 0, altitude: 0, speed: 0, battery: 1, activity: "landed", nearest: nil,
            crossTrack: nil)
        try check("FlightTrackPoint", full: point, minimal: bare)
        let prediction = FlightTrack.Prediction(timeMs: 1, points: [], avoiding: false)
        try check("FlightTrackPrediction", full: prediction, minimal: prediction)
        let vehicle = FlightTrack.Vehicle(
            node: "00", uavNumber: 3, name: "d", own: true, points: [point], predictions: [prediction])
        try check(
            "FlightTrackVehicle", full: vehicle,
            minimal: FlightTrack.Vehicle(node: "00", uavNumber: nil, name: "d", own: false, points: [], predictions: [])
        )
        let plan = PlanComparison(
            command: "c", kind: "goto", startMs: 1, endMs: 2, outcome: "completed", path: [], plannedMetres: 1,
            flownMetres: 1, maxCrossTrackMetres: 1, rmsCrossTrackMetres: 1, plannedSeconds: 1, actualSeconds: 1)
        try check(
            "PlanComparison", full: plan,
            minimal: PlanComparison(
                command: "c", kind: "trajectory", startMs: 1, endMs: nil, outcome: nil, path: [], plannedMetres: 1,
                flownMetres: 1, maxCrossTrackMetres: 1, rmsCrossTrackMetres: 1, plannedSeconds: nil, actualSeconds: nil
            ))
        let track = FlightTrack(flight: summary, vehicles: [vehicle], plans: [plan])
        try check("FlightTrack", full: track, minimal: track)
    }

    /// The committed generated code is the generator's output for today's openapi.yaml and configuration (`make
    /// openapi` writes the hash), and the generated operations are the document's paths the routes table lists.
    static let exposition =
        "# HELP fleetmesh_sessions Sessions.\n# TYPE fleetmesh_sessions gauge\nfleetmesh_sessions 3.0\n"

    /// `/metrics` answers the node's exposition as Prometheus asks for it (its Accept header prefers OpenMetrics and
    /// takes the text format too); with accounts it needs a session, as the API's reads do.
    @Test func metricsAnswerTheNodesExpositionAndNeedASessionWithAccounts() async throws {
        let prometheusAccept =
            "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"
        let metrics = try await call(.get, "/metrics", headers: [.accept: prometheusAccept])
        #expect(metrics.status == 200 && metrics.body == Self.exposition, "\(metrics.body)")
        #expect(metrics.headers[.contentType] == "text/plain; version=0.0.4", "\(metrics.headers)")
        #expect(try await call(.get, "/metrics").body == Self.exposition)
        let post = try await call(.post, "/metrics", body: "{}")
        #expect(post.status == 405 && post.error?.contains("it takes GET, HEAD") == true, "\(post.body)")

        let backend = DashboardBackend(answer: { _ in ControlResponse(error: "no") }, metrics: { Array("x 1\n".utf8) })
        let guarded = try DashboardService(
            configuration: DashboardConfiguration(), backend: backend, clock: ContinuousClock(),
            logger: Logger(label: "test")
        ).makeRouter(
            live: LivePicture(backend: backend, interval: .seconds(1), clock: ContinuousClock()),
            state: DashboardState(),
            access: AccessGuard(
                accounts: [DashboardAccount(name: "eyes", role: .viewer, passwordHash: "")], clock: ContinuousClock())
        ).buildResponder()
        let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/metrics")
        let context = DashboardRequestContext(
            source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: Logger(label: "test")))
        let refused = try await guarded.respond(
            to: Request(head: head, body: RequestBody(buffer: ByteBuffer())), context: context)
        #expect(refused.status == .unauthorized)
    }

    @Test func theGeneratedServerIsUpToDateWithTheDocument() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let document = try Data(contentsOf: root.appendingPathComponent("Sources/Dashboard/Web/openapi.yaml"))
        let config = try Data(contentsOf: root.appendingPathComponent("Tools/openapi/openapi-generator-config.yaml"))
        let digest = SHA256.hash(data: document + config).map { String(format: "%02x", $0) }.joined()
        #expect(
            digest == APIOperation.sourcesSHA256,
            "Sources/Dashboard/Generated is older than openapi.yaml or its configuration: run `make openapi`")
        let generated = Set(APIOperation.all.values.map { "\($0.method) \($0.path)" })
        let routes = Set(
            DashboardService.routes.filter { !["/api/openapi.yaml", "/api/v1/live"].contains($0.path) }
                .flatMap { route in route.methods.map { "\($0.rawValue) \(route.path)" } })
        #expect(generated == routes)
    }
}
