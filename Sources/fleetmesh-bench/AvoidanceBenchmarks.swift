import Avoidance
import Flight
import Foundation

/// Collision-avoidance figures: conflict detection per cycle for 100 and 1,000 vehicles (sort-and-sweep broad phase
/// against the all-pairs check in the same run), resolution per cycle, and the scenario table (antipodal circles,
/// shared target, head-on, crossing, overtaking, lost link).
///
/// `FLEETMESH_BENCH_AVOIDANCE=detection,resolution,scenarios` picks parts (default all);
/// `FLEETMESH_BENCH_AVOIDANCE_SCENARIOS=circle-8,shared-target-8,…` picks scenarios.
enum AvoidanceBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        let env = ProcessInfo.processInfo.environment
        let parts = Set((env["FLEETMESH_BENCH_AVOIDANCE"] ?? "detection,resolution,scenarios").split(separator: ",").map(String.init))
        if parts.contains("detection") {
            out.heading("Avoidance: conflict detection per cycle (40 × 0.2 s predictions, 10 % not avoiding, 10 % stale)")
            for n in [100, 1000] { detection(out, vehicles: n) }
        }
        if parts.contains("resolution") {
            out.heading("Avoidance: resolution per cycle (every drone decides once from the whole picture)")
            for n in [100, 1000] { resolution(out, vehicles: n) }
            crowded(out)
        }
        if parts.contains("scenarios") {
            out.heading("Avoidance: scenarios (5 m / 2.9 m minima, 5 Hz predictions, 20–100 ms latency; time vs flying alone)")
            let wanted = env["FLEETMESH_BENCH_AVOIDANCE_SCENARIOS"].map { Set($0.split(separator: ",").map(String.init)) }
            for mission in scenarios() where wanted == nil || wanted!.contains(mission.scenario.name) {
                scenario(out, mission)
            }
        }
    }

    /// The scenario table's missions.
    static func scenarios() -> [AvoidanceMission] {
        [8, 16, 32, 64].map { AvoidanceMission.antipodalCircle(drones: $0) }
            + [AvoidanceMission.sharedTarget(drones: 8), .headOn(), .crossing(), .overtaking(), .lostLink()]
    }

    /// A random fleet at about 400 drones per km²: straight or turning predictions at up to 4 m/s, 10–60 m up.
    static func fleet(_ n: Int, seed: UInt64, now: Double) -> [AirspaceTrack] {
        var rng = SeededRandom(seed: seed)
        let side = (Double(n) / 400).squareRoot() * 1000
        return (0..<n).map { k in
            let start = Vector3(Double.random(in: 0...side, using: &rng), Double.random(in: 0...side, using: &rng), Double.random(in: 10...60, using: &rng))
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
            return AirspaceTrack(uavNumber: k + 1, avoiding: k % 10 != 7,
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
        out.line("\(n) vehicles: conflicting pairs per cycle", String(format: "%.1f (same set from both: %@)", Double(found) / Double(rounds), agree ? "yes" : "NO"))
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
                let own = AvoidanceOwnship(uavNumber: t.uavNumber, position: p.origin, velocity: v,
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

    /// Decisions inside the 64-drone circle while it is most crowded (the centre, 8 s after the start).
    static func crowded(_ out: BenchOutput) {
        var sim = try! AvoidanceSimulation(mission: .antipodalCircle(drones: 64))
        while sim.time < AvoidanceMission.settleTime + 15 { sim.step() }
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
        // The circle's ideal time, as ORCA's figures count it: the diameter at full speed with instant acceleration.
        var ideal = ""
        if r.name.hasPrefix("circle-"), let a = r.arrivalTime {
            let diameter = 2 * (mission.scenario.drones[0].home - Vector3(0, 0, 0)).horizontalLength
            ideal = String(format: " (%.2f× the %.1f s of 2R/v)", a / (diameter / 4), diameter / 4)
        }
        out.line(r.name, "min sep \(f(r.minimumSeparation)) m  violations \(r.violations) (\(f(r.violationSeconds, 1)) s)  "
                 + "arrival \(f(r.arrivalTime, 1)) s / alone \(f(r.soloArrivalTime, 1)) s = \(f(r.timeRatio))×\(ideal)  "
                 + "extra distance \(f(r.extraDistance.map { $0 * 100 }, 1)) %  unsafe decisions \(r.unsafeDecisions)/\(r.decisions)  "
                 + "wall \(f(wall, 1)) s")
        if r.nonAvoidingViolations > 0 || mission.drones.contains(where: { !$0.avoids || $0.lostLinkAt != nil }) {
            out.line("  with non-avoiding drones", "min sep \(f(r.minimumSeparationToNonAvoiding)) m  violations \(r.nonAvoidingViolations) (\(f(r.nonAvoidingViolationSeconds, 1)) s)")
        }
        if r.fenceExits > 0 || !r.unarrived.isEmpty {
            out.line("  problems", "fence exits \(r.fenceExits), not arrived: \(r.unarrived.joined(separator: ", "))")
        }
    }
}
