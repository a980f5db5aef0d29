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

    /// The UAV numbers of `count` drones, once each is live at the station under a number of its own.
    func numbered(_ station: NodeProcess, _ count: Int) async throws -> [String: Int] {
        var numbers: [String: Int] = [:]
        try await waitUntil("\(count) drones numbered and live at the station", timeout: .seconds(20)) {
            numbers = [:]
            for v in try vehicles(station) where !v.stale && v.role == "drone" { numbers[v.name] = v.uavNumber }
            return numbers.count == count && Set(numbers.values).count == count
        }
        return numbers
    }

    /// Every drone takes off to 10 m; returns once all are above 9 m and done taking off.
    func takeOff(_ station: NodeProcess, _ numbers: [String: Int]) async throws {
        for n in numbers.values {
            _ = try ControlClient.request(
                ControlRequest.send(.init(uav: n, args: ["takeoff", "10"], timeoutMs: 100)),
                socket: station.socketPath, timeout: .seconds(5))
        }
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
    func expectSeparated(
        _ leg: String, _ truth: TruthTracks, _ pairs: [(String, String)], from: Double, to: Double,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Double {
        let result = truth.separation(pairs, from: from, to: to)
        let closest = result.map(\.closest).min() ?? .infinity
        print(
            String(
                format: "%@: %.1f s, closest level pair %.2f m (true positions; %@)", leg, to - from, closest,
                result.map(\.description).joined(separator: ", ")))
        let violations = result.flatMap(\.violations)
        #expect(violations.isEmpty, "\(leg): \(violations.prefix(10))", sourceLocation: sourceLocation)
        #expect(closest.isFinite, "\(leg): no pair was ever level (no data?)", sourceLocation: sourceLocation)
        return closest
    }

    @Test func anArduPilotAndAPX4DronePassHeadOnAndCrossAtRightAnglesInWindAndGPSError() async throws {
        try await Lab.with(hosts: 3) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station", logLevel: "info")
            let drones = try [(2, "ardupilot", -25.0), (3, "px4", 25.0)].map { (h, flavour, east) in
                try EmulatedAutopilot.start(
                    lab, host: h, name: flavour, flavour: flavour, home: point(east: east, north: 0),
                    conditions: EmulatedAutopilot.fieldConditions(seed: h))
            }
            defer { for d in drones { d.keep() } }
            let numbers = try await numbered(station, 2)
            try await takeOff(station, numbers)
            var truth = TruthTracks(home: Self.home)
            let pair = [("ardupilot", "px4")]
            // Head-on at one altitude, swapping ends (50 m).
            let headOn = try await leg(
                "both at the other's end", station: station, numbers: numbers,
                goals: ["ardupilot": (25, 0), "px4": (-25, 0)], truth: &truth, timeout: .seconds(45))
            // Then crossing at right angles: from (±25, 0) each flies through (0, 25), 12 m beyond it.
            let beyond = 12 / 2.0.squareRoot()
            let crossing = try await leg(
                "both across the crossing point", station: station, numbers: numbers,
                goals: ["ardupilot": (-beyond, 25 + beyond), "px4": (beyond, 25 + beyond)],
                truth: &truth, timeout: .seconds(45))
            for d in drones { truth.load(d) }
            let a = expectSeparated(
                "ArduPilot and PX4 head-on (50 m, straight line 12.5 s at 4 m/s)", truth, pair, from: headOn.from,
                to: headOn.to)
            let b = expectSeparated(
                "ArduPilot and PX4 crossing at 90° (47 m each, straight line 11.8 s)", truth, pair,
                from: crossing.from, to: crossing.to)
            print(String(format: "two autopilots: closest %.2f m head-on, %.2f m crossing", a, b))
            #expect(drones.contains { $0.node.log.contains("avoidance: ") })
        }
    }
}
