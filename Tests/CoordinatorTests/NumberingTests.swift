import MeshTypes
import Testing

@testable import Coordinator

@Suite("UAV numbering")
struct NumberingTests {
    @Test("a drone without a number claims one after listening, persists and announces it")
    func firstClaim() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "D", nil, nil)])
        p.link(0, 1)
        p.advance(.milliseconds(500))
        #expect(p.cores[1].uavNumber == nil)
        p.advance(.milliseconds(700))
        let n = try! #require(p.cores[1].uavNumber)
        #expect((1...250).contains(n))
        #expect(p.directives[1].contains(.persistUAVNumber(n)))
        #expect(p.directives[1].contains(.uavNumberChanged(from: nil, to: n, reason: .claimed)))
        #expect(p.directives[0].contains(.numberAnnounced(node: p.id(1), number: n, previous: nil)))
        #expect(p.cores[0].resolve(uavNumber: n) == .node(p.id(1)))
    }

    @Test("a persisted number is kept across restarts")
    func persisted() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "D", nil, 42)])
        p.link(0, 1)
        p.advance(.seconds(2))
        #expect(p.cores[1].uavNumber == 42)
        #expect(!p.directives[1].contains { if case .uavNumberChanged = $0 { true } else { false } })
    }

    @Test("clash: the lower NodeID keeps the number when neither flies")
    func clashTiebreak() {
        var p = Pump([(.drone, "A", nil, 7), (.drone, "B", nil, 7)])
        p.link(0, 1)
        p.advance(.milliseconds(500))
        #expect(p.cores[0].uavNumber == 7)
        #expect(p.cores[1].uavNumber != 7 && p.cores[1].uavNumber != nil)
        #expect(
            p.directives[1].contains {
                if case .uavNumberChanged(7, _, .lostClash(to: p.id(0))) = $0 { true } else { false }
            })
    }

    /// Drones A and B both on 7, the one at `flying` airborne, meet: B keeps 7 and A gives it up.
    func expectClashWonByB(
        _ specs: [(NodeRole, String, pinned: UInt8?, persisted: UInt8?)], flying: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var p = Pump(specs)
        _ = p.cores[flying].onFlyingChanged(true, now: p.now)
        p.link(0, 1)
        p.advance(.milliseconds(500))
        #expect(p.cores[1].uavNumber == 7, sourceLocation: sourceLocation)
        #expect(p.cores[0].uavNumber != 7, sourceLocation: sourceLocation)
    }

    @Test("clash: a flying drone keeps its number over one on the ground")
    func clashFlying() {
        expectClashWonByB([(.drone, "A", nil, 7), (.drone, "B", nil, 7)], flying: 1)
    }

    @Test("clash: a pinned number wins over an unpinned flying one")
    func clashPinned() {
        expectClashWonByB([(.drone, "A", nil, 7), (.drone, "B", 7, nil)], flying: 0)
    }

    @Test("two pinned drones on one number: reported loudly by everyone, nobody renumbered, commands refused")
    func pinnedClash() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "A", 5, nil), (.drone, "B", 5, nil)])
        p.link(0, 1)
        p.link(0, 2)
        p.advance(.seconds(2))
        #expect(p.cores[1].uavNumber == 5 && p.cores[2].uavNumber == 5)
        let conflict = Directive.numberConflict(.pinnedClash(number: 5, nodes: [p.id(1), p.id(2)]))
        for i in 0..<3 { #expect(p.directives[i].filter { $0 == conflict }.count == 1) }
        let id = p.command(0, .hover, to: 5)
        #expect(p.answers(0, id) == [.rejected(.contestedNumber(5))])
        #expect(p.cores[0].contestedNumbers == [5])
    }

    @Test("while two reachable drones claim one number, stations and the drones themselves refuse commands to it")
    func contestRefusal() {
        // Build the views by hand so the contest is caught before the loser's next tick resolves it.
        let gs = NodeID(high: 0, low: 1), d1 = NodeID(high: 0, low: 2), d2 = NodeID(high: 0, low: 3)
        let t0 = MeshInstant(nanoseconds: 0)
        func lsa(_ o: NodeID, _ role: NodeRole, _ n: UInt8?, flying: Bool, _ nbs: [NodeID]) -> CoordinatorMessage {
            .linkState(
                LinkStateAdvertisement(
                    origin: o, incarnation: 1, sequence: 1, role: role, name: "", uavNumber: n,
                    numberPinned: false, flying: flying, neighbours: nbs))
        }
        var station = CoordinatorCore(
            configuration: CoordinatorConfiguration(nodeID: gs, role: .station, name: "GS"),
            incarnation: 1, persistedUAVNumber: nil, now: t0)
        _ = station.onNeighbourUp(d1, now: t0)
        _ = station.onMessage(lsa(d1, .drone, 7, flying: false, [gs, d2]), from: d1, now: t0)
        _ = station.onMessage(lsa(d2, .drone, 7, flying: true, [d1]), from: d1, now: t0)
        let (id, ds) = station.sendCommand(.hover, toUAV: 7, now: t0)
        #expect(ds == [.commandAnswer(id, .rejected(.contestedNumber(7)))])
        #expect(ds.first.map { "\($0)" }?.contains("contested") == true)

        var drone = CoordinatorCore(
            configuration: CoordinatorConfiguration(nodeID: d1, role: .drone, name: "D1"),
            incarnation: 5, persistedUAVNumber: 7, now: t0)
        _ = drone.onNeighbourUp(gs, now: t0)
        _ = drone.onNeighbourUp(d2, now: t0)
        _ = drone.onMessage(lsa(d2, .drone, 7, flying: true, [d1]), from: d2, now: t0)
        let env = Envelope(origin: gs, originIncarnation: 1, sequence: 1, destination: .node(d1), ttl: 8)
        let out = drone.onMessage(
            .routed(
                env,
                .command(
                    CommandRequest(
                        counter: 1, uavNumber: 7, targetIncarnation: 5,
                        takeover: false, command: .hover))), from: gs, now: t0)
        #expect(
            out.contains {
                if case .send(.routed(_, .commandAnswer(1, 1, .rejected(.contestedNumber(7)))), gs, _) = $0 {
                    true
                } else {
                    false
                }
            })
        #expect(!out.contains { if case .executeCommand = $0 { true } else { false } })
        // Its next tick resolves the clash in favour of the flying drone.
        let tick = drone.onTick(now: t0 + .milliseconds(100))
        #expect(drone.uavNumber != 7)
        #expect(tick.contains { if case .uavNumberChanged(7, _, .lostClash(to: d2)) = $0 { true } else { false } })
    }

    @Test("many drones starting together end with distinct numbers")
    func manyDrones() {
        var p = Pump((0..<40).map { (.drone, "D\($0)", pinned: nil, persisted: $0 % 3 == 0 ? 1 : nil) })
        for i in 1..<40 {
            p.link(i - 1, i)
            if i >= 5 { p.link(i - 5, i) }
        }
        p.advance(.seconds(3))
        let numbers = p.cores.compactMap(\.uavNumber)
        #expect(numbers.count == 40)
        #expect(Set(numbers).count == 40)
    }

    @Test("the 251st drone reports exhaustion instead of clashing")
    func exhaustion() {
        // One core behind a hub that advertises 250 numbered drones around it.
        let me = NodeID(high: 0, low: 1), hub = NodeID(high: 0, low: 2)
        let t0 = MeshInstant(nanoseconds: 0)
        var core = CoordinatorCore(
            configuration: CoordinatorConfiguration(nodeID: me, role: .drone, name: "new"),
            incarnation: 1, persistedUAVNumber: nil, now: t0)
        var out = core.onNeighbourUp(hub, now: t0)
        let drones = (1...250).map { NodeID(high: 1, low: UInt64($0)) }
        out += core.onMessage(
            .linkState(
                LinkStateAdvertisement(
                    origin: hub, incarnation: 1, sequence: 1, role: .station, name: "hub",
                    uavNumber: nil, numberPinned: false, flying: false,
                    neighbours: [me] + drones)), from: hub, now: t0)
        for (k, d) in drones.enumerated() {
            out += core.onMessage(
                .linkState(
                    LinkStateAdvertisement(
                        origin: d, incarnation: 1, sequence: 1, role: .drone, name: "",
                        uavNumber: UInt8(k + 1), numberPinned: false, flying: false,
                        neighbours: [hub])), from: hub, now: t0)
        }
        out += core.onTick(now: t0 + .seconds(2))
        #expect(core.uavNumber == nil)
        #expect(out.contains(.numberConflict(.exhausted)))
        #expect(core.contestedNumbers.isEmpty)
    }
}
