// `make demo`: a station and three drones (two on the built-in simulator, one on an ArduPilot autopilot emulated with
// pymavlink, over MAVLink) on four namespaced hosts, each with its own avahi-daemon,
// form a mesh while you watch; then a drone's radio link is cut and restored, the drones are numbered and fly the
// station's commands (a takeoff started at one moment on all three) inside the station's geofence, a Python target
// source and a joystick stream, avoid each other crossing a circle, and a
// MAVLink ground station (pymavlink) finds the station and lands them. After that walkthrough the mesh keeps running
// until Ctrl-C, or for DEMO_SECONDS more seconds; then every node stops cleanly and a summary is printed.
import ControlProtocol
import Dispatch
import Foundation
import LabKit

let demoSeconds = ProcessInfo.processInfo.environment["DEMO_SECONDS"].flatMap(Double.init)
/// Ctrl-C (or SIGTERM): after the walkthrough, the normal end (every node stopped in order, the summary); during it,
/// the walkthrough is cancelled, the lab taken down, and the demo exits 130.
let stopRequested = StopFlag()
let walkthroughFinished = StopFlag()

let clock = ContinuousClock()
let start = clock.now
func stamp() -> String { String(format: "%7.3f s", (clock.now - start).secondsValue) }
func say(_ text: String) { show("\(stamp())  \(text)") }

show(
    """
    FleetMesh demo
      4 hosts on a private virtual bridge, each in its own network namespace with its own avahi-daemon;
      nothing touches this machine's real interfaces.
      host 1: station-1    hosts 2-3: drone-1, drone-2 (the built-in simulator)
                           host 4: drone-3 (an ArduPilot autopilot over MAVLink: Tests/mavlink/autopilot_emulator.py)

    """)

let demo = Task.detached {
    do {
        _ = try? shell(["bash", labScript, "--name", "demo", "down"])
        let lab = try Lab(hosts: 4, name: "demo")
        defer { lab.teardown() }
        say("lab up: 4 hosts, avahi-daemon running on each")

        // drone-3 flies a real autopilot link: an ArduPilot Copter emulated with pymavlink on its host, 25 m south of the
        // test area's centre, sending to the drone node's MAVLink port as ArduPilot's --out would.
        let autopilotHome = LabMap(home: (50.0755, 14.4378)).point(east: 0, north: -25)
        _ = try lab.start(
            host: 4, tag: "ardupilot",
            [
                "python3", "-u", repositoryRoot.appendingPathComponent("Tests/mavlink/autopilot_emulator.py").path,
                "--flavour", "ardupilot", "--sysid", "1", "--link", "udpout:127.0.0.1:14601", "--home",
                "\(autopilotHome.0),\(autopilotHome.1),300",
            ])
        let names = ["station-1", "drone-1", "drone-2", "drone-3"]
        // (A constant: the condition closures below capture it, and a variable would not be theirs to read.)
        let nodes: [NodeProcess] = try names.indices.map { i in
            // The station sets the session's map origin (the test area's corner); the mesh shares it with every node.
            // It also shows the fleet to MAVLink ground-control software on UDP 14550.
            let extra =
                i == 0
                ? "[mission]\norigin = [50.0750, 14.4370, 0.0]\n[ground_control]\nport = 14550"
                : i == 3 ? "[drone]\nvehicle = \"mavlink:udpin:14601\"" : ""
            return try lab.startNode(
                host: i + 1, name: names[i], role: i == 0 ? "station" : "drone", extra: extra, logLevel: "info")
        }
        say("started \(names.joined(separator: ", ")) at once (fleetmesh run on each host)\n")

        let formedAt = try await watchTheMeshForm(nodes)
        guard let formedAt else {
            throw LabError("the mesh did not form within 20 s; see the node logs in \(lab.directory.path)")
        }

        show("")
        say("mesh formed: every node in session with the other 3")
        show("\n  time from start to a session with every peer (each node's own clock):")
        for node in nodes {
            let s = try node.status()
            let worst = s.peers.compactMap(\.establishedAtMs).max() ?? 0
            show(
                "    \(node.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(worst) ms   (published as '\(s.node.publishedName ?? "still probing")', UDP \(s.node.port))"
            )
        }
        show("\n  `fleetmesh status` on the station:\n")
        let statusText = try shell([try fleetmeshBinary(), "status", "--node", nodes[0].socketPath]).output
        show(statusText.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        // What a field team runs when a drone does not show up (docs/DEPLOYMENT.md): here, on a healthy one.
        show(
            "\n  `fleetmesh doctor` on drone-3 (why a node would not be in the mesh; each check, its verdict, the fix):\n"
        )
        let doctorText = try await shellOffPool(
            lab.onHost(4, [try fleetmeshBinary(), "doctor", "--config", nodes[3].config, "--browse-seconds", "2"]))
        show(
            doctorText.split(separator: "\n").filter { !$0.hasPrefix("…") }.map { "    " + $0 }
                .joined(separator: "\n"))
        show("")
        let dashboard = try await DemoDashboard.open(lab: lab, station: 1)
        say(dashboard.line)
        if let url = dashboard.url { say(DemoDashboard.metricsLine(url)) }
        show("")

        // Failure detection: cut drone-3's radio link, then restore it.
        say("cutting drone-3's link (no goodbye: the station must notice the silence)")
        try lab.lab("cut", "4")
        let cutAt = clock.now
        try await waitUntil("the station marks drone-3 lost", timeout: .seconds(5), poll: .milliseconds(5)) {
            nodes[0].peerState("drone-3") == "lost"
        }
        let detection = clock.now - cutAt
        say(
            String(
                format: "station-1 marked drone-3 lost after %.0f ms (QGroundControl: 3500 ms, MAVSDK: 3000 ms)",
                detection.secondsValue * 1000))
        try lab.lab("restore", "4")
        let restoreAt = clock.now
        try await waitUntil("drone-3 back in session", timeout: .seconds(10), poll: .milliseconds(5)) {
            nodes[0].peerState("drone-3") == "established"
        }
        say(
            String(
                format: "link restored: session with drone-3 back after %.0f ms",
                (clock.now - restoreAt).secondsValue * 1000))

        // The coordinator: unique UAV numbers, then commands relayed from the station with their answers.
        show("")
        let bin = try fleetmeshBinary()
        let station = nodes[0].socketPath
        try await waitUntil("every drone has a UAV number", timeout: .seconds(15)) {
            let peers = try nodes[0].status().peers
            let numbers = peers.compactMap(\.uavNumber)
            return numbers.count == 3 && Set(numbers).count == 3
        }
        let numbered = try nodes[0].status().peers.sorted { ($0.name ?? "") < ($1.name ?? "") }
        say(
            "UAV numbers assigned by the mesh (unique, kept across restarts; also MAVLink system IDs): "
                + numbered.map { "\($0.name ?? "?") = \($0.uavNumber!)" }.joined(separator: ", "))
        let numbers = numbered.map { $0.uavNumber! }
        try await waitUntil("drone-3 agrees on the station's map origin", timeout: .seconds(10)) {
            try shell([bin, "origin", "--node", nodes[3].socketPath]).status == 0
        }
        let origin = try shell([bin, "origin", "--node", nodes[3].socketPath]).output
        say("map origin set on station-1, as drone-3 sees it (`fleetmesh origin`):")
        for line in origin.split(separator: "\n") { show("             " + line) }

        // One takeoff for the three, started at one moment on every drone's own clock (the mesh carries the station's
        // moment onto each drone's clock); each drone's event log says when its vehicle took it.
        let list = numbers.map(String.init).joined(separator: ",")
        say("station-1: fleetmesh send --together \(list) takeoff 10: every drone takes off at the same moment")
        let eventsBefore = try latestEvents(Array(nodes.dropFirst()))
        let together = try await shellOffPool([bin, "send", "--node", station, "--together", list, "takeoff", "10"])
        for line in together.split(separator: "\n") { say("  " + line) }
        let started = try startTimes(Array(nodes.dropFirst()), "takeoff 10 accepted", after: eventsBefore)
        if started.count == numbers.count, let first = started.values.min(), let last = started.values.max() {
            say(
                "the \(started.count) drones started the takeoff within \(last - first) ms of each other (their event logs)"
            )
            // Far apart: each drone's command events, to tell a start received late from one scheduled off.
            if last - first > 50 {
                for line in try commandEventLines(Array(nodes.dropFirst()), after: eventsBefore) { say("  " + line) }
            }
        }

        // Each drone to its own corner of a square 30 m across, 15 m up.
        let home = (50.0755, 14.4378)
        let map = LabMap(home: home)
        let corners = [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)]
        say("station-1: goto each drone to its own point of a 30 m square at 15 m")
        let gotos = try await sendAll(
            bin, station,
            zip(numbers, corners).map { n, c in
                let p = map.point(east: c.1 * 15, north: c.0 * 15)
                return (
                    n, ["goto", String(format: "%.7f", p.latitude), String(format: "%.7f", p.longitude), "15", "4"]
                )
            })
        for (_, output) in gotos {
            for line in output.split(separator: "\n") { say("  " + line) }
        }
        show("\n  `fleetmesh vehicles` on the station:\n")
        show(
            try shell([bin, "vehicles", "--node", station]).output.split(separator: "\n").map { "    " + $0 }.joined(
                separator: "\n"))
        // What the mesh costs the radio while they fly: about 15 kbit/s a node on one link whatever the fleet's size
        // (presence, telemetry and predictions go once per link by group; docs/BENCHMARKS.md §10).
        say(airtimeLine(nodes))
        // A geofence drawn by the station for the whole mesh: a 120 m square around home, 0–60 m above it. Every drone
        // flies it from its next control cycle (the dashboard draws and edits the same fence).
        let fence = [(-60.0, -60.0), (-60.0, 60.0), (60.0, 60.0), (60.0, -60.0)].map { c -> String in
            let p = map.point(east: c.1, north: c.0)
            return String(format: "%.7f,%.7f", p.latitude, p.longitude)
        }
        say("station-1: fleetmesh geofence set (a 120 m square around home, 0–60 m): announced to every drone")
        _ = try shell([bin, "geofence", "set", "--node", station, "--floor", "0", "--ceiling", "60"] + fence)
        let droneCount = numbers.count
        try await waitUntil("every drone flies the station's geofence", timeout: .seconds(10), poll: .milliseconds(200))
        {
            try dronesFlyingTheFenceInForce(station: station) == droneCount
        }
        show(
            try shell([bin, "geofence", "--node", station]).output.split(separator: "\n").map { "    " + $0 }.joined(
                separator: "\n"))
        let unheld = uavNumberNobodyHolds(numbers)
        let refused = try shell([bin, "send", "--node", station, String(unheld), "land"])
        say(
            "a command to a UAV number nobody holds is refused (exit \(refused.status)): "
                + refused.output.trimmingCharacters(in: .whitespacesAndNewlines))
        show("")

        // Trajectory upload: drone-1 flies three waypoints and holds at the last.
        let legs = [(15.0, 15.0), (15.0, 0.0), (0.0, 0.0)].map { c -> String in
            let p = map.point(east: c.1, north: c.0)
            return String(format: "%.7f,%.7f,12", p.latitude, p.longitude)
        }
        say("station-1: fleetmesh send \(numbers[0]) trajectory (3 waypoints at 12 m): drone-1 plans and flies it")
        for line in try await shellOffPool(
            [bin, "send", "--node", station, "--timeout", "60", String(numbers[0]), "trajectory"] + legs
        )
        .split(separator: "\n") { say("  " + line) }

        // A target source that is not FleetMesh: the Python example advertises _loc-broadcaster._udp on host 1 and
        // streams a target circling the home point; the station subscribes and drone-2 follows it.
        let example = repositoryRoot.appendingPathComponent("Examples/loc-broadcaster/loc_broadcaster.py").path
        let phone = try lab.start(
            host: 1, tag: "phone",
            [
                "python3", "-u", example, "--key", lab.keyPath, "--name", "phone",
                "--lat", String(home.0), "--lon", String(home.1), "--alt", "12",
                "--uav", String(numbers[1]), "--circle", "10", "--period", "40",
            ])
        say(
            "started Examples/loc-broadcaster/loc_broadcaster.py ('phone', Python + zeroconf) streaming a moving target for UAV \(numbers[1])"
        )
        try await waitUntil("station-1 subscribes to the phone", timeout: .seconds(10)) {
            try DemoQueries.receivingTargets(station)
        }
        show(
            try shell([bin, "sources", "--node", station]).output.split(separator: "\n").map { "    " + $0 }.joined(
                separator: "\n"))
        for line in try await shellOffPool([bin, "send", "--node", station, String(numbers[1]), "follow", "on"]).split(
            separator: "\n")
        {
            say("  " + line)
        }
        try await Task.sleep(for: .seconds(8))
        if let v = try ControlClient.request(ControlRequest.vehicles, socket: station).vehicles?.first(where: {
            $0.uavNumber == numbers[1]
        }),
            let s = try ControlClient.request(ControlRequest.sources, socket: station).sources?.sources.first,
            let lat = s.lastLatitude, let lon = s.lastLongitude
        {
            let d = map.distance((v.latitude, v.longitude), (lat, lon))
            say(
                String(
                    format: "drone-2 following the phone's target: %.1f m from it, %@ at %.1f m/s", d, v.activity,
                    v.speed))
        }
        // The phone stops streaming (Ctrl-C: it withdraws its record); drone-2 holds where the target last was.
        phone.process.signal(SIGINT)
        try await waitUntil("the phone's script exits", timeout: .seconds(5)) { DemoQueries.exited(phone) }
        for line in try await shellOffPool([bin, "send", "--node", station, String(numbers[1]), "follow", "off"]).split(
            separator: "\n")
        {
            say("  " + line)
        }

        // Manual control: a 100 Hz joystick stream from the station to drone-3 for 2 s.
        say("station-1: fleetmesh manual \(numbers[2]) --rate 100 --seconds 2 --x 500 (forward at half deflection)")
        for line in try await shellOffPool([
            bin, "manual", "--node", station, "--rate", "100", "--seconds", "2", "--x", "500", String(numbers[2]),
        ])
        .split(separator: "\n") { say("  " + line) }
        if let m = try nodes[3].status().manualControl {
            say(
                String(
                    format: "drone-3 obeyed %d samples at %.1f Hz, latency p50 %.2f ms, p99 %.2f ms", m.received,
                    m.rateHz ?? 0,
                    m.latencyP50Ms ?? 0, m.latencyP99Ms ?? 0))
        }
        show("")

        // Collision avoidance: the circle swap (CircleSwap.swift).
        try await flyTheCircleSwap(bin: bin, station: station, numbers: numbers, nodes: nodes, map: map, home: home)

        // MAVLink: the station's ground-control endpoint, found over DNS-SD as QGroundControl finds it, then a pymavlink
        // ground station on the station's host sees every drone under its UAV number and lands them.
        let browse = try shell(lab.onHost(3, ["avahi-browse", "-ptkr", "_mavlink._udp"])).output
        if let line = browse.split(separator: "\n").first(where: {
            $0.hasPrefix("=;") && $0.contains(";IPv4;station-1;_mavlink._udp;")
        }) {
            let f = line.split(separator: ";", omittingEmptySubsequences: false)
            say(
                "QGroundControl's way in: host 3 resolves _mavlink._udp → station-1 at \(f.count > 8 ? "\(f[7]):\(f[8])" : "?")"
            )
        }
        let gcsClient = repositoryRoot.appendingPathComponent("Tests/mavlink/gcs_client.py").path
        let steps =
            "[{\"do\":\"heartbeats\",\"seconds\":2.5},"
            + numbers.map { "{\"do\":\"long\",\"sysid\":\($0),\"command\":21}" }
            .joined(separator: ",") + "]"
        say(
            "a pymavlink ground station connects to 127.0.0.1:14550 on host 1 and sends MAV_CMD_NAV_LAND to each UAV number"
        )
        let gcs = try await shellOffPool(
            lab.onHost(1, ["python3", gcsClient, "--connect", "127.0.0.1:14550", "--steps", steps])
        )
        .split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        if let systems = gcs.first?["systems"] as? [String: [String: Any]] {
            let kinds = (systems.values.first?["messages"] as? [String])?.joined(separator: ", ") ?? ""
            say(
                "  systems seen: \(systems.keys.sorted { Int($0)! < Int($1)! }.joined(separator: ", ")) (the UAV numbers), each sending \(kinds)"
            )
        }
        for (n, answer) in zip(numbers, gcs.dropFirst()) {
            let result = (answer["result"] as? Int).map { $0 == 0 ? "ACCEPTED" : "result \($0)" } ?? "no answer"
            say(
                String(
                    format: "  COMMAND_ACK from system %d: %@ after %.1f ms", n, result,
                    answer["latency_ms"] as? Double ?? 0))
        }

        // The flight log: every node recorded what it saw; the station's log lists each drone's flight once it landed.
        let stationSocket = nodes[0].socketPath
        _ = try? await waitUntil("every drone landed", timeout: .seconds(40), poll: .milliseconds(200)) {
            // A loop, not filter/allSatisfy: closures nested in this top-level code would be main-actor closures.
            for v in try ControlClient.request(ControlRequest.vehicles, socket: stationSocket).vehicles ?? []
            where v.role == "drone" && v.activity != "landed" {
                return false
            }
            return true
        }
        try await showTheRecordsAndAnInspection(station: nodes[0], home: home)

        // DEMO_SECONDS counts from here, the end of the walkthrough, as the README says.
        let walkthroughDone = clock.now
        walkthroughFinished.set()
        if let demoSeconds {
            say(
                String(
                    format: "walkthrough done after %.0f s; the mesh keeps running %.0f s more (DEMO_SECONDS)",
                    (walkthroughDone - start) / .seconds(1), demoSeconds))
        } else {
            say("the mesh keeps running; press Ctrl-C to stop (or set DEMO_SECONDS)")
        }
        if let url = dashboard.url { say("the dashboard stays at \(url) until then") }
        var lastLine = clock.now
        while !stopRequested.isSet {
            if let demoSeconds, clock.now - walkthroughDone >= .seconds(demoSeconds) { break }
            if clock.now - lastLine >= .seconds(5) {
                lastLine = clock.now
                let s = try nodes[0].status()
                let line = s.peers.map { p in
                    "\(p.name ?? "?")\(p.uavNumber.map { " (UAV \($0))" } ?? "") \(p.state)\(p.rttMs.map { String(format: " %.1fms", $0) } ?? "")"
                }.joined(separator: ", ")
                say("station-1: \(line)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }

        // Clean shutdown: the station sees each drone leave at once (a goodbye, not a timeout).
        show("")
        for node in nodes.dropFirst().reversed() {
            let stopAt = clock.now
            let code = try await node.stop()
            try await waitUntil("station-1 sees \(node.name) leave", timeout: .seconds(3), poll: .milliseconds(5)) {
                nodes[0].peerState(node.name) == "left"
            }
            say(
                String(
                    format: "%@ stopped (exit %d); station-1 saw it leave after %.0f ms", node.name, code,
                    (clock.now - stopAt).secondsValue * 1000))
        }
        _ = try await nodes[0].stop()
        show(
            String(
                format:
                    "\nsummary: mesh of 4 formed in %.2f s, link loss detected in %.0f ms, UAV numbers %@ assigned, "
                    + "three drones (one on an autopilot over MAVLink) took off and flew on the station's commands (goto, a "
                    + "trajectory, a Python target source, a 100 Hz manual-control stream), crossed a circle avoiding each "
                    + "other, were landed by a MAVLink "
                    + "ground station, and left cleanly, seen at once.",
                formedAt.secondsValue, detection.secondsValue * 1000, numbers.map(String.init).joined(separator: "/")))
    } catch {
        if stopRequested.isSet {
            show("\n\(stamp())  stopped (Ctrl-C) during the walkthrough: every node stopped, the lab taken down")
            exit(130)
        }
        show("demo failed: \(error)")
        exit(1)
    }
}
let signalSources = onStopSignals {
    guard !stopRequested.isSet else { return }
    stopRequested.set()
    if walkthroughFinished.isSet {
        show("\n\(stamp())  stopping: every node in turn")
    } else {
        show("\n\(stamp())  stopping after the step under way (a command waits for its answer)")
        demo.cancel()
    }
}
await demo.value
withExtendedLifetime(signalSources) {}
