import ControlProtocol
import Foundation
import LabKit
import Testing

/// The station dashboard against real nodes in the lab: its HTTP API over real sockets (answers and refusals), and the
/// page in real headless Chromium (Selenium), which must load nothing from beyond the station.
@Suite(.serialized) struct DashboardLabTests {
    /// One HTTP exchange with the station's dashboard, made with curl on the station's lab host.
    struct Exchange {
        var status: Int
        var body: String
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) }
        var error: String? { (json as? [String: Any])?["error"] as? String }
    }

    func http(_ lab: Lab, _ method: String, _ path: String, body: String? = nil) throws -> Exchange {
        var command = ["curl", "-s", "-m", "40", "-X", method, "-w", "\n%{http_code}", "http://127.0.0.1:8080" + path]
        if let body { command += ["-H", "Content-Type: application/json", "--data-raw", body] }
        let r = try shell(lab.onHost(1, command))
        let lines = r.output.split(separator: "\n", omittingEmptySubsequences: false)
        return Exchange(status: Int(lines.last ?? "") ?? 0, body: lines.dropLast().joined(separator: "\n"))
    }

    /// Starts a station and a drone; returns them with the drone's UAV number once the station sees it.
    func fleet(_ lab: Lab) async throws -> (station: NodeProcess, drone: NodeProcess, uav: Int) {
        let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "info")
        let drone = try lab.startNode(host: 2, name: "drone-2", logLevel: "info")
        var uav = 0
        try await waitUntil("the station sees the drone with a number", timeout: .seconds(10)) {
            let r = try ControlClient.request(ControlRequest.vehicles, socket: station.socketPath, timeout: .seconds(2))
            guard let n = r.vehicles?.first(where: { !$0.stale && $0.uavNumber != nil })?.uavNumber else {
                return false
            }
            uav = n
            return true
        }
        return (station, drone, uav)
    }

    @Test func theAPIAnswersAsTheCLIDoesAndRefusesBadRequestsNamingTheField() async throws {
        try await Lab.with(hosts: 2) { lab in
            let (station, drone, uav) = try await fleet(lab)
            try await waitUntil("the dashboard listens", timeout: .seconds(5)) {
                try http(lab, "GET", "/healthz").status == 200
            }
            #expect(try http(lab, "GET", "/readyz").status == 200)

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

            // Refusals: each a 4xx (or the node's own rejection) whose text names what was wrong.
            let unknownUAV = try http(lab, "POST", "/api/v1/uavs/99/commands", body: #"{"args":["land"]}"#)
            #expect(unknownUAV.status == 200 && unknownUAV.body.contains("unknown UAV number 99"), "\(unknownUAV.body)")
            let cases: [(String, String, String?, Int, String)] = [
                ("POST", "/api/v1/uavs/\(uav)/commands", "{not json", 400, "malformed JSON"),
                ("POST", "/api/v1/uavs/\(uav)/commands", "[1,2]", 400, "malformed JSON: expected one object"),
                ("POST", "/api/v1/uavs/\(uav)/commands", #"{"args":["fly"]}"#, 400, "send: unknown command 'fly'"),
                ("POST", "/api/v1/uavs/\(uav)/commands", #"{"args":"land"}"#, 400, "args"),
                ("POST", "/api/v1/uavs/\(uav)/commands", #"{"args":["land"],"uav":3}"#, 400, #"unknown field "uav""#),
                ("POST", "/api/v1/uavs/\(uav)/commands", #"{"args":["land"],"timeoutMs":-5}"#, 400, "timeoutMs"),
                ("POST", "/api/v1/uavs/0/commands", #"{"args":["land"]}"#, 400, "uav"),
                ("POST", "/api/v1/uavs/abc/commands", #"{"args":["land"]}"#, 400, "uav: expected a UAV number"),
                ("POST", "/api/v1/targets", #"{"latitude":95,"longitude":14,"altitude":10,"all":true}"#, 400, "-90…90"),
                ("GET", "/api/v1/nothing", nil, 404, "no such resource: GET /api/v1/nothing"),
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

    @Test func aBrowserSeesTheDroneAndATakeoffClickedOnThePageFliesIt() async throws {
        try await Lab.with(hosts: 2) { lab in
            let (station, _, uav) = try await fleet(lab)
            let shots = repositoryRoot.appendingPathComponent(".build/test-artifacts/dashboard").path
            let script = repositoryRoot.appendingPathComponent("Tests/LabTests/dashboard_browser.py").path
            let browser = try lab.start(
                host: 1, tag: "browser", ["python3", "-u", script, "http://127.0.0.1:8080", String(uav), shots])
            try await waitUntil("the browser has seen the takeoff", timeout: .seconds(60)) {
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
            #expect(FileManager.default.fileExists(atPath: shots + "/2-takeoff.png"))
            print("dashboard in Chromium: \(findings)")
            // The station stops cleanly with a browser's live stream still open.
            #expect(try await station.stop() == 0)
        }
    }
}
