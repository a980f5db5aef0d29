import ControlProtocol
import Dashboard
import Foundation
import LabKit
import Testing

/// The station dashboard against real nodes in the lab: its HTTP API over real sockets (answers and refusals), and the
/// page in real headless Chromium (Selenium), which must load nothing from beyond the station.
@Suite(.serialized) struct DashboardLabTests {
    /// One HTTP exchange with the station's dashboard, made with curl on a lab host.
    struct Exchange {
        var status: Int
        var headers: String
        var body: String
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) }
        var error: String? { (json as? [String: Any])?["error"] as? String }
        /// The value of the response header `name` (first one; case-insensitive name).
        func header(_ name: String) -> String? {
            for line in headers.split(separator: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    /// `method path` against `base` from lab host `from`: a JSON body (or `contentType`), extra headers, and a curl
    /// cookie jar that keeps the session between calls.
    func http(
        _ lab: Lab, _ method: String, _ path: String, body: String? = nil, from host: Int = 1,
        base: String = "http://127.0.0.1:8080", headers: [String] = [], jar: String? = nil,
        contentType: String = "application/json"
    ) throws -> Exchange {
        var command = ["curl", "-s", "-i", "-m", "40", "-X", method, "-w", "\n%{http_code}", base + path]
        // Over HTTPS, trust the lab's own certificate (made by `dashboardCertificate`) and nothing else.
        if base.hasPrefix("https://") {
            command += ["--cacert", lab.directory.appendingPathComponent("dashboard.crt").path]
        }
        if let body { command += ["-H", "Content-Type: \(contentType)", "--data-raw", body] }
        for h in headers { command += ["-H", h] }
        if let jar { command += ["-b", jar, "-c", jar] }
        let r = try shell(lab.onHost(host, command))
        var lines = r.output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.popLast() ?? "") ?? 0
        let text = lines.joined(separator: "\n")
        guard let split = text.range(of: "\r\n\r\n") else { return Exchange(status: status, headers: text, body: "") }
        return Exchange(
            status: status, headers: String(text[..<split.lowerBound]), body: String(text[split.upperBound...]))
    }

    /// Starts a station and a drone; returns them with the drone's UAV number once the station sees it.
    func fleet(_ lab: Lab, stationExtra: String = "", droneExtra: String = "") async throws -> (
        station: NodeProcess, drone: NodeProcess, uav: Int
    ) {
        let station = try lab.startNode(
            host: 1, name: "station", role: "station", extra: stationExtra, logLevel: "info")
        let drone = try lab.startNode(host: 2, name: "drone-2", extra: droneExtra, logLevel: "info")
        return (station, drone, try await numberedDrone(at: station))
    }

    /// The UAV number of the first live drone `station` sees with one (waiting up to 10 s for it).
    func numberedDrone(at station: NodeProcess) async throws -> Int {
        var uav = 0
        try await waitUntil("the station sees the drone with a number", timeout: .seconds(10)) {
            let r = try ControlClient.request(ControlRequest.vehicles, socket: station.socketPath, timeout: .seconds(2))
            uav = r.vehicles?.first(where: { !$0.stale && $0.uavNumber != nil })?.uavNumber ?? 0
            return uav != 0
        }
        return uav
    }

    /// The Prometheus exposition at `base + "/metrics"` on lab host `host`, as Prometheus asks for it, parsed by
    /// prometheus_client's text parser (PyPI): every sample as `name{label="value",…}` (labels sorted) → value, and
    /// each family's type. Also checks the answer's content type.
    func scrape(_ lab: Lab, from host: Int = 1, base: String = "http://127.0.0.1:8080", jar: String? = nil) throws
        -> (samples: [String: Double], types: [String: String])
    {
        let accept =
            "Accept: application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"
        let r = try http(lab, "GET", "/metrics", from: host, base: base, headers: [accept], jar: jar)
        #expect(r.status == 200 && r.header("Content-Type") == "text/plain; version=0.0.4", "\(r.status) \(r.headers)")
        let file = lab.directory.appendingPathComponent("metrics-\(host).txt").path
        try r.body.write(toFile: file, atomically: true, encoding: .utf8)
        let parsed = try shell([
            "python3", "-c",
            """
            import sys, json
            from prometheus_client.parser import text_string_to_metric_families
            samples, types = {}, {}
            for f in text_string_to_metric_families(open(sys.argv[1]).read()):
                types[f.name] = f.type
                for s in f.samples:
                    labels = ",".join('%s="%s"' % kv for kv in sorted(s.labels.items()))
                    samples[s.name + "{" + labels + "}"] = s.value
            print(json.dumps({"samples": samples, "types": types}))
            """,
            file,
        ])
        let object = try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [String: Any]
        let samples = try #require(object?["samples"] as? [String: Double], "\(parsed.output) \(r.body)")
        return (samples, object?["types"] as? [String: String] ?? [:])
    }

    @Test func theAPIAnswersAsTheCLIDoesAndRefusesBadRequestsNamingTheField() async throws {
        try await Lab.with(hosts: 2) { lab in
            let (station, drone, uav) = try await fleet(lab, droneExtra: "[metrics]\nlisten = \"127.0.0.1:9464\"")
            try await waitUntil("the dashboard listens", timeout: .seconds(5)) {
                try http(lab, "GET", "/healthz").status == 200
            }
            var ready = Exchange(status: 0, headers: "", body: "")
            try await waitUntil("/readyz passes", timeout: .seconds(10)) {
                ready = try http(lab, "GET", "/readyz")
                return ready.status == 200
            }

            let vehicles = try http(lab, "GET", "/api/v1/vehicles")
            #expect(vehicles.status == 200)
            let list = try #require(vehicles.json as? [[String: Any]], "\(vehicles.body)")
            #expect(list.contains { $0["uavNumber"] as? Int == uav && $0["name"] as? String == "drone-2" })
            #expect(try http(lab, "GET", "/api/v1/status").status == 200)
            #expect(try http(lab, "GET", "/api/v1/airspace").status == 200)
            // The station's events: the drone came into session and announced its number.
            let events = try http(lab, "GET", "/api/v1/events?after=0&limit=1000")
            let page = try #require(events.json as? [String: Any], "\(events.body)")
            let texts = (page["events"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
            #expect(texts.contains { $0.hasPrefix("peer ") && $0.hasSuffix("→ established") }, "\(texts)")
            #expect(texts.contains { $0.contains("announces UAV number \(uav)") }, "\(texts)")
            let origin = try http(lab, "GET", "/api/v1/origin")
            #expect(origin.status == 404 && origin.error?.contains("no map origin known yet") == true, "\(origin.body)")

            // A command answers as `fleetmesh send` does: accepted, then completed.
            let takeoff = try http(
                lab, "POST", "/api/v1/uavs/\(uav)/commands", body: #"{"args":["takeoff","4"],"timeoutMs":30000}"#)
            #expect(takeoff.status == 200, "\(takeoff.body)")
            let answers = ((takeoff.json as? [String: Any])?["answers"] as? [[String: Any]])?.compactMap {
                $0["answer"] as? String
            }
            #expect(answers == ["accepted", "completed"], "\(takeoff.body)")
            // The station controls it now, and says so.
            let controlled = try #require(
                (try http(lab, "GET", "/api/v1/vehicles").json as? [[String: Any]])?.first {
                    $0["uavNumber"] as? Int == uav
                })
            #expect(controlled["controller"] as? String == "station" && controlled["controlledHere"] as? Bool == true)

            // The station's metrics (its dashboard's /metrics) show the drone in session, the traffic, measured round
            // trips and the command's answers; the drone's own listener ([metrics] listen) shows what its vehicle did.
            let (m, types) = try scrape(lab)
            #expect(m[#"fleetmesh_peers{state="established"}"#] ?? 0 >= 1, "\(m)")
            #expect(m[#"fleetmesh_sessions{}"#] ?? 0 >= 1, "\(m)")
            #expect(m[#"fleetmesh_datagrams_total{direction="in",kind="unicast"}"#] ?? 0 > 0, "\(m)")
            #expect(m[#"fleetmesh_bytes_total{direction="out",kind="unicast"}"#] ?? 0 > 0, "\(m)")
            #expect(m[#"fleetmesh_datagrams_total{direction="in",kind="group"}"#] ?? 0 > 0, "\(m)")
            #expect(types["fleetmesh_rtt_seconds"] == "histogram" && m["fleetmesh_rtt_seconds_count{}"] ?? 0 > 0)
            #expect(m[#"fleetmesh_rtt_seconds_bucket{le="1.0"}"#] ?? 0 > 0, "\(m)")
            // Every group datagram waited for the node's next tick or datagram, and was counted doing so.
            #expect(types["fleetmesh_group_wait_seconds"] == "histogram", "\(types)")
            #expect(
                m["fleetmesh_group_wait_seconds_count{}"] != nil
                    && m["fleetmesh_group_wait_seconds_count{}"]
                        == m[#"fleetmesh_datagrams_total{direction="in",kind="group"}"#],
                "\(m)")
            #expect(m[#"fleetmesh_commands_total{outcome="completed"}"#] ?? 0 >= 1, "\(m)")
            #expect(m[#"fleetmesh_vehicles{state="live"}"#] == 1, "\(m)")
            #expect((0..<2).contains(m["fleetmesh_telemetry_age_max_seconds{}"] ?? -1), "\(m)")
            #expect(m[#"fleetmesh_datagrams_dropped_total{reason="bad_tag"}"#] == 0, "\(m)")
            let d = try scrape(lab, from: 2, base: "http://127.0.0.1:9464").samples
            #expect(d[#"fleetmesh_node_info{name="drone-2",node="\#(try drone.status().node.id)",role="drone"}"#] == 1)
            #expect(d[#"fleetmesh_vehicle_commands_total{outcome="completed"}"#] ?? 0 >= 1, "\(d)")
            #expect(d[#"fleetmesh_peers{state="established"}"#] ?? 0 >= 1, "\(d)")

            // A group command at one moment: accepted (scheduled), then completed, starting 300 ms after sending.
            let group = try http(
                lab, "POST", "/api/v1/group-commands", body: #"{"uavs":[\#(uav)],"args":["hover"],"leadMs":300}"#)
            let report = try #require(group.json as? [String: Any], "\(group.status) \(group.body)")
            let groupAnswers = ((report["commands"] as? [[String: Any]])?.first?["answers"] as? [[String: Any]])?
                .compactMap { $0["answer"] as? String }
            #expect(group.status == 200 && groupAnswers == ["accepted", "completed"], "\(group.body)")
            #expect(report["leadMs"] as? Int == 300 && report["startsAtMs"] is Int, "\(group.body)")

            // A trajectory preview from where the drone hovers: 11 m north, planned as the drone would fly it.
            let here = try #require(
                (try http(lab, "GET", "/api/v1/vehicles").json as? [[String: Any]])?.first {
                    $0["uavNumber"] as? Int == uav
                })
            let (lat, lon) = (here["latitude"] as? Double ?? 0, here["longitude"] as? Double ?? 0)
            let preview = try http(
                lab, "POST", "/api/v1/uavs/\(uav)/trajectory-preview",
                body: #"{"waypoints":[[\#(lat + 0.0001),\#(lon),4]]}"#)
            let plan = try #require(preview.json as? [String: Any], "\(preview.status) \(preview.body)")
            let points = plan["points"] as? [[Double]] ?? []
            #expect(preview.status == 200 && plan["legs"] as? Int == 1, "\(preview.body)")
            #expect(points.count > 10 && abs((points.first?[0] ?? 0) - lat) < 1e-6, "\(preview.body)")
            #expect((plan["durationS"] as? Double ?? 0) > 11.1 / 4, "\(preview.body)")
            #expect(abs((plan["lengthM"] as? Double ?? 0) - 11.1) < 0.5, "\(preview.body)")

            // A geofence from the station, 15 m around the hovering drone: the drone flies it in place of its
            // configured one (none) and says so, to the station (its advertisement) and on its own control socket.
            let perLon = 111_320 * cos(lat * .pi / 180)
            func eastOf(_ v: [String: Any]) -> Double { ((v["longitude"] as? Double ?? 0) - lon) * perLon }
            func northOf(_ v: [String: Any]) -> Double { ((v["latitude"] as? Double ?? 0) - lat) * 111_320 }
            let square = [(-15.0, -15.0), (15, -15), (15, 15), (-15, 15)].map { e, n in
                "[\(lat + n / 111_320),\(lon + e / perLon)]"
            }
            let set = try http(
                lab, "POST", "/api/v1/geofence",
                body: #"{"corners":[\#(square.joined(separator: ","))],"floor":2,"ceiling":30}"#)
            let setAnswer = try #require(set.json as? [String: Any], "\(set.status) \(set.body)")
            let inForce = try #require(setAnswer["inForce"] as? [String: Any], "\(set.body)")
            let epoch = try #require(inForce["epoch"] as? Int, "\(set.body)")
            #expect(set.status == 200 && (inForce["corners"] as? [[Double]])?.count == 4, "\(set.body)")
            #expect(
                inForce["announcedBy"] as? String == "station" && inForce["ceiling"] as? Double == 30, "\(set.body)")
            try await waitUntil("the station sees the drone fly the new fence", timeout: .seconds(5)) {
                let nodes =
                    (try http(lab, "GET", "/api/v1/geofence").json as? [String: Any])?["nodes"] as? [[String: Any]]
                return nodes?.contains { $0["name"] as? String == "drone-2" && $0["current"] as? Bool == true } == true
            }
            let own = try #require(
                try ControlClient.request(ControlRequest.geofence, socket: drone.socketPath, timeout: .seconds(2))
                    .geofence)
            #expect(own.inForce?.epoch == UInt64(epoch) && own.inForce?.corners?.count == 4, "\(own)")
            #expect(own.nodes.first?.name == "drone-2" && own.nodes.first?.current == true, "\(own.nodes)")
            #expect(
                drone.log.contains("geofence of 4 corners, 2.0–30.0 m above home from station"),
                "\(drone.log.suffix(2000))")
            // The CLI on the drone's host prints the same.
            let cli = try shell([try fleetmeshBinary(), "geofence", "--json", "--node", drone.socketPath])
            let printed = try JSONDecoder().decode(GeofenceReport.self, from: Data(cli.output.utf8))
            #expect(cli.status == 0 && printed.inForce?.epoch == UInt64(epoch), "\(cli.output)")

            // Sent 40 m east, beyond the fence's edge at 15 m: the command is accepted, and collision avoidance moves
            // the goal to the nearest point 1 m inside; the drone stops there and never crosses the edge.
            let outside = try http(
                lab, "POST", "/api/v1/uavs/\(uav)/commands",
                body: #"{"args":["goto","\#(lat)","\#(lon + 40 / perLon)","4"],"timeoutMs":1000}"#)
            #expect(
                ((outside.json as? [String: Any])?["answers"] as? [[String: Any]])?.first?["answer"] as? String
                    == "accepted", "\(outside.body)")
            var farthestEast = -Double.infinity
            var stoppedAt: [String: Any] = [:]
            try await waitUntil("the drone stops at the fence's edge", timeout: .seconds(20)) {
                let v = (try http(lab, "GET", "/api/v1/vehicles").json as? [[String: Any]])?.first {
                    $0["uavNumber"] as? Int == uav
                }
                guard let v else { return false }
                farthestEast = max(farthestEast, eastOf(v))
                stoppedAt = v
                return eastOf(v) > 10 && (v["speed"] as? Double ?? 9) < 0.1
            }
            print("goto 40 m east with the fence at 15 m: stopped \(eastOf(stoppedAt)) m east, at most \(farthestEast)")
            #expect(farthestEast <= 15, "the drone left the fence: \(farthestEast) m east")
            #expect((13...15).contains(eastOf(stoppedAt)) && abs(northOf(stoppedAt)) < 2, "\(stoppedAt)")

            // Bad fences: 400, naming the field.
            let fenceCases: [(String, String, Int, String)] = [
                (
                    "/api/v1/geofence", #"{"corners":[[50,14],[50.001,14]]}"#, 400,
                    "setGeofence: corners: a geofence needs 3–64 corners, found 2"
                ),
                (
                    "/api/v1/geofence", #"{"corners":[[50,14],[50.001,14.001],[50,14.001],[50.001,14]]}"#, 400,
                    "setGeofence: corners: edge corners[0]–corners[1] crosses edge corners[2]–corners[3]"
                ),
                (
                    "/api/v1/geofence", #"{"corners":[\#(square.joined(separator: ","))],"floor":50,"ceiling":10}"#,
                    400,
                    "setGeofence: ceiling: must be above the floor (50.0 m), found 10.0 m"
                ),
                (
                    "/api/v1/geofence", #"{"corners":[[95,14],[50.001,14],[50,14.001]]}"#, 400,
                    "setGeofence: corners[0]: latitude must be within -90…90 degrees, found 95"
                ),
                (
                    "/api/v1/geofence", #"{"corners":[[50,14],[50,14],[50,14.001]]}"#, 400,
                    "setGeofence: corners[1]: repeats corners[0]"
                ),
                (
                    "/api/v1/geofence", #"{"corners":"50,14"}"#, 400,
                    #"corners: expected an array, found the string "50,14""#
                ),
                ("/api/v1/geofence", #"{"floor":2}"#, 400, "corners: missing (setGeofence needs corners)"),
                (
                    "/api/v1/geofence", #"{"corners":[\#(square.joined(separator: ","))],"height":3}"#, 400,
                    #"setGeofence: unknown field "height" (setGeofence takes corners, floor, ceiling)"#
                ),
                (
                    "/api/v1/geofence/clear", #"{"all":true}"#, 400,
                    #"clearGeofence: unknown field "all" (clearGeofence takes no fields: send {})"#
                ),
            ]
            for (path, body, status, fragment) in fenceCases {
                let r = try http(lab, "POST", path, body: body)
                #expect(
                    r.status == status && r.error?.contains(fragment) == true,
                    "POST \(path) \(body): \(r.status) \(r.body)")
            }
            // None of them changed the fence in force; clearing does, and the drone takes that too.
            let after = (try http(lab, "GET", "/api/v1/geofence").json as? [String: Any])?["inForce"] as? [String: Any]
            #expect(after?["epoch"] as? Int == epoch, "\(String(describing: after))")
            let cleared = try http(lab, "POST", "/api/v1/geofence/clear", body: "{}")
            let clearedFence = (cleared.json as? [String: Any])?["inForce"] as? [String: Any]
            #expect(
                cleared.status == 200 && clearedFence?["corners"] == nil
                    && (clearedFence?["epoch"] as? Int ?? 0) > epoch, "\(cleared.body)")
            try await waitUntil("the drone takes the cleared fence", timeout: .seconds(5)) {
                let r = try ControlClient.request(
                    ControlRequest.geofence, socket: drone.socketPath, timeout: .seconds(2))
                return r.geofence?.inForce?.corners == nil && r.geofence?.nodes.first?.current == true
            }

            // Refusals: each a 4xx (or the node's own rejection) whose text names what was wrong.
            // The mesh draws numbers at random: 99 is the drone's own now and then.
            let free = uavNumberNobodyHolds([uav])
            let unknownUAV = try http(lab, "POST", "/api/v1/uavs/\(free)/commands", body: #"{"args":["land"]}"#)
            #expect(
                unknownUAV.status == 200 && unknownUAV.body.contains("unknown UAV number \(free)"), "\(unknownUAV.body)"
            )
            let cases: [(String, String, String?, Int, String)] = [
                ("POST", "/api/v1/uavs/\(uav)/commands", "{not json", 400, "malformed JSON"),
                ("POST", "/api/v1/uavs/\(uav)/commands", "[1,2]", 400, "malformed JSON: expected one object"),
                ("POST", "/api/v1/uavs/\(uav)/commands", #"{"args":["fly"]}"#, 400, "send: unknown command 'fly'"),
                ("POST", "/api/v1/uavs/\(uav)/commands", #"{"args":"land"}"#, 400, "args"),
                ("POST", "/api/v1/uavs/\(uav)/commands", #"{"args":["land"],"uav":3}"#, 400, #"unknown field "uav""#),
                ("POST", "/api/v1/uavs/\(uav)/commands", #"{"args":["land"],"timeoutMs":-5}"#, 400, "timeoutMs"),
                (
                    "POST", "/api/v1/uavs/\(uav)/commands", #"{"args":["land"],"takeover":null}"#, 400,
                    "takeover is null"
                ),
                (
                    "POST", "/api/v1/group-commands", #"{"uavs":[\#(uav)],"args":["hover"],"leadMs":50}"#, 400,
                    #"group: "leadMs" must be 100–60000, found 50"#
                ),
                ("POST", "/api/v1/group-commands", #"{"uavs":[],"args":["hover"]}"#, 400, #"group: "uavs" must list"#),
                (
                    "POST", "/api/v1/group-commands", #"{"uavs":[\#(uav)],"args":["fly"]}"#, 400,
                    "group: unknown command 'fly'"
                ),
                (
                    "POST", "/api/v1/group-commands", #"{"uavs":[1],"args":["hover"],"v":1}"#, 400,
                    #"group: unknown field "v""#
                ),
                ("GET", "/api/v1/group-commands", nil, 405, "it takes POST"),
                ("PUT", "/api/v1/vehicles", "{}", 405, "PUT is not allowed on /api/v1/vehicles (it takes GET, HEAD)"),
                ("GET", "/api/v1/targets", nil, 405, "it takes POST"),
                ("POST", "/api/v1/uavs/0/commands", #"{"args":["land"]}"#, 400, "uav"),
                ("POST", "/api/v1/uavs/abc/commands", #"{"args":["land"]}"#, 400, "uav: expected a UAV number"),
                ("POST", "/api/v1/targets", #"{"latitude":95,"longitude":14,"altitude":10,"all":true}"#, 400, "-90…90"),
                ("GET", "/api/v1/nothing", nil, 404, "no such resource: GET /api/v1/nothing"),
                ("POST", "/api/v1/uavs/\(uav)/trajectory-preview", "[1]", 400, "malformed JSON: expected one object"),
                (
                    "POST", "/api/v1/uavs/\(uav)/trajectory-preview", #"{"waypoints":"50,14,10"}"#, 400,
                    "waypoints: expected an array"
                ),
                ("POST", "/api/v1/uavs/\(uav)/trajectory-preview", #"{"waypoints":[]}"#, 400, "at least one waypoint"),
                (
                    "POST", "/api/v1/uavs/\(uav)/trajectory-preview", #"{"waypoints":[[50,14]]}"#, 400,
                    "waypoints[0]: expected [latitude, longitude, altitude]"
                ),
                (
                    "POST", "/api/v1/uavs/\(uav)/trajectory-preview", #"{"waypoints":[[50,14,10],[50,"x",10]]}"#,
                    400, #"waypoints[1][1]: expected a number, found the string "x""#
                ),
                (
                    "POST", "/api/v1/uavs/\(uav)/trajectory-preview", #"{"waypoints":[[95,14,10]]}"#, 400,
                    "waypoints[0][0]: latitude must be within -90…90 degrees"
                ),
                (
                    "POST", "/api/v1/uavs/\(uav)/trajectory-preview",
                    #"{"waypoints":[\#(Array(repeating: "[50,14,10]", count: 201).joined(separator: ","))]}"#, 400,
                    "waypoints: at most 200 waypoints, found 201"
                ),
                (
                    "POST", "/api/v1/uavs/\(uav)/trajectory-preview", #"{"waypoints":[[50,14,10]],"speed":3}"#, 400,
                    #"trajectory-preview: unknown field "speed""#
                ),
                (
                    "POST", "/api/v1/uavs/\(free)/trajectory-preview", #"{"waypoints":[[50,14,10]]}"#, 404,
                    "uav: no drone holds UAV number \(free)"
                ),
                (
                    "POST", "/api/v1/uavs/abc/trajectory-preview", #"{"waypoints":[[50,14,10]]}"#, 400,
                    "uav: expected a UAV number 1–250"
                ),
                ("GET", "/api/v1/events?limit=5000", nil, 400, #"events: "limit" must be 1–1000, found 5000"#),
                ("GET", "/api/v1/events?after=x", nil, 400, #"events: "after" must be an integer, found "x""#),
                ("GET", "/api/v1/events?since=3", nil, 400, #"unknown query parameter "since""#),
            ]
            for (method, path, body, status, fragment) in cases {
                let r = try http(lab, method, path, body: body)
                #expect(
                    r.status == status && r.error?.contains(fragment) == true,
                    "\(method) \(path) \(body ?? ""): \(r.status) \(r.body)")
            }
            // Still answering after all that.
            #expect(try http(lab, "GET", "/api/v1/vehicles").status == 200)
            // The served OpenAPI document is valid OpenAPI 3 (openapi-spec-validator from PyPI).
            let document = lab.directory.appendingPathComponent("openapi.yaml").path
            try http(lab, "GET", "/api/openapi.yaml").body.write(toFile: document, atomically: true, encoding: .utf8)
            let check = try shell([
                "python3", "-c",
                "import sys, yaml; from openapi_spec_validator import validate; validate(yaml.safe_load(open(sys.argv[1])))",
                document,
            ])
            #expect(check.status == 0, "\(check.output)")

            // The page and its libraries come from the station itself.
            #expect(try http(lab, "GET", "/").body.contains("/vendor/leaflet/leaflet.js"))
            #expect(try http(lab, "GET", "/vendor/leaflet/leaflet.js").status == 200)

            #expect(try await station.stop() == 0)
            #expect(try await drone.stop() == 0)
            expectQuietLogs([station, drone])
        }
    }

    /// schemathesis (PyPI) generates requests from the served OpenAPI document against a station with a drone: no
    /// answer is a server error, none breaks the document (status, content type, body schema), malformed requests are
    /// refused, other methods are 405, and the node answers and stops cleanly afterwards. Left out: schemathesis's
    /// check that every schema-valid request is accepted — a command's words (`["takeoff", "10"]`), a waypoint's
    /// latitude inside its [lat, lon, alt] triple or a path's 20 km limit are rules OpenAPI 3.0's schemas cannot
    /// state, and their refusals (400, naming the field) are what the API test checks.
    @Test func schemathesisFindsNoServerErrorAndNoAnswerOutsideTheDocument() async throws {
        try await Lab.with(hosts: 2) { lab in
            // The drone's number is pinned away from the ends of 1…250: schemathesis's coverage phase sends group
            // commands to the smallest numbers ([1, 2]) with a 60 s lead, and a request that reaches a real drone
            // rightly waits for the command's end, past the 15 s request timeout (a claimed number is 1 or 2 in one
            // run of 125: the lab's one failure of this test).
            let (station, drone, _) = try await fleet(lab, droneExtra: "[drone]\nuav_number = 123")
            let report = lab.directory.appendingPathComponent("schemathesis").path
            let run = try shell(
                lab.onHost(
                    1,
                    [
                        // Its module, not its console script: a fresh pip install may not be on PATH yet (pyenv).
                        "python3", "-c",
                        "import sys; from schemathesis.cli import schemathesis; sys.exit(schemathesis())",
                        "run", "http://127.0.0.1:8080/api/openapi.yaml", "--checks", "all",
                        "--exclude-checks", "positive_data_acceptance",
                        "--max-examples", "15", "--generation-deterministic", "--request-timeout", "15",
                        "--report", "junit", "--report-dir", report, "--no-color",
                    ]))
            #expect(run.status == 0, "\(run.output.suffix(8000))")
            let summary = run.output.split(separator: "\n").filter {
                $0.contains("passed") || $0.contains("failed") || $0.contains("test cases")
            }
            print("schemathesis: \(summary.suffix(4).joined(separator: " | "))")
            #expect(try http(lab, "GET", "/api/v1/vehicles").status == 200)
            #expect(try await station.stop() == 0)
            #expect(try await drone.stop() == 0)
        }
    }

    /// The live WebSocket: a full picture first; the drone's telemetry pushed at the default pace, then at every
    /// sample once watched; refused messages answered naming the field; a client that never reads changes neither
    /// another client's pace nor the station's memory, and the station stops cleanly with it still connected.
    @Test func theLiveStreamPacesEachClientAndSurvivesOneThatNeverReads() async throws {
        try await Lab.with(hosts: 2) { lab in
            let (station, drone, uav) = try await fleet(lab)
            let pid = try station.nodePID()
            let script = repositoryRoot.appendingPathComponent("Tests/LabTests/dashboard_live.py").path
            let client = try lab.start(
                host: 1, tag: "live", ["python3", "-u", script, "http://127.0.0.1:8080", String(uav), String(pid)])
            try await waitUntil("the live client reports", timeout: .seconds(60)) {
                client.output.contains("HOLDING") || !client.process.isRunning
            }
            let findings = client.output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
            let parsed = (try? JSONSerialization.jsonObject(with: Data(findings.utf8))) as? [String: Any]
            #expect(
                parsed != nil && parsed?["failure"] == nil,
                "\(findings.isEmpty ? client.output.suffix(3000) : Substring(findings))")
            let unwatched = parsed?["unwatchedPerSecond"] as? Double ?? 0
            let watched = parsed?["watchedPerSecond"] as? Double ?? 0
            // 10 Hz telemetry: thinned to the 5 Hz default while unwatched, every sample while watched at 20 Hz.
            #expect(unwatched >= 2 && unwatched <= 6.5, "\(findings)")
            #expect(watched >= 8 && watched >= unwatched * 1.5, "\(findings)")
            #expect((parsed?["watchedPerSecondBesideASilentClient"] as? Double ?? 0) >= 8, "\(findings)")
            #expect((parsed?["stationRssGrowthMb"] as? Double ?? 99) < 20, "\(findings)")
            // It did back up: the station holds undelivered bytes for it (and no more than its socket takes).
            #expect((parsed?["silentClientSendQueueBytes"] as? Int ?? 0) > 0, "\(findings)")
            print("live stream: \(findings)")
            // The silent client is still connected: the station stops cleanly all the same.
            #expect(client.process.isRunning)
            #expect(try await station.stop() == 0)
            client.process.signal(SIGKILL)
            #expect(try await drone.stop() == 0)
            expectQuietLogs([drone])
        }
    }

    /// `/readyz` fails while the station's ground-control port is held by another program and passes once the station
    /// could bind it (it retries every 5 s); `fleetmesh status` says which.
    @Test func readinessWaitsForTheGroundControlPort() async throws {
        try await Lab.with(hosts: 1) { lab in
            // Another program (QGroundControl, say) holds UDP 14550 on the station's machine.
            let holder = try lab.start(host: 1, tag: "holder", ["socat", "-u", "UDP-RECV:14550", "/dev/null"])
            // The holder must own the port before the station starts (else the station binds it first).
            try await waitUntil("the holder has bound UDP 14550", timeout: .seconds(5)) {
                try shell(lab.onHost(1, ["ss", "-H", "-uln", "sport = :14550"])).output.contains("14550")
            }
            let station = try lab.startNode(
                host: 1, name: "station", role: "station", extra: "[ground_control]\nport = 14550", logLevel: "info")
            var report = Exchange(status: 0, headers: "", body: "")
            try await waitUntil("/readyz names the ground-control port", timeout: .seconds(10)) {
                report = try http(lab, "GET", "/readyz")
                return report.body.contains("ground control: cannot bind UDP 14550")
            }
            #expect(report.status == 503, "\(report.body)")
            #expect(try station.status().node.groundControl?.hasPrefix("cannot bind UDP 14550") == true)
            holder.process.signal(SIGKILL)
            _ = holder.process.wait()
            try await waitUntil("/readyz passes once the port is free", timeout: .seconds(10)) {
                report = try http(lab, "GET", "/readyz")
                return report.status == 200
            }
            #expect(report.body.contains(#""ready":true"#), "\(report.body)")
            #expect(try station.status().node.groundControl == "listening on UDP 14550")
            #expect(try await station.stop() == 0)
        }
    }

    /// Off loopback the dashboard needs accounts; then every API request needs a session, every command a CSRF
    /// token and an operator, logins are limited per address and per account, and passwords never reach the log.
    /// A self-signed certificate for `address` and its key, made with openssl as an operator would, in the lab's
    /// folder (`dashboard.crt`, `dashboard.key`).
    func dashboardCertificate(_ lab: Lab, address: String) throws {
        let r = try shell([
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=station", "-addext", "subjectAltName=IP:\(address)",
            "-keyout", lab.directory.appendingPathComponent("dashboard.key").path,
            "-out", lab.directory.appendingPathComponent("dashboard.crt").path,
        ])
        #expect(r.status == 0, "openssl: \(r.output)")
    }

    /// Off loopback, over HTTPS (the way a station should be reached from the field's network): accounts, roles,
    /// the login limit, cookies, CSRF and Origin checks, the live stream over WSS.
    @Test func accountsGuardTheDashboardOffLoopback() async throws {
        try await Lab.with(hosts: 3) { lab in
            let address = try lab.address(1)
            try dashboardCertificate(lab, address: address)
            let certificate = lab.directory.appendingPathComponent("dashboard.crt").path
            let passwords = [
                "watch": "viewer-secret-4711", "pilot": "operator-secret-0815", "spare": "spare-secret-1234",
            ]
            // Cost 4 keeps the test fast; the config takes any bcrypt cost (fleetmesh hash-password uses 12).
            let accounts = [("watch", "viewer"), ("pilot", "operator"), ("spare", "viewer")].map { name, role in
                """
                [[dashboard.accounts]]
                name = "\(name)"
                role = "\(role)"
                password_hash = "\(DashboardPassword.hash(passwords[name]!, cost: 4))"
                """
            }
            let station = try lab.startNode(
                host: 1, name: "station", role: "station",
                extra: "[dashboard]\nlisten = \"\(address):8080\"\n"
                    + "tls_certificate = \"\(certificate)\"\ntls_key = \"\(lab.directory.path)/dashboard.key\"\n"
                    + accounts.joined(separator: "\n"), logLevel: "info")
            let drone = try lab.startNode(host: 2, name: "drone-2", logLevel: "info")
            let base = "https://\(address):8080"
            let uav = try await numberedDrone(at: station)
            // From another machine (host 3): health and the page are public, the API is not.
            try await waitUntil("the dashboard answers on \(address)", timeout: .seconds(5)) {
                try http(lab, "GET", "/healthz", from: 3, base: base).status == 200
            }
            #expect(try http(lab, "GET", "/", from: 3, base: base).status == 200)
            // It is TLS with this certificate: a client that does not trust it, or that speaks plain HTTP, gets nothing.
            let untrusted = try shell(lab.onHost(3, ["curl", "-s", "-m", "10", "-o", "/dev/null", base + "/healthz"]))
            #expect(untrusted.status == 60, "curl without the certificate: exit \(untrusted.status)")
            let plain = try http(lab, "GET", "/healthz", from: 3, base: "http://\(address):8080")
            #expect(plain.status == 0 && !plain.body.contains("alive"), "plain HTTP: \(plain.status) \(plain.body)")
            let anonymous = try http(lab, "GET", "/api/v1/vehicles", from: 3, base: base)
            #expect(anonymous.status == 401 && anonymous.error?.contains("not logged in") == true, "\(anonymous.body)")
            // Map tiles show where the fleet works: they need a session too (this station has no tile folder).
            #expect(try http(lab, "GET", "/tiles/1/0/0.png", from: 3, base: base).status == 401)

            // Five wrong guesses at "spare" from host 3 are answered 401; the sixth, even with the right password, 429.
            func login(_ name: String, _ password: String, from host: Int, jar: String? = nil) throws -> Exchange {
                try http(
                    lab, "POST", "/api/v1/login", body: #"{"name":"\#(name)","password":"\#(password)"}"#, from: host,
                    base: base, jar: jar)
            }
            for i in 1...5 {
                let r = try login("spare", "guess-\(i)", from: 3)
                #expect(r.status == 401 && r.error == "wrong name or password", "guess \(i): \(r.status) \(r.body)")
            }
            let limited = try login("spare", passwords["spare"]!, from: 3)
            #expect(
                limited.status == 429 && limited.error?.contains("too many failed logins") == true, "\(limited.body)")
            #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0, "\(limited.headers)")
            // The limit holds for that account from any address, and for that address with any account.
            #expect(try login("spare", passwords["spare"]!, from: 2).status == 429)
            #expect(try login("watch", passwords["watch"]!, from: 3).status == 429)
            // Unknown names count as failures too, and answer exactly as a wrong password does.
            let unknown = try login("nobody", "whatever", from: 2)
            #expect(unknown.status == 401 && unknown.error == "wrong name or password", "\(unknown.body)")

            // The viewer, from host 2: a session cookie (Secure, HttpOnly, SameSite=Strict) and a CSRF token.
            let viewerJar = lab.directory.appendingPathComponent("viewer.cookies").path
            let viewer = try login("watch", passwords["watch"]!, from: 2, jar: viewerJar)
            #expect(viewer.status == 200, "\(viewer.body)")
            let cookie = viewer.header("Set-Cookie") ?? ""
            #expect(
                cookie.hasPrefix("fleetmesh_session=") && cookie.contains("HttpOnly")
                    && cookie.contains("SameSite=Strict") && cookie.contains("Secure"), "\(cookie)")
            let viewerSession = try #require(viewer.json as? [String: Any])
            #expect(viewerSession["role"] as? String == "viewer")
            let viewerToken = try #require(viewerSession["csrfToken"] as? String)
            #expect(viewerToken.count == 64)
            #expect(try http(lab, "GET", "/api/v1/vehicles", from: 2, base: base, jar: viewerJar).status == 200)
            // /metrics is read as the API is: a session of any role.
            #expect(try http(lab, "GET", "/metrics", from: 3, base: base).status == 401)
            let viewerMetrics = try http(lab, "GET", "/metrics", from: 2, base: base, jar: viewerJar)
            #expect(
                viewerMetrics.status == 200 && viewerMetrics.body.contains("fleetmesh_sessions 1"),
                "\(viewerMetrics.body)")
            let noTile = try http(lab, "GET", "/tiles/1/0/0.png", from: 2, base: base, jar: viewerJar)
            #expect(noTile.status == 404 && noTile.body.isEmpty, "\(noTile.body)")
            let map = try http(lab, "GET", "/api/v1/map", from: 2, base: base, jar: viewerJar)
            #expect(map.body == #"{"inspection":false,"overlays":[],"tiles":null}"#, "\(map.body)")
            let viewerCommand = try http(
                lab, "POST", "/api/v1/uavs/\(uav)/commands", body: #"{"args":["hover"]}"#, from: 2, base: base,
                headers: ["X-CSRF-Token: \(viewerToken)"], jar: viewerJar)
            #expect(viewerCommand.status == 403 && viewerCommand.error?.contains("is a viewer") == true)
            // On the live WebSocket the viewer watches but cannot drive: a manual sample is refused, naming the role.
            let viewerCookie = String(cookie.prefix { $0 != ";" })
            let viewerLive = try shell(
                lab.onHost(
                    2,
                    [
                        "python3", "-c",
                        """
                        import json, sys, websocket
                        ws = websocket.create_connection(
                            sys.argv[1], header=["Cookie: " + sys.argv[2]], timeout=5, sslopt={"ca_certs": sys.argv[4]})
                        ws.send(json.dumps({"type": "manual", "uav": int(sys.argv[3]), "axes": [1000, 0, 0, 0]}))
                        while True:
                            m = json.loads(ws.recv())
                            if m["type"] == "error":
                                print(m["error"])
                                break
                        """,
                        base.replacingOccurrences(of: "https://", with: "wss://") + "/api/v1/live", viewerCookie,
                        String(uav), certificate,
                    ]))
            #expect(viewerLive.output.contains("account \"watch\" is a viewer"), "\(viewerLive.output)")
            // Without a session there is no live stream at all (hummingbird-websocket answers every refused upgrade
            // with a bare 400).
            let anonymousLive = try shell(
                lab.onHost(
                    3,
                    [
                        "python3", "-c",
                        """
                        import sys, websocket
                        try:
                            websocket.create_connection(sys.argv[1], timeout=5, sslopt={"ca_certs": sys.argv[2]})
                            print("connected")
                        except websocket.WebSocketBadStatusException as e:
                            print(e.status_code, e.resp_body)
                        """,
                        base.replacingOccurrences(of: "https://", with: "wss://") + "/api/v1/live", certificate,
                    ]))
            #expect(anonymousLive.output.hasPrefix("400"), "\(anonymousLive.output)")
            let viewerPreview = try http(
                lab, "POST", "/api/v1/uavs/\(uav)/trajectory-preview", body: #"{"waypoints":[[50,14,10]]}"#, from: 2,
                base: base, headers: ["X-CSRF-Token: \(viewerToken)"], jar: viewerJar)
            #expect(
                viewerPreview.status == 403 && viewerPreview.error?.contains("is a viewer") == true,
                "\(viewerPreview.body)")

            // The operator, from the station's own host (its address, not loopback): commands need the CSRF token.
            let pilotJar = lab.directory.appendingPathComponent("pilot.cookies").path
            #expect(try login("pilot", passwords["pilot"]!, from: 1, jar: pilotJar).status == 200)
            let token = try #require(
                (try http(lab, "GET", "/api/v1/session", from: 1, base: base, jar: pilotJar).json as? [String: Any])?[
                    "csrfToken"] as? String)
            let path = "/api/v1/uavs/\(uav)/commands"
            let hover = #"{"args":["hover"],"timeoutMs":20000}"#
            let refusals: [(Exchange, Int, String)] = [
                (try http(lab, "POST", path, body: hover, base: base, jar: pilotJar), 403, "X-CSRF-Token"),
                (
                    try http(
                        lab, "POST", path, body: hover, base: base, headers: ["X-CSRF-Token: \(viewerToken)"],
                        jar: pilotJar),
                    403, "X-CSRF-Token"
                ),
                (
                    try http(
                        lab, "POST", path, body: hover, base: base,
                        headers: ["X-CSRF-Token: \(token)", "Origin: http://evil.example"], jar: pilotJar), 403,
                    "Origin http://evil.example is not this dashboard"
                ),
                (
                    try http(
                        lab, "POST", path, body: hover, base: base, headers: ["X-CSRF-Token: \(token)"], jar: pilotJar,
                        contentType: "text/plain"), 415, "application/json"
                ),
                (
                    try http(lab, "POST", path, body: hover, base: base, headers: ["X-CSRF-Token: \(token)"]), 401,
                    "not logged in"
                ),
            ]
            for (r, status, fragment) in refusals {
                #expect(r.status == status && r.error?.contains(fragment) == true, "\(r.status) \(r.body)")
            }
            let command = try http(
                lab, "POST", path, body: hover, base: base, headers: ["X-CSRF-Token: \(token)", "Origin: \(base)"],
                jar: pilotJar)
            #expect(command.status == 200 && command.body.contains("\"answers\""), "\(command.status) \(command.body)")

            // Logged out, the session is gone on the station: its cookie, sent again, opens nothing.
            let jarLine = try String(contentsOfFile: pilotJar, encoding: .utf8).split(separator: "\n").first {
                $0.contains("fleetmesh_session")
            }
            let sessionCookie = try #require(jarLine?.split(separator: "\t").last.map(String.init))
            #expect(
                try http(
                    lab, "POST", "/api/v1/logout", body: "{}", base: base, headers: ["X-CSRF-Token: \(token)"],
                    jar: pilotJar
                )
                .status == 200)
            let old = try http(
                lab, "GET", "/api/v1/vehicles", base: base, headers: ["Cookie: fleetmesh_session=\(sessionCookie)"])
            #expect(old.status == 401, "\(old.body)")
            // The viewer's session is untouched.
            #expect(try http(lab, "GET", "/api/v1/vehicles", from: 2, base: base, jar: viewerJar).status == 200)

            #expect(try await station.stop() == 0)
            #expect(try await drone.stop() == 0)
            // The failed logins are in the log (the refused one as a warning), the passwords nowhere.
            for secret in passwords.values + ["guess-1", "whatever"] {
                #expect(!station.log.contains(secret), "\(secret) logged")
            }
            #expect(station.log.contains("failed login as \"spare\" from"))
            expectQuietLogs([drone])
        }
    }

    /// The station serves on its lab address with an operator account: the page asks for the login first. After the
    /// takeoff a path drawn on the map is previewed and flown; a group command goes to both drones after the page's
    /// confirmation; the page fits a phone.
    @Test func aBrowserSeesTheDroneAndATakeoffClickedOnThePageFliesIt() async throws {
        try await Lab.with(hosts: 3) { lab in
            let address = try lab.address(1)
            let (station, _, uav) = try await fleet(
                lab,
                stationExtra: """
                    [dashboard]
                    listen = "\(address):8080"
                    [[dashboard.accounts]]
                    name = "pilot"
                    role = "operator"
                    password_hash = "\(DashboardPassword.hash("operator-secret-0815", cost: 4))"
                    """)
            // A second drone, on the ground, for the group command.
            let second = try lab.startNode(host: 3, name: "drone-3", logLevel: "info")
            try await waitUntil("the station sees both drones with numbers", timeout: .seconds(10)) {
                let r = try ControlClient.request(
                    ControlRequest.vehicles, socket: station.socketPath, timeout: .seconds(2))
                return (r.vehicles ?? []).filter { !$0.stale && $0.uavNumber != nil && $0.role == "drone" }.count == 2
            }
            let shots = repositoryRoot.appendingPathComponent(".build/test-artifacts/dashboard").path
            let script = repositoryRoot.appendingPathComponent("Tests/LabTests/dashboard_browser.py").path
            let browser = try lab.start(
                host: 1, tag: "browser",
                [
                    "python3", "-u", script, "http://\(address):8080", String(uav), shots, "pilot",
                    "operator-secret-0815",
                ])
            try await waitUntil(
                "the browser has flown the takeoff, the path and the group command", timeout: .seconds(180)
            ) {
                browser.output.contains("READY: cut the link") || !browser.process.isRunning
            }
            if browser.process.isRunning { try lab.lab("cut", "2") }
            try await waitUntil("the browser script ends", timeout: .seconds(40)) { !browser.process.isRunning }
            let status = browser.process.wait()
            let findings = browser.output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
            #expect(status == 0, "\(findings.isEmpty ? browser.output.suffix(3000) : Substring(findings))")
            let parsed = (try? JSONSerialization.jsonObject(with: Data(findings.utf8))) as? [String: Any]
            #expect((parsed?["altitudeRisenTo"] as? Double ?? 0) > 3, "\(findings)")
            #expect(
                (parsed?["events"] as? [String])?.contains { $0.contains("takeoff 6: accepted") } == true, "\(findings)"
            )
            #expect(parsed?["account"] as? String == "pilot (operator)", "\(findings)")
            // The page's requests were seen (and every one went to the station, or the script failed).
            #expect((parsed?["requests"] as? Int ?? 0) > 5, "\(findings)")
            #expect((parsed?["plotSamples"] as? Int ?? 0) >= 5, "\(findings)")
            #expect(parsed?["targetMarker"] as? Int == 1, "\(findings)")
            // The simulated gamepad drove it north, over a hundred samples a second.
            #expect((parsed?["drivenNorthM"] as? Double ?? 0) >= 4, "\(findings)")
            #expect((parsed?["manualSamples"] as? Int ?? 0) >= 100, "\(findings)")
            // The Drive button stayed where it was while the rows and facts above it changed (a shift moved it
            // under the pointer: a click meant for "Stop driving" pressed "Place target").
            #expect((parsed?["driveButtonTops"] as? [Int])?.count == 1, "\(findings)")
            #expect(FileManager.default.fileExists(atPath: shots + "/2-takeoff.png"))
            // A drawn trajectory is flown: the preview is the station's dense plan with its duration (two legs of
            // 22 and 18 m at 4 m/s and two turns: about 20 s), and the drone ends at the last waypoint.
            #expect((parsed?["previewPoints"] as? Int ?? 0) >= 30, "\(findings)")
            #expect((15...30).contains(parsed?["previewDurationS"] as? Double ?? 0), "\(findings)")
            #expect(parsed?["previewLines"] as? Int == 1, "\(findings)")
            #expect((parsed?["waypointClickErrorM"] as? Double ?? 99) < 1, "\(findings)")
            #expect((parsed?["trajectoryEndErrorM"] as? Double ?? 99) < 3, "\(findings)")
            #expect(abs((parsed?["pathAltitudeDefault"] as? Double ?? 0) - 6) < 1, "\(findings)")
            // The group hover: asked first in the page, then answered by each drone.
            #expect(
                (parsed?["groupConfirmation"] as? String)?.contains("2 drones at the same moment") == true,
                "\(findings)")
            #expect(parsed?["groupAnswers"] as? Int == 2, "\(findings)")
            // Scheduled on both drones through POST /api/v1/group-commands.
            #expect(parsed?["groupScheduled"] as? Int == 2, "\(findings)")
            #expect(parsed?["groupStart"] is String, "\(findings)")
            // The drone this station took off carries its "you" badge, in the list and the panel too.
            #expect(parsed?["controllerBadge"] as? String == "you", "\(findings)")
            #expect(parsed?["controllerCell"] as? String == "you", "\(findings)")
            #expect(
                (parsed?["controllerFacts"] as? String)?.hasPrefix("controlled by this station") == true, "\(findings)")
            #expect((parsed?["phone"] as? [String: Any])?["width"] as? Int ?? 999 <= 400, "\(findings)")
            // The geofence drawn on the page: four corners (five clicked, one removed), the dragged one where it was
            // dropped, uploaded, drawn as the fence in force and flown by both drones, each saying so itself.
            #expect(
                (parsed?["fenceAnswer"] as? String)?.contains("Uploaded: 4 corners, 2.0–40.0 m") == true, "\(findings)")
            #expect(parsed?["fenceAdopted"] as? Int == 2 && parsed?["fencePolygons"] as? Int == 1, "\(findings)")
            #expect((parsed?["fenceCorners"] as? [[Double]])?.count == 4, "\(findings)")
            #expect((parsed?["fenceDragErrorM"] as? Double ?? 99) < 1.5, "\(findings)")
            #expect((parsed?["fenceFact"] as? String)?.hasPrefix("geofence: the one in force") == true, "\(findings)")
            let fenceEpoch = UInt64(parsed?["fenceEpoch"] as? Int ?? 0)
            for node in [station, second] {
                let r = try ControlClient.request(
                    ControlRequest.geofence, socket: node.socketPath, timeout: .seconds(2))
                #expect(
                    r.geofence?.inForce?.epoch == fenceEpoch && r.geofence?.inForce?.corners?.count == 4, "\(node.name)"
                )
                #expect(r.geofence?.nodes.first?.current == true, "\(node.name)")
            }
            for shot in [
                "2-takeoff", "3-trajectory-preview", "3-trajectory", "4-group-confirm", "5-phone", "6-geofence",
                "5-phone-geofence",
            ] {
                #expect(FileManager.default.fileExists(atPath: shots + "/\(shot).png"), "\(shot)")
            }
            print("dashboard in Chromium: \(findings)")
            // The station stops cleanly with a browser's live stream still open.
            #expect(try await station.stop() == 0)
            // Off loopback without TLS, the station said at start what that exposes.
            #expect(station.log.contains("without TLS: passwords and session cookies cross the network readable"))
            #expect(try await second.stop() == 0)
        }
    }

    /// `[dashboard] tiles` and `overlays`: the station serves a tile folder and a GeoJSON outline written into the lab,
    /// the page in Chromium draws both around the drone with a layer switcher, loading nothing from elsewhere, and no
    /// path under /tiles/ reaches a file outside the folder.
    @Test func thePageDrawsTheStationsOfflineTilesAndGeoJSONOverlays() async throws {
        try await Lab.with(hosts: 2) { lab in
            let script = repositoryRoot.appendingPathComponent("Tests/LabTests/dashboard_tiles.py").path
            let (lat, lon) = (50.0755, 14.4378)
            let written = try shell(["python3", script, "write", lab.directory.path, "\(lat)", "\(lon)"])
            #expect(written.status == 0, "\(written.output)")
            let centre =
                (try? JSONSerialization.jsonObject(with: Data(written.output.utf8)) as? [String: Any])?[
                    "centre17"] as? [Int] ?? [0, 0]
            let station = try lab.startNode(
                host: 1, name: "station", role: "station",
                extra: """
                    [dashboard]
                    tiles = "\(lab.directory.path)/tiles"
                    tiles_max_zoom = 17
                    tiles_attribution = "<b>lab</b> survey"
                    overlays = [{ name = "site outline", file = "site.geojson" }]
                    """, logLevel: "info")
            let drone = try lab.startNode(host: 2, name: "drone-2", extra: "[drone]\nhome = [\(lat), \(lon)]")
            let uav = try await numberedDrone(at: station)

            // What the station says it has, and what it serves.
            let answer = try http(lab, "GET", "/api/v1/map")
            #expect(
                answer.body
                    == #"{"inspection":false,"overlays":[{"name":"site outline","url":"\/api\/v1\/overlays\/0"}],"tiles":{"attribution":"<b>lab<\/b> survey","maxZoom":17,"url":"\/tiles\/{z}\/{x}\/{y}.png"}}"#,
                "\(answer.body)")
            let overlay = try http(lab, "GET", "/api/v1/overlays/0")
            #expect(overlay.status == 200 && overlay.header("Content-Type") == "application/geo+json")
            #expect(overlay.body.contains(#""type":"FeatureCollection""#), "\(overlay.body)")
            #expect(try http(lab, "GET", "/api/v1/overlays/1").status == 404)
            #expect(
                try http(lab, "GET", "/api/v1/overlays/x").error?.contains("index: expected an overlay number") == true)
            let tile = try http(lab, "GET", "/tiles/17/\(centre[0])/\(centre[1]).png")
            #expect(tile.status == 200 && tile.header("Content-Type") == "image/png", "\(tile.headers)")
            let tileFile = lab.directory.path + "/tiles/17/\(centre[0])/\(centre[1]).png"
            let size = (try? FileManager.default.attributesOfItem(atPath: tileFile)[.size] as? Int) ?? -1
            #expect(tile.header("Cache-Control") == "private, max-age=3600", "\(tile.headers)")
            #expect(tile.header("Content-Length") == String(size), "\(tile.headers)")
            // Nothing but a tile of the folder: an empty 404 for the rest, sent as written (curl --path-as-is).
            for path in [
                "/tiles/../../etc/passwd", "/tiles/../mesh.key", "/tiles/%2e%2e/%2e%2e/etc/passwd", "/tiles/1/2/x.png",
                "/tiles/17/\(centre[0])/\(centre[1]).jpg", "/tiles/18/0/0.png", "/tiles/1/2/0.png", "/tiles/",
                "/tiles/17/\(centre[0])/../../../site.geojson", "/tiles/17//\(centre[1]).png",
            ] {
                let r = try shell(
                    lab.onHost(
                        1,
                        [
                            "curl", "-s", "-i", "--path-as-is", "-m", "10", "-w", "\n%{http_code}",
                            "http://127.0.0.1:8080" + path,
                        ]))
                let status = r.output.split(separator: "\n").last.map(String.init)
                #expect(status == "404", "\(path): \(r.output)")
                #expect(r.output.hasSuffix("\r\n\r\n\n404") && !r.output.contains("root:"), "\(path): \(r.output)")
            }

            let shots = repositoryRoot.appendingPathComponent(".build/test-artifacts/dashboard").path
            let browser = try lab.start(
                host: 1, tag: "browser",
                ["python3", "-u", script, "browse", "http://127.0.0.1:8080", String(uav), "site outline", shots])
            try await waitUntil("the browser script ends", timeout: .seconds(60)) { !browser.process.isRunning }
            let status = browser.process.wait()
            let findings = browser.output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
            #expect(status == 0, "\(findings.isEmpty ? browser.output.suffix(3000) : Substring(findings))")
            let parsed = (try? JSONSerialization.jsonObject(with: Data(findings.utf8))) as? [String: Any]
            #expect((parsed?["tiles"] as? Int ?? 0) >= 2, "\(findings)")
            #expect(
                (parsed?["requests"] as? Int ?? 0) > 5 && (parsed?["tileRequests"] as? Int ?? 0) >= 2, "\(findings)")
            #expect(parsed?["tileZooms"] as? [Int] == [17], "\(findings)")
            #expect(parsed?["layerControl"] as? [String] == ["Metric grid", "Tiles", "site outline"], "\(findings)")
            // The attribution is text: the configured markup shows as written, not as bold.
            #expect(parsed?["attribution"] as? String == "<b>lab</b> survey", "\(findings)")
            #expect(FileManager.default.fileExists(atPath: shots + "/6-tiles-overlay.png"))
            print("dashboard map layers in Chromium: \(findings)")
            #expect(try await station.stop() == 0)
            #expect(try await drone.stop() == 0)
        }
    }
}
