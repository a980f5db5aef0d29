import Coordinator
import Determinism
import MeshSimulation
import MeshTypes
import Testing

extension MeshSimulation {
    func logContains(_ i: Int, _ match: (Directive) -> Bool) -> Bool { !logged(i, where: match).isEmpty }
}

@Suite("Simulation scenarios")
struct ScenarioTests {
    @Test("line A—B—C: a command is relayed by B and answered accepted then completed; telemetry crosses too")
    func lineRelay() throws {
        let sim = MeshSimulation(
            seed: 1, nodes: [.station("GS-A"), .station("GS-B"), .drone("C", persisted: 4, telemetry: true)],
            links: [(0, 1), (1, 2)])
        sim.run(for: .seconds(2))
        let a = try #require(sim.core(0))
        #expect(a.route(to: sim.ids[2]) == Route(nextHop: sim.ids[1], hops: 2))
        #expect(sim.core(0)!.fleetPicture(now: sim.now).map(\.uavNumber) == [4])
        let id = try #require(sim.sendCommand(from: 0, .takeoff(altitudeMillimetres: 10_000), toUAV: 4))
        sim.run(for: .seconds(1))
        #expect(sim.answers[id] == [.accepted, .completed])
        #expect(sim.executionCount(id) == 1)
        #expect(sim.vehicle(2).flying)
        let land = try #require(sim.sendCommand(from: 0, .land, toUAV: 4))
        let hover = try #require(sim.sendCommand(from: 0, .hover, toUAV: 9))
        sim.run(for: .seconds(1))
        #expect(sim.answers[land] == [.accepted, .completed])
        #expect(sim.answers[hover] == [.rejected(.unknownUAVNumber(9))])
        #expect(sim.violations.isEmpty)
        #expect(sim.settledViolations().isEmpty)
    }

    @Test("clash after a partition heals: the flying drone keeps its number, the other is renumbered and announces it")
    func clashAfterHeal() throws {
        let sim = MeshSimulation(
            seed: 2,
            nodes: [.station("GS-1"), .drone("D1", persisted: 7), .station("GS-2"), .drone("D2", persisted: 7)],
            links: [(0, 1), (2, 3), (1, 3)])
        sim.partition([[0, 1], [2, 3]])
        sim.run(for: .seconds(2))
        #expect(sim.core(1)?.uavNumber == 7 && sim.core(3)?.uavNumber == 7)
        // The drone with the higher NodeID flies, so the flying rule (not the NodeID tiebreak) must decide.
        let (flyer, grounded) = sim.ids[1] > sim.ids[3] ? (1, 3) : (3, 1)
        sim.setFlying(flyer, true)
        sim.run(for: .milliseconds(300))
        sim.healAllLinks()
        let healedAt = sim.now
        // Commands to 7 from the flyer's side right after the heal: the station resolves 7 either to the flyer or,
        // while it sees the clash, refuses; the grounded drone never runs a command meant for the flyer.
        let flyersStation = flyer == 1 ? 0 : 2
        var sentAfterHeal: [CommandID] = []
        for _ in 0..<100 {
            sim.run(for: .milliseconds(10))
            if let id = sim.sendCommand(from: flyersStation, .takeoff(altitudeMillimetres: 5000), toUAV: 7) {
                sentAfterHeal.append(id)
            }
        }
        sim.run(for: .seconds(1))
        for id in sentAfterHeal {
            #expect(sim.vehicle(grounded).executions[id] == nil)
            let a = sim.answers[id] ?? []
            #expect(a == [.accepted, .completed] || a == [.rejected(.contestedNumber(7))], "\(a)")
        }
        let settle = try #require(sim.runUntilNumbersSettle(step: .milliseconds(10), limit: .seconds(5)))
        #expect(sim.now - healedAt < .seconds(3), "settled \(settle) after the heal")
        sim.run(for: .seconds(1))
        #expect(sim.core(flyer)?.uavNumber == 7)
        let renumbered = try #require(sim.core(grounded)?.uavNumber)
        #expect(renumbered != 7)
        #expect(sim.persistedNumber(grounded) == renumbered)
        #expect(
            sim.logContains(grounded) {
                $0 == .uavNumberChanged(from: 7, to: renumbered, reason: .lostClash(to: sim.ids[flyer]))
            })
        #expect(sim.core(0)?.resolve(uavNumber: 7) == .node(sim.ids[flyer]))
        #expect(sim.core(2)?.resolve(uavNumber: renumbered) == .node(sim.ids[grounded]))
        #expect(sim.settledViolations().isEmpty)
        #expect(sim.violations.isEmpty)
    }

    @Test("two drones pinned to one number: reported at every node, never renumbered, commands refused")
    func pinnedClash() throws {
        let sim = MeshSimulation(
            seed: 3, nodes: [.station("GS"), .drone("A", pinned: 5), .drone("B", pinned: 5)],
            links: [(0, 1), (0, 2)])
        sim.run(for: .seconds(3))
        for i in 0..<3 {
            #expect(sim.logContains(i) { if case .numberConflict(.pinnedClash(5, _)) = $0 { true } else { false } })
        }
        let id = try #require(sim.sendCommand(from: 0, .hover, toUAV: 5))
        #expect(sim.answers[id] == [.rejected(.contestedNumber(5))])
        sim.run(for: .seconds(5))
        #expect(sim.core(1)?.uavNumber == 5 && sim.core(2)?.uavNumber == 5)
        #expect(!sim.logContains(1) { if case .uavNumberChanged = $0 { true } else { false } })
        #expect(sim.settledViolations().isEmpty)  // pinned clashes are reported, not counted as settling failures
    }

    @Test("leases: refused as 'controlled by', taken over explicitly, released when the holder is lost")
    func leases() throws {
        let sim = MeshSimulation(
            seed: 4, nodes: [.station("GS-1"), .station("GS-2"), .drone("D", persisted: 3, flying: true)],
            links: [(0, 2), (1, 2)])
        sim.run(for: .seconds(2))
        let a = try #require(sim.sendCommand(from: 0, .hover, toUAV: 3))
        sim.run(for: .seconds(1))
        #expect(sim.answers[a] == [.accepted, .completed])
        let b = try #require(sim.sendCommand(from: 1, .hover, toUAV: 3))
        sim.run(for: .seconds(1))
        #expect(sim.answers[b] == [.rejected(.controlledBy("GS-1"))])
        let c = try #require(sim.sendCommand(from: 1, .hover, toUAV: 3, takeover: true))
        sim.run(for: .seconds(1))
        #expect(sim.answers[c] == [.accepted, .completed])
        #expect(sim.logContains(0) { $0 == .controlLost(uavNumber: 3, to: "GS-2") })
        #expect(sim.core(2)?.leaseHolder == sim.ids[1])
        sim.crash(1)
        sim.run(for: .seconds(1))
        #expect(sim.core(2)?.leaseHolder == nil)
        #expect(sim.logContains(2) { $0 == .leaseChanged(holder: nil, name: nil) })
        let d = try #require(sim.sendCommand(from: 0, .hover, toUAV: 3))
        sim.run(for: .seconds(1))
        #expect(sim.answers[d] == [.accepted, .completed])
        #expect(sim.violations.isEmpty)
    }

    @Test(
        "failsafe: hover after 5 s without a station (plus loss detection), return home 10 s later, report on reconnect"
    )
    func failsafe() throws {
        let sim = MeshSimulation(
            seed: 5, nodes: [.station("GS"), .drone("D", persisted: 2, flying: true)], links: [(0, 1)])
        sim.run(for: .seconds(2))
        sim.cut(0, 1)
        sim.run(for: .seconds(5))
        #expect(sim.vehicle(1).failsafeActions.isEmpty)
        sim.run(for: .seconds(1))
        #expect(sim.vehicle(1).failsafeActions == [.hover])
        sim.run(for: .milliseconds(9500))
        #expect(sim.vehicle(1).failsafeActions == [.hover])
        sim.run(for: .seconds(1))
        #expect(sim.vehicle(1).failsafeActions == [.hover, .returnHome])
        #expect(!sim.logContains(0) { if case .failsafeReported = $0 { true } else { false } })
        sim.restore(0, 1)
        sim.run(for: .seconds(1))
        let reports = sim.logged(0) { if case .failsafeReported = $0 { true } else { false } }
        guard case .failsafeReported(let r, let from)? = reports.first else {
            Issue.record("no report")
            return
        }
        #expect(reports.count == 1)
        #expect(from == sim.ids[1])
        #expect(r.uavNumber == 2)
        #expect(r.steps.map(\.action) == [.hover, .returnHome])
        #expect(r.silenceMilliseconds >= 15_000)
    }

    @Test(
        "30 % loss, duplication and flapping relays: every command answered, executed at most once, acknowledged ones exactly once"
    )
    func lossyExactlyOnce() throws {
        var profile = NetworkProfile(
            latency: .milliseconds(8), jitter: .milliseconds(10), unreliableLoss: 0.3, duplication: 0.1)
        profile.encodeOnWire = true
        // GS (0) reaches D (3) only through relays R1 (1) and R2 (2).
        let sim = MeshSimulation(
            seed: 6,
            nodes: [
                .station("GS"), .station("R1"), .station("R2"),
                .drone("D", persisted: 8, flying: true, telemetry: true),
            ],
            links: [(0, 1), (0, 2), (1, 3), (2, 3)], network: profile)
        sim.run(for: .seconds(2))
        var rng = SeededRandom(seed: 66)
        var ids: [CommandID] = []
        let relayLinks = [(0, 1), (0, 2), (1, 3), (2, 3)]
        for k in 0..<40 {
            if k % 2 == 0, let l = relayLinks.randomElement(using: &rng) {
                sim.cut(l.0, l.1)
                sim.run(for: .milliseconds(Int64(rng.int(in: 50...400))))
                sim.restore(l.0, l.1)
            }
            let command: Command =
                k % 2 == 0 ? .hover : .goto(GeoPoint(latitude: 47, longitude: 8, altitude: 20), speedCmS: 300)
            if let id = sim.sendCommand(from: 0, command, toUAV: 8) { ids.append(id) }
            for _ in 0..<25 {
                sim.sendManualControl(from: 0, ManualControl(x: 0, y: 0, z: 500, r: 0), toUAV: 8)
                sim.run(for: .milliseconds(10))
            }
        }
        sim.healAllLinks()
        sim.run(for: .seconds(20))
        #expect(ids.count == 40)
        var accepted = 0
        for id in ids {
            let a = sim.answers[id] ?? []
            #expect(a.last?.isFinal == true, "\(id) ended with \(a)")
            #expect(sim.executionCount(id) <= 1)
            if a.contains(.accepted) {
                accepted += 1
                #expect(sim.executionCount(id) == 1)
            }
        }
        #expect(accepted >= 30)
        #expect(sim.vehicle(3).manualControlsApplied > 0 && sim.vehicle(3).manualControlsApplied < 1000)
        #expect(sim.core(0)!.fleetPicture(now: sim.now).first?.isStale == false)
        #expect(sim.violations.isEmpty)
        #expect(sim.settledViolations().isEmpty)
    }

    @Test("a completion lost in a two-minute partition is replayed afterwards, never re-executed")
    func longPartitionReplay() throws {
        let sim = MeshSimulation(
            seed: 9, nodes: [.station("GS"), .drone("D", persisted: 5, flying: true)], links: [(0, 1)])
        sim.run(for: .seconds(2))
        let id = try #require(
            sim.sendCommand(from: 0, .goto(GeoPoint(latitude: 47, longitude: 8, altitude: 30), speedCmS: 500), toUAV: 5)
        )
        while sim.answers[id] != [.accepted] { sim.run(for: .milliseconds(5)) }
        sim.cut(0, 1)  // the completion (due 300 ms after acceptance) will be lost
        sim.run(for: .seconds(120))
        #expect(sim.answers[id] == [.accepted])
        sim.restore(0, 1)
        sim.run(for: .seconds(3))
        #expect(sim.answers[id] == [.accepted, .completed])
        #expect(sim.executionCount(id) == 1)
        #expect(sim.violations.isEmpty)
    }

    @Test("30 drones starting without numbers settle to distinct numbers within 3 s")
    func settlingBound() throws {
        var rng = SeededRandom(seed: 7)
        var links: [(Int, Int)] = []
        for i in 1..<32 { links.append((rng.int(in: 0...(i - 1)), i)) }
        for _ in 0..<10 { links.append((rng.int(in: 0...31), rng.int(in: 0...31))) }
        let sim = MeshSimulation(
            seed: 7, nodes: [.station("GS-1"), .station("GS-2")] + (0..<30).map { .drone("D\($0)") },
            links: links, network: NetworkProfile(encodeOnWire: false))
        let t = try #require(sim.runUntilNumbersSettle(step: .milliseconds(50), limit: .seconds(10)))
        #expect(t < .seconds(3))
        sim.run(for: .seconds(2))
        #expect(sim.settledViolations().isEmpty)
    }

    @Test("a crashed drone's telemetry goes stale; after restart it keeps its number and is fresh again")
    func crashRestart() throws {
        let sim = MeshSimulation(seed: 8, nodes: [.station("GS"), .drone("D", telemetry: true)], links: [(0, 1)])
        sim.run(for: .seconds(3))
        let n = try #require(sim.core(1)?.uavNumber)
        sim.crash(1)
        sim.run(for: .seconds(2))
        #expect(sim.core(0)!.fleetPicture(now: sim.now).first?.isStale == true)
        #expect(sim.core(0)!.resolve(uavNumber: n) == .unknown)
        sim.restart(1)
        sim.run(for: .seconds(2))
        #expect(sim.core(1)?.uavNumber == n)
        #expect(sim.core(0)!.fleetPicture(now: sim.now).first?.isStale == false)
        #expect(sim.settledViolations().isEmpty)
    }
}
