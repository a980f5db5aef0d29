import MeshTypes
import Testing

@testable import Coordinator

@Suite("Routing")
struct RoutingTests {
    static func line(_ n: Int, hopLimit: UInt8 = 8) -> Pump {
        var p = Pump((0..<n).map { (.station, "N\($0)", pinned: nil, persisted: nil) }) { $0.hopLimit = hopLimit }
        for i in 1..<n { p.link(i - 1, i) }
        // A node's second neighbour goes out with its advertisement after `linkStateMinInterval` (200 ms), and the
        // first hop repeats it after `linkStateFloodDelay` (150 ms): the price of a formation in O(N²) messages.
        p.advance(.milliseconds(600))
        return p
    }

    /// `n` stations linked in a ring, not yet advanced.
    static func ring(_ n: Int) -> Pump {
        var p = Pump((0..<n).map { (.station, "N\($0)", pinned: nil, persisted: nil) })
        for i in 0..<n { p.link(i, (i + 1) % n) }
        return p
    }

    @Test("a line learns next hops and hop counts to every node")
    func lineRoutes() {
        let p = Self.line(4)
        #expect(p.cores[0].route(to: p.id(3)) == Route(nextHop: p.id(1), hops: 3))
        #expect(p.cores[3].route(to: p.id(0)) == Route(nextHop: p.id(2), hops: 3))
        #expect(p.cores[1].route(to: p.id(2)) == Route(nextHop: p.id(2), hops: 1))
    }

    @Test("nodes beyond the hop limit are unreachable")
    func hopLimit() {
        let p = Self.line(6, hopLimit: 3)
        #expect(p.cores[0].route(to: p.id(3))?.hops == 3)
        #expect(p.cores[0].route(to: p.id(4)) == nil)
    }

    @Test("a lost link reroutes around a ring, and a cut-off node becomes unreachable")
    func reroute() {
        var p = Self.ring(4)
        p.advance(.milliseconds(300))
        #expect(p.cores[0].route(to: p.id(2))?.hops == 2)
        #expect(p.cores[0].route(to: p.id(2))?.nextHop == p.id(1))  // lowest NodeID first hop wins the tie
        p.unlink(0, 1)
        p.advance(.milliseconds(300))
        #expect(p.cores[0].route(to: p.id(1)) == Route(nextHop: p.id(3), hops: 3))
        p.unlink(2, 3)
        p.advance(.milliseconds(300))
        #expect(p.cores[0].route(to: p.id(2)) == nil)
        #expect(p.cores[0].route(to: p.id(3))?.hops == 1)
    }

    @Test("a one-sided advertisement does not make an edge")
    func bidirectionalOnly() {
        var db: [NodeID: LinkStateAdvertisement] = [:]
        let me = NodeID(high: 0, low: 1), b = NodeID(high: 0, low: 2), c = NodeID(high: 0, low: 3)
        db[b] = LinkStateAdvertisement(
            origin: b, incarnation: 1, sequence: 1, role: .station, name: "", uavNumber: nil,
            numberPinned: false, flying: false, neighbours: [me, c])
        db[c] = LinkStateAdvertisement(
            origin: c, incarnation: 1, sequence: 1, role: .station, name: "", uavNumber: nil,
            numberPinned: false, flying: false, neighbours: [])
        #expect(ShortestPaths.compute(from: me, neighbours: [b], database: db, hopLimit: 8)[c] == nil)
        db[c]!.neighbours = [b]
        #expect(ShortestPaths.compute(from: me, neighbours: [b], database: db, hopLimit: 8)[c]?.hops == 2)
    }

    /// A station and two drones, all linked and settled past `oneWayGrace`.
    static func triangle() -> Pump {
        var p = Pump([(.station, "S", nil, nil), (.drone, "A", nil, nil), (.drone, "B", nil, nil)])
        p.link(0, 1)
        p.link(0, 2)
        p.link(1, 2)
        p.advance(.seconds(3))
        return p
    }

    @Test(
        "a neighbour that stops hearing this node is routed around through one that hears both, its commands included, and directly again once it hears this node"
    )
    func aOneWayLinkIsRoutedAround() throws {
        var p = Self.triangle()
        #expect(p.cores[0].route(to: p.id(1)) == Route(nextHop: p.id(1), hops: 1))
        let number = try #require(p.cores[1].uavNumber)
        // Drone A stops hearing the station; the station still hears A, so it keeps its session with it.
        p.deafen(1, to: 0)
        p.advance(.milliseconds(500))
        #expect(p.cores[0].neighbours.contains(p.id(1)))
        #expect(p.cores[0].unheardBy == [p.id(1)])
        #expect(p.cores[0].route(to: p.id(1)) == Route(nextHop: p.id(2), hops: 2))
        // A command goes through B and is executed; before, it went out on the link A no longer hears.
        let command = p.command(0, .hover, to: number)
        p.advance(.milliseconds(500))
        #expect(p.executions(1) == [command])
        // A hears the station again: its advertisement lists the station, the route is direct again.
        p.undeafen(1, to: 0)
        p.advance(.milliseconds(500))
        #expect(p.cores[0].unheardBy.isEmpty)
        #expect(p.cores[0].route(to: p.id(1)) == Route(nextHop: p.id(1), hops: 1))
    }

    @Test(
        "an advertisement without this node that arrives within oneWayGrace of the session opening marks the link one-way only if nothing newer replaced it by the grace's end"
    )
    func anEarlyAdvertisementDoesNotMarkTheLink() {
        var p = Pump([(.station, "S", nil, nil), (.drone, "A", nil, nil), (.drone, "B", nil, nil)])
        p.link(0, 1)
        p.link(0, 2)
        p.link(1, 2)
        p.advance(.milliseconds(500))
        p.deafen(1, to: 0)
        p.advance(.milliseconds(500))
        // Made 1 s after the session opened: it may have been made before, and be on its way late.
        #expect(p.cores[0].unheardBy.isEmpty)
        #expect(p.cores[0].route(to: p.id(1))?.nextHop == p.id(1))
        // At the grace's end the advertisement held, still without the station, counts.
        p.advance(.seconds(1))
        #expect(p.cores[0].unheardBy == [p.id(1)])
        #expect(p.cores[0].route(to: p.id(1))?.nextHop == p.id(2))
    }

    @Test("a restarted node's advertisements overtake those of its earlier life")
    func restartSequenceJump() {
        var p = Self.line(3)
        let before = p.cores[1].advertisement(of: p.id(0))!.sequence
        // Node 0 restarts: new incarnation, sequence from zero.
        var c = p.cores[0].configuration
        c.name = "N0-again"
        p.cores[0] = CoordinatorCore(configuration: c, incarnation: 999, persistedUAVNumber: nil, now: p.now)
        p.unlink(0, 1)
        p.link(0, 1)
        p.advance(.milliseconds(300))
        let lsa = p.cores[2].advertisement(of: p.id(0))!
        #expect(lsa.incarnation == 999)
        #expect(lsa.name == "N0-again")
        #expect(lsa.sequence > before)
    }

    @Test("an earlier life's advertisement that reaches a neighbour through a third node is passed to its origin")
    func earlierLifeReachesItsOrigin() {
        var p = Self.line(3)
        let origin = p.id(0), relay = p.id(2)
        let current = p.cores[1].advertisement(of: origin)!
        // Node 2 still holds node 0's advertisement from an earlier life that outnumbers the current one.
        var earlier = current
        earlier.incarnation = 5
        earlier.sequence = current.sequence + 10
        var sent: [Directive] = []
        p.call(1) { core, now in
            sent = core.onMessage(.linkState(earlier), from: relay, now: now)
            return sent
        }
        // Node 1 takes it (it is newer by the rule) and sends it to node 0 too, which floods past it at once: within
        // a tick, not at its next 10 s refresh.
        #expect(sent.contains(.send(.linkState(earlier), to: origin, reliability: .reliable)))
        p.advance(.milliseconds(300))
        let now = p.cores[1].advertisement(of: origin)!
        #expect(now.incarnation == current.incarnation && now.sequence > earlier.sequence)
    }

    @Test("unicast is forwarded hop by hop with a decreasing TTL and never back where it came from")
    func forwarding() {
        var p = Self.line(3)
        let env = Envelope(origin: p.id(0), originIncarnation: 100, sequence: 9, destination: .node(p.id(2)), ttl: 8)
        let out = p.cores[1].onMessage(
            .routed(env, .leaseRevoked(uavNumber: 1, newHolder: "x")), from: p.id(0), now: p.now)
        guard case .send(.routed(let fwd, _), let to, .reliable) = out.first else {
            Issue.record("not forwarded")
            return
        }
        #expect(to == p.id(2))
        #expect(fwd.ttl == 7)
        // Arriving from the next hop itself: dropped (split horizon). TTL 1: dropped.
        #expect(
            p.cores[1].onMessage(.routed(env, .leaseRevoked(uavNumber: 1, newHolder: "x")), from: p.id(2), now: p.now)
                .isEmpty)
        var last = env
        last.ttl = 1
        #expect(
            p.cores[1].onMessage(.routed(last, .leaseRevoked(uavNumber: 1, newHolder: "x")), from: p.id(0), now: p.now)
                .isEmpty)
    }

    @Test("broadcasts are flooded once per node despite cycles and duplicates")
    func floodDuplicateSuppression() {
        var p = Self.ring(4)
        p.link(0, 2)
        p.advance(.milliseconds(300))
        let env = Envelope(origin: p.id(0), originIncarnation: 100, sequence: 77, destination: .broadcast, ttl: 8)
        let m = CoordinatorMessage.routed(
            env, .failsafeReport(FailsafeReport(uavNumber: 1, steps: [], silenceMilliseconds: 1)))
        let first = p.cores[1].onMessage(m, from: p.id(0), now: p.now)
        #expect(first.filter { if case .send = $0 { true } else { false } }.count == 1)  // to node 2 only
        #expect(first.contains { if case .failsafeReported = $0 { true } else { false } })
        #expect(p.cores[1].onMessage(m, from: p.id(2), now: p.now).isEmpty)
    }
}

@Suite("Duplicate window")
struct DuplicateWindowTests {
    @Test("accepts each sequence once, in any order within 64, refuses older ones, restarts with a new incarnation")
    func window() {
        var w = DuplicateWindow(incarnation: 1, first: 10)
        let offered: [(UInt64, Incarnation)] = [
            (10, 1), (12, 1), (11, 1), (11, 1), (100, 1), (40, 1), (36, 1), (1, 2), (1, 2),
        ]
        let fresh = offered.map { w.accept($0.0, incarnation: $0.1) }
        // 36 is 64 behind the highest (100): treated as seen.
        #expect(fresh == [false, true, true, false, true, true, false, true, false])
    }
}

@Suite("MeshInstant")
struct MeshInstantTests {
    @Test("adds durations and subtracts instants, clamping at the ends")
    func arithmetic() {
        let t = MeshInstant(nanoseconds: 5_000_000_000)
        #expect((t + .milliseconds(1500)).nanoseconds == 6_500_000_000)
        #expect((t + .seconds(-2)).nanoseconds == 3_000_000_000)
        #expect((t + .seconds(-10)).nanoseconds == 0)
        #expect(MeshInstant(nanoseconds: 7) - MeshInstant(nanoseconds: 2) == .nanoseconds(5))
        #expect(MeshInstant(nanoseconds: 2) - MeshInstant(nanoseconds: 7) == .nanoseconds(-5))
        #expect((MeshInstant(nanoseconds: .max - 1) + .seconds(1)).nanoseconds == .max)
    }
}
