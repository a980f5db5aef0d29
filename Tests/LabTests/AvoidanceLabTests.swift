import ControlProtocol
import Foundation
import LabKit
import Node
import Testing

/// Collision avoidance between real drone nodes (simulated vehicles) over real sessions with 10 % loss on every host:
/// an antipodal circle and a shared target, watched from the station's fleet picture with every vehicle placed at one
/// common time (position + velocity × age).
@Suite(.serialized) struct AvoidanceLabTests {
    static let home = (lat: 50.0755, lon: 14.4378)
    static let metresPerDegreeLat = 111_320.0
    static var metresPerDegreeLon: Double { metresPerDegreeLat * cos(home.lat * .pi / 180) }

    func vehicles(_ node: NodeProcess) throws -> [VehicleReport] {
        try ControlClient.request(ControlRequest.vehicles, socket: node.socketPath, timeout: .seconds(2)).vehicles ?? []
    }

    /// East, north, up of a vehicle relative to home, extrapolated over its age.
    func place(_ v: VehicleReport) -> (e: Double, n: Double, u: Double) {
        let p = v.placed(relativeTo: Self.home)
        return (p.east, p.north, p.up)
    }

    func point(east: Double, north: Double) -> (lat: Double, lon: Double) {
        (Self.home.lat + north / Self.metresPerDegreeLat, Self.home.lon + east / Self.metresPerDegreeLon)
    }

    func goto(_ station: NodeProcess, _ n: Int, _ p: (lat: Double, lon: Double), alt: Double) throws {
        let r = try ControlClient.request(
            ControlRequest.send(
                .init(
                    uav: n,
                    args: [
                        "goto", String(format: "%.7f", p.lat),
                        String(format: "%.7f", p.lon), String(alt), "4",
                    ],
                    timeoutMs: 100)), socket: station.socketPath, timeout: .seconds(5))
        let refused = r.command?.answers.contains { $0.answer == "rejected" } ?? true
        if refused {
            throw LabError("goto to UAV \(n) refused: \(String(describing: r.command ?? nil)) \(r.error ?? "")")
        }
    }

    /// Separation watch: every pair of airborne drones, both level within 2.9 m and closer than 5 m horizontally, is a
    /// violation. Returns the smallest horizontal distance seen between level pairs, and the violations.
    struct Watch {
        var minimum = Double.infinity
        var violations: [String] = []

        mutating func check(_ placed: [(name: String, e: Double, n: Double, u: Double)]) {
            for i in placed.indices {
                for j in placed.indices where j > i {
                    let a = placed[i], b = placed[j]
                    guard a.u > 1.5, b.u > 1.5, abs(a.u - b.u) < 2.9 else { continue }
                    let d = ((a.e - b.e) * (a.e - b.e) + (a.n - b.n) * (a.n - b.n)).squareRoot()
                    minimum = min(minimum, d)
                    if d < 5 {
                        violations.append(
                            String(format: "%@–%@ %.2f m apart, %.1f / %.1f m up", a.name, b.name, d, a.u, b.u))
                    }
                }
            }
        }
    }

    @Test func sixDronesCrossACircleAndGatherAtOneTargetWithoutLosingSeparation() async throws {
        try await Lab.with(hosts: 7) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "info")
            // Parked in a row 8 m apart, 30 m south of the circle's centre, as a field team lays drones out: drones
            // parked closer than the 5 m minimum would be in conflict from the moment both are airborne.
            let drones = try (2...7).map { h in
                let spot = point(east: Double(h - 2) * 8 - 20, north: -30)
                return try lab.startNode(
                    host: h, name: "d\(h)", extra: "[drone]\nhome = [\(spot.lat), \(spot.lon)]", logLevel: "info")
            }
            var numbers: [String: Int] = [:]
            try await waitUntil(
                "6 drones numbered and live at the station", timeout: .seconds(20), poll: .milliseconds(100)
            ) {
                numbers = [:]
                for v in try vehicles(station) where !v.stale { numbers[v.name] = v.uavNumber }
                return Set(numbers.keys) == Set(drones.map(\.name)) && Set(numbers.values).count == 6
            }
            for h in 1...7 { try lab.lab("loss", String(h), "10") }
            let names = drones.map(\.name)
            // Take off at once, then each to its place on a circle of 20 m radius at 10 m.
            for name in names { try await station.send(["takeoff", "10"], toUAV: numbers[name] ?? 0) }
            try await waitUntil("all airborne near 10 m", timeout: .seconds(20), poll: .milliseconds(200)) {
                try vehicles(station).filter { !$0.stale && $0.altitude > 9 }.count == 6
            }
            let radius = 20.0
            func slot(_ k: Int) -> (e: Double, n: Double) {
                let a = Double(k) * .pi / 3
                return (radius * sin(a), radius * cos(a))
            }
            var watch = Watch()
            func watchUntil(
                _ what: String, timeout: Duration,
                arrived: @escaping ([(name: String, e: Double, n: Double, u: Double)]) -> Bool
            ) async throws {
                try await waitUntil(what, timeout: timeout, poll: .milliseconds(50)) {
                    let placed = try vehicles(station).filter { !$0.stale && $0.role == "drone" }.map {
                        v -> (name: String, e: Double, n: Double, u: Double) in
                        let p = place(v)
                        return (v.name, p.e, p.n, p.u)
                    }
                    watch.check(placed)
                    return placed.count == 6 && arrived(placed)
                }
            }
            for (k, name) in names.enumerated() {
                try goto(station, numbers[name]!, point(east: slot(k).e, north: slot(k).n), alt: 10)
            }
            try await watchUntil("every drone at its place on the circle", timeout: .seconds(60)) { placed in
                placed.allSatisfy { p in
                    // A vehicle not (yet) known by its name is not placed: seen in make test, a drone listed by
                    // another name for a moment crashed this wait with a forced unwrap.
                    guard let k = names.firstIndex(of: p.name) else { return false }
                    let s = slot(k)
                    return hypot(p.e - s.e, p.n - s.n) < 2
                }
            }
            // The antipodal swap: all at once, every path through the centre.
            let clock = ContinuousClock()
            let start = clock.now
            for (k, name) in names.enumerated() {
                try goto(station, numbers[name]!, point(east: -slot(k).e, north: -slot(k).n), alt: 10)
            }
            try await watchUntil("every drone at the opposite point", timeout: .seconds(90)) { placed in
                placed.allSatisfy { p in
                    guard let k = names.firstIndex(of: p.name) else { return false }
                    let s = slot(k)
                    return hypot(p.e + s.e, p.n + s.n) < 2 && abs(p.u - 10) < 1.5
                }
            }
            let swap = clock.now - start
            print(
                String(
                    format:
                        "circle of 6 at 10 %% loss: all across in %.1f s (straight line %.1f s at 4 m/s), closest level pair %.2f m, %d violations",
                    swap.secondsDouble, 2 * radius / 4, watch.minimum, watch.violations.count))
            #expect(watch.violations.isEmpty, "\(watch.violations.prefix(10))")
            let circleMinimum = watch.minimum

            // One shared target for everyone: they gather around it, not on it.
            let target = point(east: 0, north: 0)
            let t = try shell([
                try fleetmeshBinary(), "target", "--node", station.socketPath, "--all", String(target.lat),
                String(target.lon), "10",
            ])
            #expect(t.status == 0, "\(t.output)")
            var settledSince: ContinuousClock.Instant?
            try await watchUntil("the drones gather around the shared target and stay", timeout: .seconds(60)) {
                placed in
                let near = placed.allSatisfy { hypot($0.e, $0.n) < 25 }
                let still =
                    (try? vehicles(station).filter { $0.role == "drone" }.allSatisfy { $0.speed < 0.3 }) ?? false
                if near && still { settledSince = settledSince ?? clock.now } else { settledSince = nil }
                return settledSince.map { clock.now - $0 > .seconds(2) } ?? false
            }
            print(
                String(
                    format:
                        "shared target: 6 drones parked around it, closest level pair %.2f m (circle phase %.2f m), %d violations in all",
                    watch.minimum, circleMinimum, watch.violations.count))
            #expect(watch.violations.isEmpty, "\(watch.violations.prefix(10))")
            // Nobody stacked on the target: at most one drone within 2 m of it at that altitude.
            let onTarget = try vehicles(station).filter { v in
                let p = place(v)
                return hypot(p.e, p.n) < 2 && abs(p.u - 10) < 2.9
            }
            #expect(onTarget.count <= 1)
            // The drones logged their decisions, and told the station: its events name the drone and the decision.
            #expect(drones.contains { $0.log.contains("avoidance: ") })
            let reported =
                try ControlClient.request(
                    ControlRequest.events(.init(after: 0, limit: 1000)), socket: station.socketPath,
                    timeout: .seconds(5)
                ).events?.events.filter { $0.kind == "avoidance" } ?? []
            #expect(reported.contains { $0.text.contains(" avoids: ") && $0.uavNumber != nil }, "\(reported.prefix(5))")
            print("station avoidance events: \(reported.count), e.g. \(reported.prefix(3).map(\.text))")
            // What the station's separation watch said while every drone avoided (for the record).
            let warnings = station.log.split(separator: "\n").filter {
                $0.contains("predicted closer than the separation")
            }
            print("station separation warnings while all avoided: \(warnings.count) \(warnings.prefix(5))")
        }
    }

    /// Two drones with avoidance off fly head-on at one altitude: the station's event log warns of the loss of
    /// separation ahead, naming both, seconds before they meet, and says when they are separated again.
    @Test func theStationWarnsOfALossOfSeparationAheadBetweenDronesThatDoNotAvoid() async throws {
        try await Lab.with(hosts: 3) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "info")
            for (h, east) in [(2, -25.0), (3, 25.0)] {
                let home = point(east: east, north: 0)
                try lab.startNode(
                    host: h, name: "d\(h)",
                    extra: "[drone]\nhome = [\(home.lat), \(home.lon)]\n[avoidance]\nenabled = false", logLevel: "info")
            }
            var numbers: [String: Int] = [:]
            // By name: a drone's telemetry can reach the station before its name does (the picture then lists it
            // without one for a moment).
            try await waitUntil("d2 and d3 numbered, named and live at the station", timeout: .seconds(20)) {
                numbers = [:]
                for v in try vehicles(station) where !v.stale { numbers[v.name] = v.uavNumber }
                return numbers["d2"] != nil && numbers["d3"] != nil && numbers["d2"] != numbers["d3"]
            }
            for n in numbers.values { try await station.send(["takeoff", "10"], toUAV: n) }
            try await waitUntil("both airborne near 10 m", timeout: .seconds(30), poll: .milliseconds(200)) {
                try vehicles(station).filter { !$0.stale && $0.altitude > 9 }.count == 2
            }
            func events() throws -> [String] {
                try ControlClient.request(
                    ControlRequest.events(.init(after: 0, limit: 1000)), socket: station.socketPath,
                    timeout: .seconds(2)
                ).events?.events.map(\.text) ?? []
            }
            #expect(try !events().contains { $0.contains("separation") })
            try goto(station, numbers["d2"]!, point(east: 25, north: 0), alt: 10)
            try goto(station, numbers["d3"]!, point(east: -25, north: 0), alt: 10)
            var warning = ""
            try await waitUntil("the station warns of the loss of separation ahead", timeout: .seconds(15)) {
                warning = try events().first { $0.contains("predicted closer than the separation") } ?? ""
                return !warning.isEmpty
            }
            // Both named, and the warning came while they were still apart (their predictions look 8 s ahead).
            #expect(
                warning.contains("UAV \(numbers["d2"]!) (d2)") && warning.contains("UAV \(numbers["d3"]!) (d3)"),
                "\(warning)")
            let placed = try vehicles(station).filter { !$0.stale }.map(place)
            #expect(placed.count == 2 && abs(placed[0].e - placed[1].e) > 10, "\(placed)")
            try await waitUntil("the station says they are separated again", timeout: .seconds(30)) {
                try events().contains { $0.contains("separated again") }
            }
            print("separation warning: \(warning)")
        }
    }

    /// A mixed fleet on the antipodal circle: two drones on autopilots (the pymavlink emulator: ArduPilot and PX4 over
    /// UDP, in field conditions — lag, delay, wind, GPS error) and two on the simulator swap ends across a circle of
    /// 30 m radius at one altitude; every kind avoids through the same vehicle protocol. Separation is measured on
    /// true positions (the emulators' tracks, the simulated drones' picture).
    @Test func autopilotAndSimulatedDronesSwapTheCircleWithoutLosingSeparation() async throws {
        try await Lab.with(hosts: 5) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "info")
            let autopilots = try [(2, "ardupilot", -30.0), (3, "px4", 30.0)].map { (h, flavour, east) in
                try EmulatedAutopilot.start(
                    lab, host: h, name: flavour, flavour: flavour, home: point(east: east, north: 0),
                    conditions: EmulatedAutopilot.fieldConditions(seed: h))
            }
            defer { for d in autopilots { d.keep() } }
            for (h, name, north) in [(4, "sim-s", -30.0), (5, "sim-n", 30.0)] {
                let home = point(east: 0, north: north)
                try lab.startNode(
                    host: h, name: name, extra: "[drone]\nhome = [\(home.lat), \(home.lon)]", logLevel: "info")
            }
            let numbers = try await numbered(station, ["ardupilot", "px4", "sim-s", "sim-n"])
            try await takeOff(station, numbers)
            // The autopilots swap ends along the east axis, the simulated drones along the north axis.
            let goals: [String: (e: Double, n: Double)] = [
                "ardupilot": (30, 0), "px4": (-30, 0), "sim-s": (0, 30), "sim-n": (0, -30),
            ]
            var truth = TruthTracks(home: Self.home)
            let across = try await leg(
                "every drone at its goal", station: station, numbers: numbers, goals: goals,
                simulated: ["sim-s", "sim-n"], truth: &truth, timeout: .seconds(60))
            for d in autopilots { truth.load(d) }
            let closest = expectSeparated(
                "two autopilots and two simulated drones across a 30 m circle (60 m, straight line 15 s at 4 m/s)",
                truth, allPairs(Array(goals.keys).sorted()), from: across.from, to: across.to,
                logs: Dictionary(uniqueKeysWithValues: autopilots.map { ($0.name, $0.node) }))
            print(String(format: "mixed fleet on the circle: closest level pair %.2f m", closest))
            // The autopilot drones avoided (their decisions are logged) and were steered through MAVLink.
            #expect(autopilots.contains { $0.node.log.contains("avoidance: ") })
        }
    }
}
