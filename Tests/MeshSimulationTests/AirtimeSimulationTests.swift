import Coordinator
import MeshSimulation
import MeshTypes
import Testing

@testable import NodeCore

/// Bytes on the air of whole nodes on one shared link (`AirtimeSimulation`: the lab's accounting on a virtual clock).
@Suite struct AirtimeSimulationTests {
    @Test("with the group channel, each node's bytes on the air stay flat from 10 to 30 drones; per-peer unicast grows")
    func bytesGrowLinearlyWithTheGroupAndQuadraticallyWithout() {
        let small = AirtimeSimulation.run(drones: 10, group: true)
        let large = AirtimeSimulation.run(drones: 30, group: true)
        for r in [small, large] {
            #expect(r.whole && r.flaps == 0, "\(r.nodes) nodes: whole \(r.whole), \(r.flaps) flaps")
            #expect(r.unicastFrames == 0, "\(r.nodes) nodes: \(r.unicastFrames) unicast frames")
        }
        // Linear: the per-node share hardly moves (it grows only with the link-state advertisements' size).
        #expect(
            large.bitsPerSecondPerNode <= 1.25 * small.bitsPerSecondPerNode,
            "per node: \(Int(small.bitsPerSecondPerNode)) bit/s at 12 nodes, \(Int(large.bitsPerSecondPerNode)) at 32")
        // Flying, 2 stations, counted over one link-state refresh period (10 s): issue #16's budget is 20 kbit/s per
        // node; predictions coded in runs within a few centimetres (PROTOCOL.md §7.3) keep it under 17 (15.7
        // measured; deterministic). The lossless coding of version 2 needed about 20.
        #expect(large.bitsPerSecondPerNode <= 17_000, "\(Int(large.bitsPerSecondPerNode)) bit/s per node at 32 nodes")
        // The same accounting tells per-peer unicast apart: its per-node share grows with the fleet.
        let unicastSmall = AirtimeSimulation.run(drones: 4, group: false)
        let unicastLarge = AirtimeSimulation.run(drones: 10, group: false)
        #expect(
            unicastLarge.bitsPerSecondPerNode >= 1.7 * unicastSmall.bitsPerSecondPerNode,
            "unicast per node: \(Int(unicastSmall.bitsPerSecondPerNode)) at 6 nodes, \(Int(unicastLarge.bitsPerSecondPerNode)) at 12"
        )
    }

    @Test("in a field each node is in session only with the nodes in its radio range, and routes reach across hops")
    func aFieldFormsAcrossSeveralHops() throws {
        // 12 nodes on a 4 × 3 grid 20 m apart, radio range 25 m: each hears the nodes beside it, not diagonally.
        var field = AirtimeSimulation(
            stations: 1, drones: 11, group: true, layout: .field(columns: 4, spacing: 20, range: 25))
        #expect(field.neighbourCounts == [2, 3, 3, 2, 3, 4, 4, 3, 2, 3, 3, 2])
        field.advance(.seconds(5))
        #expect(field.whole)
        #expect(field.converged, "every node holds every advertisement, each listing the nodes its origin hears")
        let station = field.nodes[0]
        let far = field.nodes[11].mesh.localID
        // Out of range: no session, though the far corner's advertisement arrived over four other nodes.
        #expect(station.mesh.membership.peers[far] == nil)
        #expect(station.coordinator.advertisement(of: far) != nil)
        // The station reaches it over 5 hops (3 east, 2 north), and every drone is numbered, once.
        let route = try #require(station.coordinator.route(to: far))
        #expect(route.hops == 5)
        let numbers = field.nodes.dropFirst().compactMap(\.coordinator.uavNumber)
        #expect(numbers.count == 11 && Set(numbers).count == 11, "numbers: \(numbers)")
    }

    @Test(
        "in a field predictions and refreshes go on from the flood relays only: every node keeps every prediction and advertisement past the age limit, with under half the group datagrams"
    )
    func floodsGoOnFromTheRelaysOnly() {
        // 2 stations and 16 drones 6 wide, 20 m apart, radio range 50 m: 3 rows, 3 hops across. Advertisements refresh
        // every 2 s and age out after 7 s (10 s and 35 s in the field; the same ratio), so 8 s of counting outlive
        // every advertisement that was not refreshed.
        let layout = AirtimeSimulation.Layout.field(columns: 6, spacing: 20, range: 50)
        func quick(_ c: inout CoordinatorConfiguration) {
            c.linkStateRefreshInterval = .seconds(2)
            c.linkStateMaxAge = .seconds(7)
        }
        // Forwards leave at once, each in a datagram of its own: the relays alone are counted here (the hold is
        // `forwardsLeavePacked`).
        var relayed = AirtimeSimulation(
            drones: 16, group: true, layout: layout, forwardHold: .zero, configure: quick)
        var everyone = AirtimeSimulation(
            drones: 16, group: true, layout: layout, forwardHold: .zero,
            configure: {
                quick(&$0)
                $0.selectsFloodRelays = false
            })
        relayed.advance(.seconds(3))
        everyone.advance(.seconds(3))
        #expect(relayed.whole && relayed.converged && everyone.whole && everyone.converged)
        relayed.resetCounts()
        everyone.resetCounts()
        relayed.advance(.seconds(8))
        everyone.advance(.seconds(8))
        #expect(relayed.whole)
        #expect(relayed.converged, "an advertisement aged out with refreshes forwarded by the relays only")
        #expect(relayed.predictionsMissing == 0, "predictions missing: \(relayed.predictionsMissing)")
        #expect(everyone.predictionsMissing == 0)
        let group = relayed.groupSent.reduce(0, +)
        let groupBefore = everyone.groupSent.reduce(0, +)
        #expect(group * 2 < groupBefore, "group datagrams in 8 s: \(group) from the relays, \(groupBefore) from all")
        // Refreshes no longer go on reliably to each neighbour, one datagram each, with their acknowledgements.
        let unicast = relayed.unicastSent.reduce(0, +)
        let unicastBefore = everyone.unicastSent.reduce(0, +)
        #expect(unicast < unicastBefore, "unicast datagrams in 8 s: \(unicast), \(unicastBefore) before")
    }

    @Test(
        "in a strip longer than a prediction's reach, every drone holds the predictions of those near it, none of the far ones, for fewer datagrams"
    )
    func predictionsStopBeyondTheirReach() {
        // 2 stations and 30 drones 2 wide, 20 m apart, radio range 50 m: a strip 300 m long. Predictions go on only
        // within 100 m of their paths (8 s of flight east at 5 m/s: 40 m long).
        let layout = AirtimeSimulation.Layout.field(columns: 2, spacing: 20, range: 50)
        var bounded = AirtimeSimulation(
            drones: 30, group: true, layout: layout, forwardHold: .zero, configure: { $0.predictionReach = 100 })
        var unbounded = AirtimeSimulation(
            drones: 30, group: true, layout: layout, forwardHold: .zero, configure: { $0.predictionReach = 0 })
        bounded.advance(.seconds(4))
        unbounded.advance(.seconds(4))
        #expect(bounded.whole && unbounded.whole)
        #expect(unbounded.predictionsMissing == 0)
        var near = 0
        var far = 0
        for i in 2..<32 {
            for j in 2..<32 where j != i {
                let d = abs(bounded.offset(from: i, to: j).north)
                if d <= 70 {
                    // At most 73 m from the path: within reach.
                    near += 1
                    #expect(
                        bounded.holdsPrediction(at: i, of: j), "drone \(i) lacks drone \(j)'s prediction, \(d) m away")
                } else if d > 170 {
                    // Beyond the reach and one radio hop from its edge.
                    far += 1
                    #expect(!bounded.holdsPrediction(at: i, of: j), "drone \(i) holds drone \(j)'s, \(d) m away")
                }
            }
        }
        #expect(near > 100 && far > 100, "pairs near \(near), far \(far)")
        bounded.resetCounts()
        unbounded.resetCounts()
        bounded.advance(.seconds(2))
        unbounded.advance(.seconds(2))
        let group = bounded.groupSent.reduce(0, +)
        let groupUnbounded = unbounded.groupSent.reduce(0, +)
        #expect(group * 4 < groupUnbounded * 3, "group datagrams in 2 s: \(group) bounded, \(groupUnbounded) not")
    }

    @Test(
        "predictions thin out with distance: every one near the path, every second or fourth further out, each drone's held throughout, for fewer bytes"
    )
    func predictionRatesFallWithDistance() {
        // The strip of `predictionsStopBeyondTheirReach` (2 stations and 30 drones, 300 m long, radio range 50 m),
        // every prediction as far as 300 m; relays forward every one within 40 m of a path, every second up to 80 m,
        // every fourth beyond. Against the same strip forwarding every one as far as 300 m.
        let layout = AirtimeSimulation.Layout.field(columns: 2, spacing: 20, range: 50)
        var thinned = AirtimeSimulation(
            drones: 30, group: true, layout: layout, configure: { $0.predictionFullRateReach = 40 })
        var full = AirtimeSimulation(
            drones: 30, group: true, layout: layout, configure: { $0.predictionFullRateReach = 0 })
        thinned.advance(.seconds(3))
        full.advance(.seconds(3))
        #expect(thinned.whole && full.whole)
        thinned.resetCounts()
        full.resetCounts()
        // For 4 s, every 50 ms: each pair's prediction held (its age) and each new one received (its age fell).
        let drones = 2..<32
        var updates: [[Int]] = Array(repeating: Array(repeating: 0, count: 32), count: 32)
        var oldest: [[Duration]] = Array(repeating: Array(repeating: .zero, count: 32), count: 32)
        var last: [[Duration?]] = Array(repeating: Array(repeating: nil, count: 32), count: 32)
        for _ in 0..<80 {
            thinned.advance(.milliseconds(50))
            full.advance(.milliseconds(50))
            for i in drones {
                var held: [NodeID: Duration] = [:]
                for e in thinned.nodes[i].coordinator.airspace(now: thinned.now) { held[e.node] = e.age }
                for j in drones where j != i {
                    let age = held[thinned.nodes[j].mesh.localID] ?? .seconds(99)
                    oldest[i][j] = max(oldest[i][j], age)
                    if let before = last[i][j], age < before { updates[i][j] += 1 }
                    last[i][j] = age
                }
            }
        }
        var near: [Int] = []
        var far: [Int] = []
        for i in drones {
            for j in drones where j != i {
                let d = abs(thinned.offset(from: i, to: j).north)
                if d <= 20 { near.append(updates[i][j]) }
                if d >= 160 { far.append(updates[i][j]) }
                // Every drone's prediction held all along, however far (one at least every second: the age limit).
                #expect(oldest[i][j] <= .seconds(1), "drone \(i) held drone \(j)'s \(oldest[i][j]) old, \(d) m away")
            }
        }
        let nearMean = Double(near.reduce(0, +)) / Double(near.count)
        let farMean = Double(far.reduce(0, +)) / Double(far.count)
        // Near: every one (5 Hz: 19 new ones seen in 4 s); beyond 160 m every fourth (5; measured: 19 and 5 exactly,
        // 0.84 x the bytes).
        #expect(near.min()! >= 18 && nearMean >= 19, "near: \(near)")
        #expect(farMean <= 0.3 * nearMean && far.max()! <= 6, "far: \(far)")
        #expect(
            thinned.bytesSent * 10 < full.bytesSent * 9, "bytes: \(thinned.bytesSent) thinned, \(full.bytesSent) not")
    }

    @Test(
        "over a field a relay drops a flood it holds once the relays around it have sent it to every neighbour it was for: every prediction still held, fewer bytes"
    )
    func repeatedFloodsArePruned() {
        // 2 stations and 30 drones on a grid 10 wide, 20 m apart, radio range 50 m (the bench's field, 180 × 60 m):
        // every drone within every prediction's reach, the relays of several hops each holding what they forward.
        var (pruned, every) = Self.formedPair(
            layout: .field(columns: 10, spacing: 20, range: 50), baseline: { $0.prunesRepeatedFloods = false })
        let prunedBefore = pruned.nodes.map(\.floodsPruned).reduce(0, +)
        // For 3 s, every 100 ms: each drone holds every other's prediction, never older than the age limit.
        var oldest: Duration = .zero
        for _ in 0..<30 {
            pruned.advance(.milliseconds(100))
            every.advance(.milliseconds(100))
            for i in 2..<32 {
                var held: [NodeID: Duration] = [:]
                for e in pruned.nodes[i].coordinator.airspace(now: pruned.now) { held[e.node] = e.age }
                for j in 2..<32 where j != i {
                    oldest = max(oldest, held[pruned.nodes[j].mesh.localID] ?? .seconds(99))
                }
            }
        }
        #expect(oldest <= .seconds(1), "a drone held another's prediction \(oldest) old")
        #expect(pruned.predictionsMissing == 0 && pruned.whole)
        let dropped = pruned.nodes.map(\.floodsPruned).reduce(0, +) - prunedBefore
        #expect(every.nodes.allSatisfy { $0.floodsPruned == 0 })
        #expect(dropped > 100, "floods pruned in 3 s: \(dropped)")
        #expect(pruned.bytesSent < every.bytesSent, "bytes: \(pruned.bytesSent) pruned, \(every.bytesSent) not")
        print(
            "field of 30 drones, 3 s: \(dropped) held floods dropped; \(pruned.bytesSent) bytes against \(every.bytesSent) (\(String(format: "%.3f", Double(pruned.bytesSent) / Double(every.bytesSent))) x); oldest prediction \(oldest)"
        )
    }

    @Test(
        "a relay's forwards wait one mesh tick and leave packed: every prediction and station picture still whole, under half the datagrams, fewer bytes"
    )
    func forwardsLeavePacked() {
        // The strip of `predictionsStopBeyondTheirReach` (2 stations and 30 drones, 300 m long, up to 6 hops to the
        // stations at one end), forwards held 10 ms against forwards leaving at once.
        var (held, atOnce) = Self.formedPair(layout: .field(columns: 2, spacing: 20, range: 50), baselineHold: .zero)
        held.advance(.seconds(2))
        atOnce.advance(.seconds(2))
        #expect(held.whole && held.predictionsMissing == 0, "predictions missing: \(held.predictionsMissing)")
        #expect(atOnce.predictionsMissing == 0)
        // Both stations see every drone's telemetry fresh (forwarded telemetry waits too, by next hop).
        for station in 0..<2 {
            let fresh = held.nodes[station].coordinator.fleetPicture(now: held.now).filter {
                $0.age < .milliseconds(300)
            }
            #expect(fresh.count == 30, "station \(station) has \(fresh.count) drones fresh")
        }
        let group = held.groupSent.reduce(0, +)
        let groupAtOnce = atOnce.groupSent.reduce(0, +)
        let unicast = held.unicastSent.reduce(0, +)
        let unicastAtOnce = atOnce.unicastSent.reduce(0, +)
        #expect(group * 2 < groupAtOnce, "group datagrams in 2 s: \(group) held, \(groupAtOnce) at once")
        #expect(unicast * 3 < unicastAtOnce * 2, "unicast datagrams in 2 s: \(unicast) held, \(unicastAtOnce) at once")
        #expect(
            held.bytesSent * 4 < atOnce.bytesSent * 3,
            "bytes in 2 s: \(held.bytesSent) held, \(atOnce.bytesSent) at once")
        // The hold's deadline: a relay holding forwards must be ticked by their time (the node's shell sleeps until
        // `nextMeshDeadline`, woken sooner by `takeMeshWakeHint`).
        var checked = 0
        for _ in 0..<20 {
            held.advance(.milliseconds(10))
            for i in held.nodes.indices {
                var node = held.nodes[i]
                guard let since = node.heldSince else { continue }
                checked += 1
                let due = since + node.heldFor
                #expect(node.nextMeshDeadline(now: held.now).map { $0 <= due } ?? false)
                #expect(node.takeMeshWakeHint().map { $0 <= due } ?? false)
            }
        }
        #expect(checked > 0)
    }

    @Test(
        "a drone's telemetry for the two stations side by side goes as one message along the shared route: both pictures whole, far fewer unicast bytes"
    )
    func telemetryForBothStationsTravelsOnce() {
        // The strip of `forwardsLeavePacked` (2 stations at one end, 30 drones, up to 6 hops): one message for both
        // stations against one per station.
        var (shared, each) = Self.formedPair(
            layout: .field(columns: 2, spacing: 20, range: 50), baseline: { $0.sharesTelemetryCopies = false })
        shared.advance(.seconds(2))
        each.advance(.seconds(2))
        for station in 0..<2 {
            let fresh = shared.nodes[station].coordinator.fleetPicture(now: shared.now).filter {
                $0.age < .milliseconds(300)
            }
            #expect(fresh.count == 30, "station \(station) has \(fresh.count) drones fresh")
        }
        #expect(shared.predictionsMissing == 0)
        let unicast = shared.unicastBytesSent
        let unicastEach = each.unicastBytesSent
        #expect(unicast * 4 < unicastEach * 3, "unicast bytes in 2 s: \(unicast) shared, \(unicastEach) per station")
        #expect(
            shared.bytesSent < each.bytesSent, "bytes in 2 s: \(shared.bytesSent) shared, \(each.bytesSent) per station"
        )
    }

    /// 2 stations and 30 drones in `layout`, and the same fleet with `baseline`'s changes to every node's configuration
    /// (or forwards held `baselineHold`): both formed for 3 s (and whole), their counts started over.
    static func formedPair(
        layout: AirtimeSimulation.Layout, baselineHold: Duration = .milliseconds(10),
        baseline: (inout CoordinatorConfiguration) -> Void = { _ in }
    ) -> (AirtimeSimulation, AirtimeSimulation) {
        var fleet = AirtimeSimulation(drones: 30, group: true, layout: layout)
        var other = AirtimeSimulation(
            drones: 30, group: true, layout: layout, forwardHold: baselineHold, configure: baseline)
        fleet.advance(.seconds(3))
        other.advance(.seconds(3))
        #expect(fleet.whole && other.whole)
        fleet.resetCounts()
        other.resetCounts()
        return (fleet, other)
    }
}
