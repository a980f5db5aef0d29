import Coordinator
import Determinism
import MeshTypes

/// What one random-seed run found.
public struct ScenarioOutcome: Sendable {
    /// The seed (replay with `MESHSIM_SEED=<seed>`).
    public var seed: UInt64
    /// Every broken invariant, empty on success.
    public var violations: [String]
    /// Commands sent.
    public var commandsSent: Int
    /// Commands acknowledged (accepted) at their origin.
    public var commandsAcknowledged: Int
    /// Commands some vehicle executed.
    public var commandsExecuted: Int
    /// Messages delivered to cores.
    public var messagesDelivered: Int
}

/// A small random world with random faults, then a quiet period after which every invariant must hold.
public enum RandomScenario {
    /// Runs the scenario for `seed`.
    public static func run(seed: UInt64) -> ScenarioOutcome {
        var rng = SeededRandom(seed: seed ^ 0x5EED_CAFE_F00D_D00D)
        let n = rng.int(in: 3...6)
        let stations = n > 4 ? rng.int(in: 1...2) : 1
        var specs: [SimNodeSpec] = []
        for s in 0..<stations { specs.append(.station("GS-\(s)")) }
        for d in 0..<(n - stations) {
            // Few distinct persisted numbers, so restarts and heals produce clashes; sometimes a unique pin.
            let pinned: UInt8? = rng.chance(0.15) ? UInt8(200 + d) : nil
            let persisted: UInt8? = rng.chance(0.6) ? UInt8(rng.int(in: 1...3)) : nil
            specs.append(.drone("UAV-\(d)", pinned: pinned, persisted: persisted, flying: rng.chance(0.3)))
        }
        var links: [(Int, Int)] = []
        for i in 1..<n { links.append((rng.int(in: 0...(i - 1)), i)) }
        for _ in 0..<rng.int(in: 0...2) {
            let a = rng.int(in: 0...(n - 1)), b = rng.int(in: 0...(n - 1))
            if a != b { links.append((a, b)) }
        }
        var profile = NetworkProfile(
            latency: .milliseconds(Int64(rng.int(in: 2...15))),
            jitter: .milliseconds(Int64(rng.int(in: 0...10))),
            unreliableLoss: rng.unit() * 0.3, duplication: rng.unit() * 0.05)
        profile.encodeOnWire = seed % 4 == 0
        // Short leases, so expiry and renewal happen within the run.
        let sim = MeshSimulation(
            seed: seed, nodes: specs, links: links, network: profile, tickInterval: .milliseconds(100)
        ) {
            $0.leaseDuration = .seconds(6)
        }
        sim.recordsDirectives = false
        let droneIndices = Array(stations..<n)
        var sent = 0

        // Chaos: 6 s of random faults and commands, in 250 ms steps.
        for _ in 0..<24 {
            let all = sim.allLinks
            if rng.chance(0.2), let (a, b) = all.randomElement(using: &rng) { sim.cut(a, b) }
            if rng.chance(0.10), let (a, b) = sim.cutLinks.randomElement(using: &rng) { sim.restore(a, b) }
            if rng.chance(0.06) { sim.crash(rng.int(in: 0...(n - 1))) }
            if rng.chance(0.15), let dead = (0..<n).filter({ !sim.isAlive($0) }).randomElement(using: &rng) {
                sim.restart(dead)
            }
            if rng.chance(0.6) {
                let station = rng.int(in: 0...(stations - 1))
                let drone = droneIndices.randomElement(using: &rng)!
                if let number = sim.core(drone)?.uavNumber ?? sim.persistedNumber(drone) {
                    let commands: [Command] = [
                        .takeoff(altitudeMillimetres: 10_000), .land, .hover,
                        .goto(GeoPoint(latitude: 47, longitude: 8, altitude: 30), speedCmS: 500),
                    ]
                    if sim.sendCommand(
                        from: station, commands.randomElement(using: &rng)!, toUAV: number,
                        takeover: rng.chance(0.3)) != nil
                    {
                        sent += 1
                    }
                }
            }
            if rng.chance(0.1), let number = sim.core(droneIndices.randomElement(using: &rng)!)?.uavNumber {
                sim.sendManualControl(
                    from: rng.int(in: 0...(stations - 1)), ManualControl(x: 0, y: 0, z: 500, r: 0), toUAV: number)
            }
            sim.run(for: .milliseconds(250))
        }
        // Quiet: everything healed and restarted; 5 s to settle (more than the 2 s lease renewal period plus a
        // lost session's detection).
        sim.healAllLinks()
        for i in 0..<n where !sim.isAlive(i) { sim.restart(i) }
        sim.run(for: .seconds(5))

        var violations = sim.violations + sim.settledViolations()
        let acked = sim.answers.filter { $0.value.contains(.accepted) }
        for (id, _) in acked where sim.executionCount(id) != 1 {
            violations.append("seed=\(seed): acknowledged command \(id) executed \(sim.executionCount(id)) times")
        }
        let executed = sim.answers.keys.filter { sim.executionCount($0) > 0 }.count
        return ScenarioOutcome(
            seed: seed, violations: violations, commandsSent: sent, commandsAcknowledged: acked.count,
            commandsExecuted: executed, messagesDelivered: sim.deliveredMessages)
    }
}
