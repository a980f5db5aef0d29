import Avoidance
import Determinism
import Flight
import Foundation

/// Collision-avoidance figures: conflict detection per cycle for 100 and 1,000 vehicles (sort-and-sweep broad phase
/// against the all-pairs check in the same run), resolution per cycle, the scenario table (shared target, head-on,
/// crossing, overtaking, lost link), and FleetMesh against ORCA on ORCA's circle benchmark and on random crossings,
/// ORCA flown live in the same run (RVO2 through pyrvo, `Tools/orca-bench.py`) on the same starts and goals.
///
/// `FLEETMESH_BENCH_AVOIDANCE=detection,resolution,scenarios,orca` picks parts (default all);
/// `FLEETMESH_BENCH_AVOIDANCE_SCENARIOS=circle-8,shared-target-8,…` picks scenarios (of both tables);
/// `FLEETMESH_BENCH_ORCA_SEEDS=1,2,3` the start-noise seeds of the ORCA table (default 1, 2, 3).
enum AvoidanceBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        let env = ProcessInfo.processInfo.environment
        let parts = Set(
            (env["FLEETMESH_BENCH_AVOIDANCE"] ?? "detection,resolution,scenarios,orca").split(separator: ",").map(
                String.init))
        if parts.contains("detection") {
            out.heading(
                "Avoidance: conflict detection per cycle (40 × 0.2 s predictions, 10 % not avoiding, 10 % stale)")
            for n in [100, 1000] { detection(out, vehicles: n) }
        }
        if parts.contains("resolution") {
            out.heading("Avoidance: resolution per cycle (every drone decides once from the whole picture)")
            for n in [100, 1000] { resolution(out, vehicles: n) }
            crowded(out)
        }
        if parts.contains("scenarios") {
            out.heading(
                "Avoidance: scenarios (5 m / 2.9 m minima, 5 Hz predictions, 20–100 ms latency; time vs flying alone)")
            let wanted = env["FLEETMESH_BENCH_AVOIDANCE_SCENARIOS"].map {
                Set($0.split(separator: ",").map(String.init))
            }
            for mission in scenarios() where wanted == nil || wanted!.contains(mission.scenario.name) {
                scenario(out, mission)
            }
        }
        if parts.contains("soak") { await soak(out) }
        if parts.contains("orca") {
            let wanted = env["FLEETMESH_BENCH_AVOIDANCE_SCENARIOS"].map {
                Set($0.split(separator: ",").map(String.init))
            }
            let seeds = (env["FLEETMESH_BENCH_ORCA_SEEDS"] ?? "1,2,3").split(separator: ",").compactMap { UInt64($0) }
            try OrcaComparison.run(out, seeds: seeds, only: wanted)
        }
    }

    /// The randomized missions of Tests/AvoidanceTests in a release build (only when asked for:
    /// `FLEETMESH_BENCH_AVOIDANCE=soak`): `FLEETMESH_BENCH_SOAK=encounters:crowds` seeds (default 2000:40), counted from
    /// `FLEETMESH_BENCH_SOAK_FROM` (default 1).
    static func soak(_ out: BenchOutput) async {
        let env = ProcessInfo.processInfo.environment
        let spec = (env["FLEETMESH_BENCH_SOAK"] ?? "2000:40").split(separator: ":").compactMap { Int($0) }
        let from = UInt64(env["FLEETMESH_BENCH_SOAK_FROM"].flatMap { Int($0) } ?? 1)
        out.heading("Avoidance: randomized missions (the test suite's), release build")
        for (kind, count) in zip([RandomMission.Kind.encounter, .crowd], spec) where count > 0 {
            let clock = ContinuousClock()
            let start = clock.now
            let seeds = (0..<UInt64(count)).map { from + $0 }
            let outcomes = await RandomMission.fly(seeds, kind: kind)
            let failing = outcomes.filter { !$0.violations.isEmpty }.sorted { $0.seed < $1.seed }
            let losses = outcomes.reduce(0) { $0 + $1.report.violations }
            out.line(
                "\(kind.rawValue) seeds \(from)…\(from + UInt64(count) - 1)",
                "\(failing.count) failing, \(losses) losses of separation, wall \(String(format: "%.0f", (clock.now - start).seconds)) s"
            )
            for f in failing.prefix(10) {
                out.line("  seed \(f.seed) (\(f.drones) drones)", f.violations.prefix(3).joined(separator: "; "))
            }
        }
    }

    /// The scenario table's missions.
    static func scenarios() -> [AvoidanceMission] {
        [AvoidanceMission.sharedTarget(drones: 8), .headOn(), .crossing(), .overtaking(), .lostLink()]
    }

    /// A random fleet at about 400 drones per km²: straight or turning predictions at up to 4 m/s, 10–60 m up.
    static func fleet(_ n: Int, seed: UInt64, now: Double) -> [AirspaceTrack] {
        var rng = SeededRandom(seed: seed)
        let side = (Double(n) / 400).squareRoot() * 1000
        return (0..<n).map { k in
            let start = Vector3(
                Double.random(in: 0...side, using: &rng), Double.random(in: 0...side, using: &rng),
                Double.random(in: 10...60, using: &rng))
            let speed = Double.random(in: 0...4, using: &rng)
            var heading = Double.random(in: 0...(2 * .pi), using: &rng)
            let turn = Double.random(in: -0.2...0.2, using: &rng)
            let climb = Double.random(in: -1...1, using: &rng)
            var p = start
            var points: [PredictedTrajectory.Point] = []
            for i in 1...40 {
                p += Vector3(sin(heading) * speed * 0.2, cos(heading) * speed * 0.2, climb * 0.2)
                heading += turn * 0.2
                points.append(.init(offset: Double(i) * 0.2, position: p))
            }
            let age = k % 10 == 3 ? Double.random(in: 1...2.5, using: &rng) : Double.random(in: 0...0.4, using: &rng)
            return AirspaceTrack(
                uavNumber: k + 1, avoiding: k % 10 != 7,
                prediction: PredictedTrajectory(time: now - age, origin: start, points: points))
        }
    }

    static func detection(_ out: BenchOutput, vehicles n: Int) {
        let configuration = AvoidanceConfiguration()
        let clock = ContinuousClock()
        var sample = Samples(), broad = Samples(), pairs = Samples()
        let rounds = n >= 1000 ? 30 : 200
        var found = 0
        var agree = true
        for r in 0..<rounds {
            let tracks = fleet(n, seed: UInt64(r + 1), now: 100)
            var t = clock.now
            let snapshot = AirspaceSnapshot(tracks: tracks, now: 100, configuration: configuration)
            sample.add(clock.now - t)
            t = clock.now
            let a = snapshot.conflicts()
            broad.add(clock.now - t)
            t = clock.now
            let b = snapshot.conflictsAllPairs()
            pairs.add(clock.now - t)
            found += a.count
            agree = agree && a == b
        }
        out.latency("\(n) vehicles: resample picture", sample)
        out.latency("\(n) vehicles: broad phase + check", broad)
        out.latency("\(n) vehicles: all pairs (reference)", pairs)
        out.ratio("\(n) vehicles: all pairs / broad phase (p50)", pairs.p50 / broad.p50, against: "broad phase")
        out.ratio("\(n) vehicles: all pairs / broad phase (p99)", pairs.p99 / broad.p99, against: "broad phase")
        out.line(
            "\(n) vehicles: conflicting pairs per cycle",
            String(format: "%.1f (same set from both: %@)", Double(found) / Double(rounds), agree ? "yes" : "NO"))
    }

    static func resolution(_ out: BenchOutput, vehicles n: Int) {
        let tracks = fleet(n, seed: 42, now: 100)
        let clock = ContinuousClock()
        var perDrone = Samples(), perCycle = Samples()
        var cores = [AvoidanceCore](repeating: AvoidanceCore(), count: n)
        let cycles = n >= 1000 ? 3 : 20
        var yielding = 0
        for cycle in 0..<cycles {
            let now = 100 + Double(cycle) * 0.1
            let cycleStart = clock.now
            for (k, t) in tracks.enumerated() {
                let p = t.prediction
                let v = (p.points[1].position - p.points[0].position) / 0.2
                let own = AvoidanceOwnship(
                    uavNumber: t.uavNumber, position: p.origin, velocity: v,
                    goal: .init(position: p.points[p.points.count - 1].position + v * 30, speed: 4))
                let start = clock.now
                let d = cores[k].decide(own: own, airspace: tracks, now: now)
                perDrone.add(clock.now - start)
                if !d.yieldingTo.isEmpty { yielding += 1 }
            }
            perCycle.add(clock.now - cycleStart)
        }
        out.latency("\(n) vehicles: one drone's decision", perDrone, unit: .microseconds)
        out.latency("\(n) vehicles: all \(n) drones decide once", perCycle)
        out.line("\(n) vehicles: drones yielding per cycle", String(format: "%.1f", Double(yielding) / Double(cycles)))
    }

    /// Decisions inside the 64-drone circle while it is most crowded (near the centre, R / v after the start).
    static func crowded(_ out: BenchOutput) {
        var sim = try! AvoidanceSimulation(mission: .antipodalCircle(drones: 64))
        while sim.time < AvoidanceMission.settleTime + AvoidanceMission.circleRadius(drones: 64) / 4 { sim.step() }
        let clock = ContinuousClock()
        var samples = Samples()
        var timed = sim
        let stepsPerDecision = 5
        for _ in 0..<(stepsPerDecision * 10) {
            let start = clock.now
            timed.step()
            samples.add(clock.now - start)
        }
        out.latency("circle-64 at its most crowded: one 0.02 s step", samples)
        out.line("  (each step: 1/5 of the 64 drones decide, predictions published, 64 simulators stepped)", "")
    }

    static func scenario(_ out: BenchOutput, _ mission: AvoidanceMission) {
        let clock = ContinuousClock()
        let start = clock.now
        var sim = try! AvoidanceSimulation(mission: mission)
        let r = sim.run()
        let wall = (clock.now - start).seconds
        func f(_ v: Double?, _ d: Int = 2) -> String { v.map { String(format: "%.\(d)f", $0) } ?? "-" }
        out.line(
            r.name,
            "min sep \(f(r.minimumSeparation)) m  violations \(r.violations) (\(f(r.violationSeconds, 1)) s)  "
                + "arrival \(f(r.arrivalTime, 1)) s / alone \(f(r.soloArrivalTime, 1)) s = \(f(r.timeRatio))×  "
                + "extra distance \(f(r.extraDistance.map { $0 * 100 }, 1)) %  unsafe decisions \(r.unsafeDecisions)/\(r.decisions)  "
                + "wall \(f(wall, 1)) s")
        if r.nonAvoidingViolations > 0 || mission.drones.contains(where: { !$0.avoids || $0.lostLinkAt != nil }) {
            out.line(
                "  with non-avoiding drones",
                "min sep \(f(r.minimumSeparationToNonAvoiding)) m  violations \(r.nonAvoidingViolations) (\(f(r.nonAvoidingViolationSeconds, 1)) s)"
            )
        }
        if r.fenceExits > 0 || !r.unarrived.isEmpty {
            out.line("  problems", "fence exits \(r.fenceExits), not arrived: \(r.unarrived.joined(separator: ", "))")
        }
    }
}

/// FleetMesh against ORCA in the same run, on the same starts and goals: ORCA's drone-scaled circle benchmark (radius
/// max(30 m, N·5/π m), ±0.3 m start noise) at 8–128 drones, circles whose drones start at two and three altitudes,
/// and random crossings. ORCA is RVO2 through pyrvo (`Tools/orca-bench.py`: agent radius 2.5 m, so 5 m between centres,
/// 4 m/s, 0.1 s step, ideal velocity control, as published); it flies in a plane, so drones at different altitudes
/// are separate ORCA runs (one per altitude), which never conflict. Both count a drone arrived within 1 m of its goal.
enum OrcaComparison {
    /// One mission of the table.
    struct Row {
        var mission: AvoidanceMission
        /// Straight-line time of the longest leg at 4 m/s with instant acceleration (2R/v on a circle), seconds.
        var straight: Double
        var starts: [Vector3]
        var goals: [Vector3]
        var seed: UInt64
    }

    /// What ORCA did on one mission (all its altitude layers).
    struct OrcaResult {
        var makespan: Double?
        var arrivals: [Double?]
        var minimumSeparation: Double?
        var losses: Int
        var parked: Bool
    }

    static func missions(seeds: [UInt64]) -> [(AvoidanceMission, UInt64)] {
        var out: [(AvoidanceMission, UInt64)] = []
        for n in [8, 16, 32, 64, 128] {
            for seed in seeds { out.append((.antipodalCircle(drones: n, seed: seed), seed)) }
        }
        for (n, altitudes) in [(16, [18.0, 22]), (32, [18.0, 22]), (24, [16.0, 20, 24])] {
            for seed in seeds { out.append((.antipodalCircle(drones: n, altitudes: altitudes, seed: seed), seed)) }
        }
        for n in [16, 32] {
            for seed in seeds { out.append((.randomCrossing(drones: n, seed: seed), seed)) }
        }
        return out
    }

    static func row(_ mission: AvoidanceMission, seed: UInt64) -> Row {
        let starts = mission.scenario.drones.map(\.home)
        let goals = mission.goals.map { $0! }
        let straight =
            zip(starts, goals).map { ($0 - $1).horizontalLength }.max()!
            / mission.configuration.limits.maxHorizontalSpeed
        return Row(mission: mission, straight: straight, starts: starts, goals: goals, seed: seed)
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Tools/orca-bench.py").path
    }

    /// Flies every row's drones with ORCA, one plane per altitude, in one pyrvo process.
    static func orca(_ rows: [Row]) throws -> (version: String, results: [OrcaResult]) {
        var runs: [[String: Any]] = []
        var layers: [[(name: String, members: [Int])]] = []
        for (r, row) in rows.enumerated() {
            var byAltitude: [Double: [Int]] = [:]
            for (i, g) in row.goals.enumerated() { byAltitude[(g.z * 10).rounded() / 10, default: []].append(i) }
            var mine: [(String, [Int])] = []
            for (z, members) in byAltitude.sorted(by: { $0.key < $1.key }) {
                let name = "\(r)@\(z)"
                runs.append([
                    "name": name, "starts": members.map { [row.starts[$0].x, row.starts[$0].y] },
                    "goals": members.map { [row.goals[$0].x, row.goals[$0].y] },
                ])
                mine.append((name, members))
            }
            layers.append(mine)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let request = try JSONSerialization.data(withJSONObject: ["runs": runs, "max_time": 400])
        input.fileHandleForWriting.write(request)
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let results = json["runs"] as? [[String: Any]]
        else {
            throw BenchError(
                "Tools/orca-bench.py failed (status \(process.terminationStatus)); pyrvo installed? (make setup)")
        }
        let byName = Dictionary(uniqueKeysWithValues: results.map { ($0["name"] as! String, $0) })
        let out = zip(rows, layers).map { row, mine -> OrcaResult in
            var result = OrcaResult(
                makespan: 0, arrivals: [Double?](repeating: nil, count: row.goals.count), minimumSeparation: nil,
                losses: 0, parked: true)
            for (name, members) in mine {
                let r = byName[name]!
                let arrivals = (r["arrivals"] as! [Any]).map { $0 as? Double }
                for (k, i) in members.enumerated() { result.arrivals[i] = arrivals[k] }
                if let m = r["makespan"] as? Double, let so = result.makespan {
                    result.makespan = max(so, m)
                } else {
                    result.makespan = nil
                }
                if let s = r["min_separation"] as? Double {
                    result.minimumSeparation = min(result.minimumSeparation ?? .infinity, s)
                }
                result.losses += r["losses"] as! Int
                result.parked = result.parked && (r["parked"] as! Bool)
            }
            return result
        }
        return (json["pyrvo"] as? String ?? "?", out)
    }

    static func run(_ out: BenchOutput, seeds: [UInt64], only: Set<String>?) throws {
        let rows = missions(seeds: seeds).filter { only == nil || only!.contains($0.0.scenario.name) }.map {
            row($0, seed: $1)
        }
        guard !rows.isEmpty else { return }
        let (version, orca) = try orca(rows)
        out.heading(
            "Avoidance: FleetMesh vs ORCA (pyrvo \(version), live) on ORCA's circle (R = max(30, N·5/π) m, ±0.3 m start noise) and random crossings"
        )
        out.line(
            "  columns",
            "makespan s, ×2R/v (straight-line time of the longest leg), ×solo (slowest drone alone, FleetMesh's flight model), "
                + "worst drone ×its own solo, closest approach m (horizontal while < 2.9 m apart vertically), losses of separation, drones at their own goal"
        )
        func f(_ v: Double?, _ d: Int = 2) -> String { v.map { String(format: "%.\(d)f", $0) } ?? "-" }
        var worstMargin = -Double.infinity
        for (row, o) in zip(rows, orca) {
            var sim = try AvoidanceSimulation(mission: row.mission)
            let r = sim.runUntilSettled(for: 3)
            let solo = r.drones.map(\.soloArrival)
            let slowestSolo = solo.compactMap { $0 }.max()
            func worst(_ arrivals: [Double?]) -> Double? {
                var w = 0.0
                for (a, s) in zip(arrivals, solo) {
                    guard let a, let s, s > 0 else { return nil }
                    w = max(w, a / s)
                }
                return w
            }
            let atGoal = zip(r.drones, row.goals).filter { d, g in
                !d.parked && d.arrival != nil && (d.finalPosition - g).length <= 1
            }.count
            let n = row.goals.count
            let fleet = r.arrivalTime.map { $0 / row.straight }, anchor = o.makespan.map { $0 / row.straight }
            out.line(
                "\(r.name), noise seed \(row.seed)",
                String(format: "longest leg %.1f m, straight-line time %.1f s", row.straight * 4, row.straight))
            out.line(
                "  FleetMesh",
                "\(f(r.arrivalTime, 1)) s  \(f(fleet))×  \(f(slowestSolo.flatMap { s in r.arrivalTime.map { $0 / s } }))× solo  "
                    + "worst \(f(worst(r.drones.map(\.arrival))))×  closest \(f(r.minimumSeparation)) m  losses \(r.violations)  at goal \(atGoal)/\(n)"
            )
            out.line(
                "  ORCA",
                "\(f(o.makespan, 1)) s  \(f(anchor))×  \(f(slowestSolo.flatMap { s in o.makespan.map { $0 / s } }))× solo  "
                    + "worst \(f(worst(o.arrivals)))×  closest \(f(o.minimumSeparation)) m  losses \(o.losses)  at goal \(o.arrivals.compactMap { $0 }.count)/\(n)"
            )
            if let a = fleet, let b = anchor {
                out.line(
                    "  FleetMesh / ORCA", String(format: "%.2f (%@)", a / b, a < b ? "FleetMesh faster" : "ORCA faster")
                )
                worstMargin = max(worstMargin, a / b)
            } else {
                out.line(
                    "  FleetMesh / ORCA", fleet == nil ? "FleetMesh did not finish" : "ORCA did not finish (deadlock)")
                if fleet == nil { worstMargin = .infinity }
            }
        }
        out.line("worst FleetMesh / ORCA makespan", f(worstMargin))
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
