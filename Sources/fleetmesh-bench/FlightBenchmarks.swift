import Determinism
import Flight
import Foundation
import Geodesy

/// Flight and geodesy figures: UTM conversion rate (against the naive series in the same run), trajectory
/// planning rate for a 1 km route, simulator steps for a 100-drone fleet, and trajectory prediction rate.
enum FlightBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        out.heading("Geodesy (UTM, 6th-order Krüger series)")
        var rng = SeededRandom(seed: 7)
        let inputs = (0..<4096).map { _ in
            (Double.random(in: -79...83, using: &rng), Double.random(in: -3...3, using: &rng))
        }
        let n = Double(inputs.count)
        // Each timed call converts all 4096 inputs, so loop overhead does not dilute the per-conversion cost.
        let tm = TransverseMercator.utm
        let fast =
            n
            * throughput(seconds: 0.5, batch: 1) {
                var acc = 0.0
                for p in inputs { acc += tm.forward(latitude: p.0, longitudeFromCentralMeridian: p.1).x }
                blackHole(acc)
            }
        let naive =
            n
            * throughput(seconds: 0.5, batch: 1) {
                var acc = 0.0
                for p in inputs {
                    acc +=
                        TransverseMercator.naiveForward(
                            ellipsoid: .wgs84, scaleFactor: 0.9996, latitude: p.0, longitudeFromCentralMeridian: p.1
                        ).x
                }
                blackHole(acc)
            }
        out.rate("TM forward (Clenshaw, precomputed)", perSecond: fast)
        out.rate("TM forward naive (per-call coeffs, per-term trig)", perSecond: naive)
        out.ratio("TM forward speed-up", fast / naive, against: "naive series")
        let geodetic = inputs.map { GeodeticCoordinate(latitude: $0.0, longitude: 9 + $0.1) }
        let full =
            n
            * throughput(seconds: 0.5, batch: 1) {
                var acc = 0.0
                for g in geodetic { acc += (try? UTM.forward(g))?.easting ?? 0 }
                blackHole(acc)
            }
        out.rate("UTM.forward (zone selection + checks)", perSecond: full)
        let grid = geodetic.map { try! UTM.forward($0) }
        let inverse =
            n
            * throughput(seconds: 0.5, batch: 1) {
                var acc = 0.0
                for u in grid { acc += (try? UTM.inverse(u))?.latitude ?? 0 }
                blackHole(acc)
            }
        out.rate("UTM.inverse", perSecond: inverse)
        let a = GeodeticCoordinate(latitude: 59.9, longitude: 10.7),
            b = GeodeticCoordinate(latitude: 48.8, longitude: 2.3)
        out.rate(
            "Vincenty inverse (Oslo–Paris)",
            perSecond: throughput(seconds: 0.3) { blackHole(try? Geodesic.vincentyInverse(from: a, to: b)) })

        out.heading("Trajectories")
        let route = [
            Vector3(0, 0, 10), Vector3(250, 0, 10), Vector3(250, 250, 15), Vector3(0, 250, 15), Vector3(0, 0, 10),
        ]  // 1 km
        let planner = TrajectoryPlanner()
        let sample = try planner.plan(route)
        let plans = throughput(seconds: 0.5, batch: 1) { blackHole(try? planner.plan(route)) }
        out.rate("plan + sample 1 km route (\(sample.points.count) points)", perSecond: plans)
        out.rate("  trajectory points generated", perSecond: plans * Double(sample.points.count))
        var t = 0.0
        out.rate(
            "Trajectory.sample(at:) lookups",
            perSecond: throughput(seconds: 0.3) {
                t += 0.37
                if t > sample.duration { t = 0 }
                blackHole(sample.sample(at: t))
            })

        out.heading("Simulator (100 drones, 0.02 s steps)")
        let origin = try MapOrigin(latitude: 59.9, longitude: 10.7)
        var config = SimulatorConfiguration()
        config.gpsNoise = 0.5
        config.gustStrength = 0.5
        var sims = (0..<100).map { k -> MultirotorSimulator in
            var c = config
            c.seed = UInt64(k)
            return MultirotorSimulator(
                origin: origin, home: Vector3(Double(k % 10) * 10, Double(k / 10) * 10, 0), configuration: c)
        }
        var navs = (0..<100).map { _ in Navigator(origin: origin) }
        var now = 0.0
        for k in sims.indices { try navs[k].handle(.takeoff(altitude: 10), state: sims[k].state, now: now) }
        func fleetStep() {
            for k in sims.indices {
                sims[k].setpoint = navs[k].setpoint(state: sims[k].state, now: now)
                sims[k].step(dt: 0.02)
            }
            now += 0.02
        }
        for _ in 0..<500 { fleetStep() }  // airborne
        for k in sims.indices {
            try navs[k].handle(
                .goto(.local(Vector3(Double(k) * 7 - 300, 400, 20)), speed: nil), state: sims[k].state, now: now)
        }
        let fleetSteps = throughput(seconds: 1.0, batch: 10) { fleetStep() }
        out.rate("fleet steps (100 drones: navigator + sim)", perSecond: fleetSteps)
        out.rate("  drone steps", perSecond: fleetSteps * 100)
        out.line("  real-time factor at 50 Hz", String(format: "%10.0f x", fleetSteps / 50))
        var bare = sims[0]
        out.rate("single simulator step (no navigator)", perSecond: throughput(seconds: 0.3) { bare.step(dt: 0.02) })

        out.heading("Prediction (40 points, 8 s)")
        let state = sims[0].state
        let nav = navs[0]
        var samples = Samples()
        let clock = ContinuousClock()
        for _ in 0..<2000 {
            let start = clock.now
            blackHole(nav.predictedTrajectory(state: state, now: now))
            samples.add(clock.now - start)
        }
        out.latency("predictedTrajectory", samples, unit: .microseconds)
    }
}
