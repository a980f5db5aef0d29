import ControlProtocol
import Foundation
import Geodesy
import Inspection
import LabKit
import Testing

/// Inspection on real processes: `fleetmesh plan example` and `fleetmesh plan inspection` write a bridge's cloud and
/// a route through its snapshot points; the station sends the route to a simulated drone with `fleetmesh send N
/// trajectory @route.txt`; the drone flies under the deck, and its track, as the station saw it, keeps the
/// clearance from every point of the cloud.
@Suite(.serialized) struct InspectionLabTests {
    func fleetmesh(_ args: [String]) throws -> (status: Int32, output: String) {
        try shell([try fleetmeshBinary()] + args)
    }

    @Test func aDroneFliesAPlannedInspectionRouteUnderABridge() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleetmesh-inspection-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The example site from the CLI, read back as any PCD would be.
        let example = try fleetmesh(["plan", "example", "bridge", "--dir", dir, "--encoding", "binary_compressed"])
        #expect(example.status == 0 && example.output.contains("bridge.pcd"), "\(example.output)")
        let site = try PointCloudReader.read(path: "\(dir)/bridge.pcd")
        #expect(site.format == "PCD binary_compressed" && site.points.count == SiteScene.bridge().cloud.points.count)
        // Moved 25 m east, so that the drone's home is west of the bridge, as in Config/scenarios/inspect-bridge.toml.
        let cloud = site.points.map { $0 + SIMD3<Float>(25, 0, 0) }
        try PointCloudWriter.write(cloud, as: .pcd(.binary), to: "\(dir)/site.pcd")
        try "x,y,z,heading\n10,0,3,90\n40,0,3,270\n25,0,3,0\n".write(
            toFile: "\(dir)/points.csv", atomically: true, encoding: .utf8)

        try await Lab.with(hosts: 2) { lab in
            let station = try lab.startNode(host: 1, name: "station-a", role: "station")
            _ = try lab.startNode(host: 2, name: "drone-2")
            var uav = 0
            try await waitUntil("the station sees drone-2 live with a number", timeout: .seconds(20)) {
                guard let v = try station.vehicles().first(where: { $0.name == "drone-2" && !$0.stale }),
                    let n = v.uavNumber
                else { return false }
                uav = n
                return true
            }
            let home = try #require(try station.vehicles().first { $0.name == "drone-2" })
            let origin = try MapOrigin(latitude: home.latitude, longitude: home.longitude)
            // Planned by the CLI from where the drone will hover after takeoff.
            let plan = try fleetmesh([
                "plan", "inspection", "--map", "\(dir)/site.pcd", "--points", "\(dir)/points.csv",
                "--origin", String(format: "%.8f,%.8f", home.latitude, home.longitude), "--start", "0,0,3",
                "--out", "\(dir)/route.txt", "--json",
            ])
            #expect(plan.status == 0, "\(plan.output)")
            let figures = try JSONSerialization.jsonObject(with: Data(plan.output.utf8)) as? [String: Any]
            let planned = try #require(figures?["minimumClearance"] as? Double, "\(plan.output)")
            #expect(planned >= 1.0)

            try await station.send(["takeoff", "3"], toUAV: uav)
            try await waitUntil("drone-2 hovering at 3 m", timeout: .seconds(20)) {
                try station.vehicles().contains {
                    $0.name == "drone-2" && $0.altitude > 2.7 && $0.activity == "hovering"
                }
            }
            // Fly the route while recording the drone's positions as the station sees them.
            // The CLI blocks until the drone is done: on a thread of its own, so that this task keeps recording
            // (a blocked thread of the concurrency pool would starve the loop below on two cores).
            let command = [
                try fleetmeshBinary(), "send", "--node", station.socketPath, "--timeout", "120", String(uav),
                "trajectory",
                "@\(dir)/route.txt",
            ]
            let flight = Task {
                try await withCheckedThrowingContinuation {
                    (done: CheckedContinuation<(status: Int32, output: String), Error>) in
                    Thread.detachNewThread { done.resume(with: Result { try shell(command) }) }
                }
            }
            var track: [SIMD3<Double>] = []
            var arrived = false
            let deadline = ContinuousClock.now + .seconds(120)
            while !arrived && ContinuousClock.now < deadline {
                if let v = try station.vehicles().first(where: { $0.name == "drone-2" }) {
                    let l = try origin.local(
                        GeodeticCoordinate(latitude: v.latitude, longitude: v.longitude, altitude: v.altitude))
                    track.append(SIMD3(l.east, l.north, l.up))
                    // Done when it hovers, still, at the last snapshot point (it only passes that spot on the way).
                    arrived =
                        v.activity == "hovering" && v.speed < 0.1 && abs(l.east - 25) < 0.5 && abs(l.north) < 0.5
                        && track.contains { $0.x > 35 }
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(arrived, "the drone did not end at the last snapshot point within 120 s")
            let answer = try await flight.value
            #expect(answer.status == 0, "\(answer.output)")
            // It went under the deck (x 21…29, underside at 6 m) and ended at the last snapshot point.
            #expect(track.contains { $0.x > 35 && abs($0.y) < 1 && $0.z < 5 }, "never reached the far side")
            let end = try #require(track.last)
            #expect(abs(end.x - 25) < 0.5 && abs(end.y) < 0.5 && abs(end.z - 3) < 0.5, "\(end)")
            // The route file's snapshot lines carry heading and hold: the drone ends facing the last point's heading
            // (north), not along its last leg (west).
            let final = try #require(try station.vehicles().first { $0.name == "drone-2" })
            #expect(abs(final.heading) < 3 || abs(final.heading - 360) < 3, "heading \(final.heading)")
            let flown = RouteClearance.minimum(path: track, cloud: PointCloud(points: cloud))
            #expect(
                flown.distance >= 1.0, "flown \(flown.distance) m from the cloud at \(String(describing: flown.at))")
        }
    }

    /// The dashboard's Inspection panel in headless Chromium against a real station with `[dashboard.inspection]`:
    /// the site drawn, points clicked on the map, a refusal, a route planned from the drone and flown by Send.
    @Test func theDashboardPlansAndFliesAnInspectionRoute() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleetmesh-dash-insp-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cloud = SiteScene.bridge().cloud.points.map { $0 + SIMD3<Float>(25, 0, 0) }
        try PointCloudWriter.write(cloud, as: .pcd(.binary), to: "\(dir)/bridge.pcd")

        try await Lab.with(hosts: 2) { lab in
            let drone = try lab.startNode(host: 2, name: "drone-2")
            var here: VehicleReport?
            try await waitUntil("drone-2 knows its own position", timeout: .seconds(20)) {
                here = try drone.vehicles().first { $0.name == "drone-2" }
                return here != nil
            }
            let home = try #require(here)
            // The mission's origin at the drone's home: the cloud's frame puts the drone 25 m west of the bridge.
            let station = try lab.startNode(
                host: 1, name: "station-a", role: "station",
                extra: """
                    [mission]
                    origin = [\(home.latitude), \(home.longitude), 0]
                    [dashboard.inspection]
                    map = "\(dir)/bridge.pcd"
                    """)
            var uav = 0
            try await waitUntil("the station sees drone-2 live with a number", timeout: .seconds(20)) {
                guard let v = try station.vehicles().first(where: { $0.name == "drone-2" && !$0.stale }),
                    let n = v.uavNumber
                else { return false }
                uav = n
                return true
            }
            try await station.send(["takeoff", "3"], toUAV: uav)
            try await waitUntil("drone-2 hovering at 3 m", timeout: .seconds(20)) {
                try station.vehicles().contains {
                    $0.name == "drone-2" && $0.altitude > 2.7 && $0.activity == "hovering"
                }
            }
            let origin = try MapOrigin(latitude: home.latitude, longitude: home.longitude)
            let clicks = [(10.0, 0.0), (40.0, 0.0), (25.0, 0.0)].map { p -> [Double] in
                let g = origin.geodetic(LocalPosition(east: p.0, north: p.1, up: 0))
                return [g.latitude, g.longitude]
            }
            let points = String(decoding: try JSONSerialization.data(withJSONObject: clicks), as: UTF8.self)
            let shots = repositoryRoot.appendingPathComponent(".build/test-artifacts/inspection").path
            let script = repositoryRoot.appendingPathComponent("Tests/LabTests/inspection_browser.py").path
            let browser = try lab.start(
                host: 1, tag: "inspection",
                ["python3", "-u", script, "http://127.0.0.1:8080", String(uav), points, shots])
            try await waitUntil("the inspection browser script ends", timeout: .seconds(150)) {
                !browser.process.isRunning
            }
            let findings = browser.output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
            #expect(
                browser.process.wait() == 0, "\(findings.isEmpty ? browser.output.suffix(3000) : Substring(findings))")
            print("inspection in Chromium: \(findings)")
            let seen = (try? JSONSerialization.jsonObject(with: Data(findings.utf8))) as? [String: Any]
            #expect((seen?["site"] as? String ?? "").contains("points (PCD binary)"), "\(findings)")
            #expect(seen?["markers"] as? Int == 3, "\(findings)")
            #expect((seen?["refused"] as? String ?? "").contains("point 3"), "\(findings)")
            #expect((seen?["clearance"] as? Double ?? 0) >= 1.0, "\(findings)")
            #expect(seen?["routeLines"] as? Int == 1, "\(findings)")
            #expect((seen?["flown"] as? String ?? "").contains("completed"), "\(findings)")
            #expect((seen?["failedRequests"] as? [String])?.isEmpty == true, "\(findings)")
            // The drone is where the route ends: the last point clicked, 3 m up.
            let end = try #require(try station.vehicles().first { $0.name == "drone-2" })
            let l = try origin.local(
                GeodeticCoordinate(latitude: end.latitude, longitude: end.longitude, altitude: end.altitude))
            #expect(abs(l.east - 25) < 0.6 && abs(l.north) < 0.6 && abs(l.up - 3) < 0.5, "\(l)")
            // Sent with the points' headings: it faces the last one's (0°, north), not along its last leg (west).
            #expect(abs(end.heading) < 3 || abs(end.heading - 360) < 3, "heading \(end.heading)")
        }
    }
}
