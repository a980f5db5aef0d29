import ControlProtocol
import FlightLog
import Foundation
import LabKit
import Testing

/// The flight log on real processes: a station records a drone's flight as it saw it over the mesh, `fleetmesh log`
/// lists and exports it, pymavlink reads the exported telemetry log, and a drone killed with SIGKILL mid-flight has
/// its own record up to the last second.
@Suite(.serialized) struct FlightLogLabTests {
    func fleetmesh(_ args: [String]) throws -> (status: Int32, output: String) {
        try shell([try fleetmeshBinary()] + args)
    }

    @Test func aFlightIsRecordedListedExportedAndSurvivesAKill() async throws {
        try await Lab.with(hosts: 2) { lab in
            let station = try lab.startNode(host: 1, name: "station-a", role: "station")
            let drone = try lab.startNode(host: 2, name: "drone-2", logLevel: "info", flightLog: true)
            var uav = 0
            try await waitUntil("the station sees drone-2 live with a number", timeout: .seconds(20)) {
                guard let v = try station.vehicles().first(where: { $0.name == "drone-2" && !$0.stale }),
                    let n = v.uavNumber
                else { return false }
                uav = n
                return true
            }
            let stationLog = try #require(try station.status().flightLog)
            let droneLog = try #require(try drone.status().flightLog)
            #expect(stationLog.path.hasSuffix("flight-log.sqlite"))

            // One flight: takeoff to 6 m, then land.
            let up = try fleetmesh([
                "send", "--node", station.socketPath, "--timeout", "20", String(uav), "takeoff", "6",
            ])
            #expect(up.status == 0, "\(up.output)")
            try await waitUntil("drone-2 at 5.5 m", timeout: .seconds(20)) {
                try station.vehicles().contains { $0.name == "drone-2" && $0.altitude > 5.5 }
            }
            // 20 m north at 6 m, 4 m/s (answered once the drone is there).
            let here = try #require(try station.vehicles().first { $0.name == "drone-2" })
            let north = here.latitude + 20 / 111_320
            let goto = try fleetmesh([
                "send", "--node", station.socketPath, "--timeout", "30", String(uav), "goto",
                String(format: "%.7f", north),
                String(format: "%.7f", here.longitude), "6", "4",
            ])
            #expect(goto.status == 0, "\(goto.output)")
            let down = try fleetmesh(["send", "--node", station.socketPath, "--timeout", "30", String(uav), "land"])
            #expect(down.status == 0, "\(down.output)")
            try await waitUntil("drone-2 landed", timeout: .seconds(30)) {
                try station.vehicles().contains { $0.name == "drone-2" && $0.activity == "landed" }
            }

            // The station's log lists the flight, closed at the landing (asked through the running node).
            var flights: [FlightSummary] = []
            try await waitUntil("the station's log holds a closed flight", timeout: .seconds(5)) {
                let r = try fleetmesh(["log", "flights", "--json", "--node", station.socketPath])
                guard r.status == 0 else { return false }
                flights = try JSONDecoder().decode([FlightSummary].self, from: Data(r.output.utf8))
                return flights.contains { $0.endMs != nil }
            }
            let flight = try #require(flights.first)
            #expect(flights.count == 1)
            #expect(flight.uavNumber == uav && flight.name == "drone-2")
            #expect(flight.maxAltitudeMetres > 5.5 && flight.maxAltitudeMetres < 7)
            #expect(flight.durationSeconds > 3 && flight.durationSeconds < 60)
            #expect(flight.commands >= 3, "\(flight)")
            #expect(flight.distanceMetres > 28 && flight.distanceMetres < 40, "\(flight)")
            #expect(flight.samples > Int(flight.durationSeconds * 5), "\(flight)")
            let table = try fleetmesh(["log", "flights", "--db", stationLog.path])
            #expect(table.status == 0 && table.output.contains("drone-2"), "\(table.output)")
            // Planned vs flown: the goto's commanded path (from where the drone was, 20 m north) against its track.
            let plansOut = try fleetmesh(["log", "plans", String(flight.flight), "--json", "--db", stationLog.path])
            let plans = try JSONDecoder().decode([PlanComparison].self, from: Data(plansOut.output.utf8))
            #expect(plans.count == 1, "\(plansOut.output)")
            if let p = plans.first {
                #expect(p.kind == "goto" && p.outcome == "completed", "\(p)")
                #expect(abs(p.plannedMetres - 20) < 1, "\(p)")
                #expect(p.maxCrossTrackMetres < 1.5 && p.rmsCrossTrackMetres < 1, "\(p)")
                #expect(abs((p.plannedSeconds ?? 0) - p.plannedMetres / 4) < 0.01, "\(p)")
                #expect((p.actualSeconds ?? 0) >= (p.plannedSeconds ?? 0), "\(p)")
            }

            // Exports: a telemetry log pymavlink reads, and GeoJSON.
            let out = lab.directory.appendingPathComponent("export").path
            let tlog = try fleetmesh([
                "log", "export", String(flight.flight), "--db", stationLog.path, "--format", "tlog", "--out", out + "/",
            ])
            #expect(tlog.status == 0, "\(tlog.output)")
            let file = out + "/flight-\(flight.flight)-uav-\(uav).tlog"
            let check = try shell(
                [
                    "python3", "-c",
                    """
                    import os, sys
                    os.environ['MAVLINK20'] = '1'
                    from pymavlink import mavutil
                    m = mavutil.mavlink_connection(sys.argv[1])
                    n, top, systems, first, last = 0, 0, set(), None, None
                    while True:
                        msg = m.recv_match(type='GLOBAL_POSITION_INT')
                        if msg is None: break
                        n += 1; top = max(top, msg.relative_alt); systems.add(msg.get_srcSystem())
                        first = first or msg._timestamp; last = msg._timestamp
                    print(n, top, ','.join(map(str, sorted(systems))), int(first * 1000), int(last * 1000))
                    """, file,
                ])
            #expect(check.status == 0, "\(check.output)")
            let fields = check.output.split(whereSeparator: \.isWhitespace).map(String.init)
            #expect(fields.count == 5, "\(check.output)")
            if fields.count == 5 {
                #expect(Int(fields[0]) == flight.samples, "\(check.output) vs \(flight.samples) samples")
                #expect((5500...7000).contains(Int(fields[1]) ?? 0), "\(check.output)")
                #expect(fields[2] == String(uav))
                #expect(abs((Int64(fields[3]) ?? 0) - flight.startMs) <= 1, "\(check.output) vs \(flight.startMs)")
            }
            // GeoJSON and GPX read by independent readers (PyPI's geojson validator and gpxpy).
            let geo = out + "/flight.geojson"
            let gpx = out + "/flight.gpx"
            for (format, file) in [("geojson", geo), ("gpx", gpx)] {
                let r = try fleetmesh([
                    "log", "export", String(flight.flight), "--db", stationLog.path, "--format", format, "--out", file,
                ])
                #expect(r.status == 0, "\(r.output)")
            }
            let readers = try shell([
                "python3", "-c",
                """
                import sys, geojson, gpxpy
                g = geojson.load(open(sys.argv[1]))
                points = sum(len(s.points) for t in gpxpy.parse(open(sys.argv[2])).tracks for s in t.segments)
                print(g.is_valid, len(g['features']), len(g['features'][0]['geometry']['coordinates']), points)
                """, geo, gpx,
            ])
            #expect(
                readers.output.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "True 1 \(flight.samples) \(flight.samples)", "\(readers.output)")
            let plan = try fleetmesh([
                "log", "export", String(flight.flight), "--db", stationLog.path, "--format", "plan",
            ])
            let mission = (try? JSONSerialization.jsonObject(with: Data(plan.output.utf8))) as? [String: Any]
            let items = ((mission?["mission"] as? [String: Any])?["items"] as? [[String: Any]]) ?? []
            #expect(items.compactMap { $0["command"] as? Int } == [22, 178, 16, 21], "\(plan.output)")
            let bad = try fleetmesh(["log", "export", "99", "--db", stationLog.path, "--format", "gpx"])
            #expect(bad.status != 0 && bad.output.contains("no flight 99"), "\(bad.output)")

            // A plot for a report, drawn by gnuplot: an SVG that Python's XML parser reads, with its four panels.
            let artifacts = repositoryRoot.appendingPathComponent(".build/test-artifacts").path
            try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
            let svg = artifacts + "/flight-plot.svg"
            let plot = try fleetmesh(["log", "plot", String(flight.flight), "--out", svg, "--db", stationLog.path])
            #expect(plot.status == 0, "\(plot.output)")
            let svgCheck = try shell([
                "python3", "-c",
                """
                import sys, xml.etree.ElementTree as E
                root = E.parse(sys.argv[1]).getroot()
                text = ' '.join(root.itertext())
                print(root.tag.endswith('svg'), all(w in text for w in ('altitude', 'speed', 'battery', 'separation limit')))
                """, svg,
            ])
            #expect(
                svgCheck.output.trimmingCharacters(in: .whitespacesAndNewlines) == "True True", "\(svgCheck.output)")
            let badPlot = try fleetmesh([
                "log", "plot", String(flight.flight), "--out", "x.bmp", "--db", stationLog.path,
            ])
            #expect(badPlot.status == 64 && badPlot.output.contains(".svg, .png, .pdf"), "\(badPlot.output)")

            // The mission's bundle: one zip with the README, events, tracks, a tlog pymavlink reads, the plan, a plot.
            let zipPath = artifacts + "/mission.zip"
            let bundle = try fleetmesh(["log", "bundle", "--out", zipPath, "--db", stationLog.path])
            #expect(bundle.status == 0, "\(bundle.output)")
            let unpacked = try shell([
                "python3", "-c",
                """
                import io, os, sys, zipfile
                os.environ['MAVLINK20'] = '1'
                from pymavlink import mavutil
                z = zipfile.ZipFile(sys.argv[1])
                names = sorted(n.split('/', 1)[1] for n in z.namelist())
                tlog = [n for n in z.namelist() if n.endswith('.tlog')][0]
                path = os.path.join(os.path.dirname(sys.argv[1]), 'bundle.tlog')
                open(path, 'wb').write(z.read(tlog))
                m = mavutil.mavlink_connection(path)
                n = 0
                while m.recv_match(type='GLOBAL_POSITION_INT') is not None: n += 1
                print(' '.join(names)); print(n)
                """, zipPath,
            ])
            let lines = unpacked.output.split(separator: "\n").map(String.init)
            #expect(unpacked.status == 0 && lines.count == 2, "\(unpacked.output)")
            let names = Set((lines.first ?? "").split(separator: " ").map(String.init))
            for name in [
                "README.txt", "events.csv", "flights.json", "fleet/tracks.geojson", "fleet/tracks.kml",
                "fleet/tracks.gpx",
                "tlogs/uav-\(uav).tlog", "plans/flight-\(flight.flight).plan", "plots/flight-\(flight.flight).svg",
            ] {
                #expect(names.contains(name), "\(name) missing from the bundle: \(names.sorted())")
            }
            #expect(Int(lines.last ?? "") ?? 0 >= flight.samples, "\(unpacked.output)")

            // Replayed at 8× to a pymavlink ground station on the station's host: every position, at the pace.
            let gcs = try lab.start(
                host: 1, tag: "gcs",
                [
                    "python3", "-u", "-c",
                    """
                    import json, os, time
                    os.environ['MAVLINK20'] = '1'
                    from pymavlink import mavutil
                    m = mavutil.mavlink_connection('udpin:127.0.0.1:14560')
                    print('READY', flush=True)
                    n, systems, first, last, deadline = 0, set(), None, None, time.monotonic() + 30
                    while time.monotonic() < deadline and (last is None or time.monotonic() - last < 2):
                        msg = m.recv_match(type='GLOBAL_POSITION_INT', blocking=True, timeout=0.5)
                        if msg is None: continue
                        now = time.monotonic()
                        n += 1; systems.add(msg.get_srcSystem()); first = first or now; last = now
                    print(json.dumps({'count': n, 'systems': sorted(systems), 'span': (last or 0) - (first or 0)}))
                    """,
                ])
            try await waitUntil("the ground station listens", timeout: .seconds(10)) { gcs.output.contains("READY") }
            let replay = try shell(
                lab.onHost(
                    1,
                    [
                        try fleetmeshBinary(), "log", "replay", String(flight.flight), "--db", stationLog.path,
                        "--speed", "8",
                        "--to", "127.0.0.1:14560",
                    ]))
            #expect(replay.status == 0 && replay.output.contains("replayed"), "\(replay.output)")
            try await waitUntil("the ground station has its replay", timeout: .seconds(40)) { !gcs.process.isRunning }
            let heard = gcs.output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
            let got = (try? JSONSerialization.jsonObject(with: Data(heard.utf8))) as? [String: Any]
            #expect(got?["count"] as? Int == flight.samples, "\(heard) vs \(flight.samples) samples")
            #expect(got?["systems"] as? [Int] == [uav], "\(heard)")
            // Not faster than 8×: the flight's duration / 8, less a tenth for the first and last frame's timing.
            #expect(
                (got?["span"] as? Double ?? 0) >= flight.durationSeconds / 8 * 0.9,
                "\(heard) vs \(flight.durationSeconds) s")

            // The dashboard's flight review, in headless Chromium on the station's host.
            let shots = repositoryRoot.appendingPathComponent(".build/test-artifacts/flight-review").path
            let script = repositoryRoot.appendingPathComponent("Tests/LabTests/flight_review_browser.py").path
            let browser = try lab.start(
                host: 1, tag: "review",
                ["python3", "-u", script, "http://127.0.0.1:8080", String(flight.flight), shots])
            try await waitUntil("the flight-review browser script ends", timeout: .seconds(90)) {
                !browser.process.isRunning
            }
            let findings = browser.output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
            #expect(
                browser.process.wait() == 0, "\(findings.isEmpty ? browser.output.suffix(3000) : Substring(findings))")
            print("flight review in Chromium: \(findings)")
            let review = (try? JSONSerialization.jsonObject(with: Data(findings.utf8))) as? [String: Any]
            // The slider at the landing puts the drone's marker 20 m (1.8e-4 degrees) north of where it took off.
            #expect((review?["markerMovedDegrees"] as? Double ?? 0) > 1.5e-4, "\(findings)")
            #expect((review?["plotted"] as? [[Any]])?.count == 5, "\(findings)")
            #expect(review?["plannedPaths"] as? Int == 1, "\(findings)")
            // Half-way through the flight the drone was flying: its predicted path at that moment is drawn.
            #expect(review?["predictionsMidFlight"] as? Int == 1, "\(findings)")
            // The replay's last position is where the live picture shows the landed drone.
            let end = review?["replayEnd"] as? [Double] ?? []
            let live = review?["liveMarker"] as? [Double] ?? []
            #expect(
                end.count == 2 && live.count == 2 && zip(end, live).allSatisfy { abs($0 - $1) < 2e-6 }, "\(findings)")

            // A crash in flight: the drone's own log keeps its samples up to the last second.
            let again = try fleetmesh([
                "send", "--node", station.socketPath, "--timeout", "20", String(uav), "takeoff", "6",
            ])
            #expect(again.status == 0, "\(again.output)")
            try await waitUntil("drone-2 climbing again", timeout: .seconds(20)) {
                try station.vehicles().contains { $0.name == "drone-2" && $0.altitude > 3 }
            }
            let pid = try drone.nodePID()
            let killedAt = Int64((Date().timeIntervalSince1970 * 1000).rounded())
            kill(pid, SIGKILL)
            drone.kill()
            let store = try FlightLogStore(path: droneLog.path, mustExist: true)
            let own = try store.telemetry(TelemetrySelection(fromMs: killedAt - 5_000))
            let lastSample = try #require(own.last)
            #expect(
                killedAt - lastSample.timeMs <= 1_000, "last sample \(killedAt - lastSample.timeMs) ms before the kill")
            #expect(lastSample.isAirborne)
            let open = try store.flights().last
            #expect(open?.endMs == nil)
        }
    }

    /// A node killed with SIGKILL, five times over: each time its log opens cleanly afterwards (SQLite's integrity
    /// check, every run recorded), holds its samples up to within a second of the kill, and the next start records on.
    @Test func aNodeKilledAgainAndAgainKeepsItsLogWhole() async throws {
        try await Lab.with(hosts: 1) { lab in
            var path = ""
            for round in 1...5 {
                let drone = try lab.startNode(host: 1, name: "drone-k", logLevel: "info", flightLog: true)
                try await waitUntil("drone-k records (round \(round))", timeout: .seconds(15)) {
                    guard let log = try? drone.status().flightLog, log.recording, log.written > 20 else { return false }
                    path = log.path
                    return true
                }
                let pid = try drone.nodePID()
                let killedAt = Int64((Date().timeIntervalSince1970 * 1000).rounded())
                kill(pid, SIGKILL)
                drone.kill()
                let store = try FlightLogStore(path: path, mustExist: true)
                #expect(try store.integrityCheck() == "ok", "round \(round)")
                #expect(try store.runs().count == round, "round \(round)")
                let last = try #require(try store.telemetry(TelemetrySelection(fromMs: killedAt - 10_000)).last)
                #expect(
                    killedAt - last.timeMs <= 1_000,
                    "round \(round): last sample \(killedAt - last.timeMs) ms before the kill")
            }
        }
    }
}
