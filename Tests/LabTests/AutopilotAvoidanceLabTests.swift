import ControlProtocol
import Foundation
import LabKit
import Node
import Testing

/// Collision avoidance for drones on autopilots (issue #15): real drone nodes fly the pymavlink ArduPilot and PX4
/// emulators in field conditions (response lag, transport delay, wind with gusts, GPS error), and separation is
/// measured on the emulators' true positions.
extension AvoidanceLabTests {
    typealias Placed = (name: String, e: Double, n: Double, u: Double)

    /// The UAV numbers of the drones `names`, once each is live at the station by its name (not yet only its node
    /// id, as a drone heard through another can be) under a number of its own.
    func numbered(_ station: NodeProcess, _ names: [String]) async throws -> [String: Int] {
        var numbers: [String: Int] = [:]
        try await waitUntil("\(names.count) drones numbered and live at the station", timeout: .seconds(20)) {
            numbers = [:]
            for v in try vehicles(station) where !v.stale && v.role == "drone" { numbers[v.name] = v.uavNumber }
            return Set(numbers.keys) == Set(names) && Set(numbers.values).count == names.count
        }
        return numbers
    }

    /// Every drone takes off to 10 m; returns once all are above 9 m and done taking off.
    func takeOff(_ station: NodeProcess, _ numbers: [String: Int]) async throws {
        for n in numbers.values { try await station.send(["takeoff", "10"], toUAV: n) }
        try await waitUntil("all airborne near 10 m", timeout: .seconds(30), poll: .milliseconds(200)) {
            try vehicles(station).filter {
                !$0.stale && $0.role == "drone" && $0.altitude > 9 && $0.activity != "takingOff"
            }.count == numbers.count
        }
    }

    /// The drones in the station's picture, placed at one common time.
    func placedDrones(_ station: NodeProcess) throws -> [Placed] {
        try vehicles(station).filter { !$0.stale && $0.role == "drone" }.map { v in
            let p = place(v)
            return (v.name, p.e, p.n, p.u)
        }
    }

    /// A node's log lines stamped after `wall` (wall-clock seconds).
    func logLines(_ node: NodeProcess, after wall: Double) -> [Substring] {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return node.log.split(separator: "\n").filter { line in
            guard let stamp = line.split(separator: " ").first, let date = iso.date(from: String(stamp)) else {
                return false
            }
            return date.timeIntervalSince1970 > wall
        }
    }

    /// One leg: each drone of `goals` flies a goto to its goal (10 m, 4 m/s) at once; returns (wall clock) when they
    /// started and when every one of `arriving` (default: all) was within 2 m of its goal and 1.5 m of 10 m up in the
    /// station's picture. Simulated drones' positions are recorded into `truth` as the leg runs; `during` sees every
    /// sample of the picture (50 ms).
    func leg(
        _ what: String, station: NodeProcess, numbers: [String: Int], goals: [String: (e: Double, n: Double)],
        arriving: Set<String>? = nil, simulated: Set<String> = [], truth: inout TruthTracks, timeout: Duration,
        during: ([Placed]) throws -> Void = { _ in }
    ) async throws -> (from: Double, to: Double) {
        let from = wallClock()
        for (name, g) in goals { try goto(station, numbers[name]!, point(east: g.e, north: g.n), alt: 10) }
        let arriving = arriving ?? Set(goals.keys)
        try await waitUntil(what, timeout: timeout, poll: .milliseconds(50)) {
            let placed = try placedDrones(station)
            let t = wallClock()
            for p in placed where simulated.contains(p.name) { truth.record(p.name, t: t, e: p.e, n: p.n, u: p.u) }
            try during(placed)
            return arriving.allSatisfy { name in
                guard let p = placed.first(where: { $0.name == name }), let g = goals[name] else { return false }
                return hypot(p.e - g.e, p.n - g.n) < 2 && abs(p.u - 10) < 1.5
            }
        }
        return (from, wallClock())
    }

    /// Prints and checks one leg's separation on the true positions: no violation between any of `pairs`.
    /// `level`: some pair must have been level at some moment (the leg met the drones at one altitude).
    func expectSeparated(
        _ leg: String, _ truth: TruthTracks, _ pairs: [(String, String)], from: Double, to: Double,
        level: Bool = true, logs: [String: NodeProcess] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) -> Double {
        let result = truth.separation(pairs, from: from, to: to)
        for pair in result where !pair.violations.isEmpty { print(truth.explain(pair, logs: logs)) }
        let closest = result.map(\.closest).min() ?? .infinity
        print(
            String(
                format: "%@: %.1f s, closest level pair %.2f m (true positions; %@)", leg, to - from, closest,
                result.map(\.description).joined(separator: ", ")))
        let violations = result.flatMap(\.violations).map(\.description)
        #expect(violations.isEmpty, "\(leg): \(violations.prefix(10))", sourceLocation: sourceLocation)
        #expect(
            !level || closest.isFinite, "\(leg): no pair was ever level (no data?)", sourceLocation: sourceLocation)
        return closest
    }

    /// Four autopilot drones (two ArduPilot, two PX4; each head-on pair one of each, each neighbour crossing at 90°)
    /// swap ends across a circle of 30 m radius, then fly back; on the way back the pilot of one takes it over with the RC mode switch (SIGUSR1 to its
    /// emulator: LOITER, it brakes and holds) 15 m before the centre, in the path of the drone coming the other way.
    @Test func fourAutopilotDronesSwapTheCircleAndKeepAwayFromOneThePilotTakesOver() async throws {
        try await Lab.with(hosts: 5) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "info")
            let layout: [(host: Int, name: String, flavour: String, home: (e: Double, n: Double))] = [
                (2, "ap-n", "ardupilot", (0, 30)), (3, "ap-e", "ardupilot", (30, 0)),
                (4, "px4-s", "px4", (0, -30)), (5, "px4-w", "px4", (-30, 0)),
            ]
            let drones = try layout.map { d in
                try EmulatedAutopilot.start(
                    lab, host: d.host, name: d.name, flavour: d.flavour, home: point(east: d.home.e, north: d.home.n),
                    conditions: EmulatedAutopilot.fieldConditions(seed: d.host))
            }
            defer { for d in drones { d.keep() } }
            let names = layout.map(\.name)
            let logs = Dictionary(uniqueKeysWithValues: drones.map { ($0.name, $0.node) })
            let homes = Dictionary(uniqueKeysWithValues: layout.map { ($0.name, $0.home) })
            let numbers = try await numbered(station, names)
            try await takeOff(station, numbers)
            var truth = TruthTracks(home: Self.home)
            // Across the circle, every path through the centre.
            let across = try await leg(
                "every drone at the opposite point", station: station, numbers: numbers,
                goals: homes.mapValues { (-$0.e, -$0.n) }, truth: &truth, timeout: .seconds(60))

            // Back, and the pilot takes ap-n (flying north along the axis) when it is 15 m short of the centre; px4-s
            // comes south along the same axis toward it.
            let taken = drones[0]
            var takenAt: Double?
            let back = try await leg(
                "the three others back home", station: station, numbers: numbers, goals: homes,
                arriving: ["ap-e", "px4-s", "px4-w"], truth: &truth, timeout: .seconds(60)
            ) { placed in
                guard takenAt == nil, let p = placed.first(where: { $0.name == taken.name }), p.n < 0,
                    hypot(p.e, p.n) <= 15
                else { return }
                taken.emulator.process.signal(SIGUSR1)
                takenAt = wallClock()
            }
            for d in drones { truth.load(d) }
            let tookOver = try #require(takenAt, "the pilot never took ap-n over")
            let circle = expectSeparated(
                "four autopilots across a 30 m circle (60 m, straight line 15 s at 4 m/s)", truth, allPairs(names),
                from: across.from, to: across.to, logs: logs)
            let cooperating = ["ap-e", "px4-s", "px4-w"]
            let among = expectSeparated(
                "back across, the three that avoid", truth, allPairs(cooperating), from: back.from, to: back.to,
                logs: logs)
            let fromTaken = expectSeparated(
                "the others and the drone the pilot holds, from the takeover", truth,
                cooperating.map { (taken.name, $0) }, from: tookOver, to: back.to, level: false, logs: logs)
            let held = try #require(truth.last(taken.name), "no track of \(taken.name)")
            print(
                String(
                    format:
                        "four autopilots: circle %.2f m; after the takeover %.2f m among the three, %.2f m from ap-n (held %.1f m from the centre at %.1f m up)",
                    circle, among, fromTaken, hypot(held.e, held.n), held.u))

            // The emulator saw the takeover and, after the node's next HEARTBEAT, no command and no setpoint from it.
            let events = taken.eventLog()
            let fault = try #require(events.first { $0["type"] as? String == "fault" }, "no fault event")
            #expect(fault["kind"] as? String == "takeover" && fault["mode"] as? String == "LOITER", "\(fault)")
            let faultWall = try #require(fault["wall"] as? Double)
            let late = events.filter {
                guard let type = $0["type"] as? String, let wall = $0["wall"] as? Double else { return false }
                return wall > faultWall + 1.5 && (type.hasPrefix("COMMAND_") || type.hasPrefix("SET_POSITION_TARGET"))
            }
            #expect(late.isEmpty, "the node kept commanding the drone the pilot took: \(late.prefix(5))")
            // The node let go and said so; the station shows it as not avoiding (its last avoidance report, and its
            // prediction's flag in the airspace picture).
            let released = taken.node.log.contains(
                "the node stops commanding the autopilot and this drone does not avoid others")
            let reported =
                try ControlClient.request(
                    ControlRequest.events(.init(after: 0, limit: 1000)), socket: station.socketPath,
                    timeout: .seconds(5)
                ).events?.events.filter { $0.kind == "avoidance" && $0.text.hasPrefix("ap-n avoids: ") } ?? []
            print("ap-n released: \(released); the station's last avoidance report: \(reported.last?.text ?? "none")")
            #expect(released, "\(taken.node.log.suffix(1500))")
            #expect(reported.last?.text == "ap-n avoids: not avoiding", "\(reported.suffix(5).map(\.text))")
            let airspace =
                try ControlClient.request(ControlRequest.airspace, socket: station.socketPath, timeout: .seconds(5))
                .airspace ?? []
            let takenPrediction = airspace.first { $0.name == taken.name }
            #expect(takenPrediction?.avoiding == false, "\(String(describing: takenPrediction))")
            // The others avoided it: px4-s, coming head-on along its axis, made a decision after the takeover.
            let replanned = logLines(drones[2].node, after: tookOver).filter { $0.contains("avoidance: ") }
            print("px4-s after the takeover: \(replanned.prefix(3))")
            #expect(!replanned.isEmpty)
        }
    }
}
