import Determinism
import MeshCore
import MeshSimulation
import MeshTypes
import NodeCore
import SecureTransport
import Testing

@testable import Coordinator

/// Whole nodes (`NodeCore`) with the segment's group channel, on one virtual link where a group datagram reaches every
/// other node: presence and floods go once by group; unicast heartbeats come back only where the group fails.
@Suite struct GroupChannelNodeTests {
    @Test("with the group, nodes hear each other's presence, predictions and telemetry without unicast datagrams")
    func presenceAndFloodsGoByGroup() {
        var segment = AirtimeSimulation(stations: 1, drones: 4, group: true)
        segment.advance(.seconds(3))
        #expect(segment.whole)
        segment.resetCounts()
        segment.advance(.seconds(11))
        #expect(segment.whole)
        // Over 11 s every node refreshed its link-state advertisement (every 10 s): by group, like the presence, the
        // predictions and the telemetry for the station. Nothing at all went unicast.
        #expect(segment.unicastSent == [0, 0, 0, 0, 0], "unicast datagrams in 11 s: \(segment.unicastSent)")
        #expect(segment.nodes.allSatisfy { $0.coordinator.database.count == 4 })
        for i in segment.nodes.indices.dropFirst() {
            let drone = segment.nodes[i].mesh.localID
            #expect(segment.nodes[0].coordinator.fleetVehicle(drone, now: segment.now)?.isStale == false)
            // Telemetry for the station is heard by every drone on the segment, and dropped: not on its route.
            for j in segment.nodes.indices.dropFirst() where j != i {
                #expect(segment.nodes[j].coordinator.fleetVehicle(drone, now: segment.now) == nil)
            }
        }
        // 10 group datagrams per second per node: a drone's presence rides with its predictions (5 per second).
        for i in segment.nodes.indices {
            #expect((95...118).contains(segment.groupSent[i]), "node \(i): \(segment.groupSent[i])")
        }
        for i in segment.nodes.indices.dropFirst() { #expect(segment.predictionsHeld(at: i) == 3) }
        #expect(segment.predictionsHeld(at: 0) == 4)
        // Echoes give every node a round trip and a clock offset for every peer.
        for i in segment.nodes.indices {
            for j in segment.nodes.indices where j != i {
                let peer = segment.nodes[j].mesh.localID
                #expect(segment.nodes[i].mesh.membership.peers[peer]?.rtt != nil, "rtt \(i)→\(j)")
                #expect(segment.nodes[i].mesh.clockOffset(of: peer, now: segment.now) != nil, "clock \(i)→\(j)")
            }
        }
    }

    @Test("a node heard by group is dialled without its DNS-SD record: one pair found by records, a fleet of six forms")
    func groupDatagramsDiscover() {
        // Only the station and the first drone find each other's records; nobody else finds any.
        var segment = AirtimeSimulation(stations: 1, drones: 5, group: true) { i, j in i + j == 1 }
        segment.advance(.seconds(2))
        #expect(segment.whole)
        // Without group datagrams, nothing but records could introduce the others: they stay alone.
        var silent = AirtimeSimulation(stations: 1, drones: 5, group: true) { i, j in i + j == 1 }
        silent.groupPasses = false
        silent.advance(.seconds(2))
        #expect(silent.nodes[2].mesh.membership.peers.isEmpty)
        #expect(silent.nodes[0].mesh.membership.peers.count == 1)
    }

    @Test("nodes alone announce themselves on the group: a fleet of six whose records nobody resolves forms by group")
    func loneNodesAnnounceThemselves() {
        var segment = AirtimeSimulation(stations: 1, drones: 5, group: true) { _, _ in false }
        segment.advance(.seconds(2))
        #expect(segment.whole)
        // Silent alone (the behaviour before lone presence): nobody ever speaks first.
        var silent = AirtimeSimulation(
            stations: 1, drones: 5, group: true, seesRecord: { _, _ in false },
            groupSettings: GroupSettings(lonePresenceInterval: nil))
        silent.advance(.seconds(2))
        #expect(silent.nodes.allSatisfy { $0.mesh.membership.peers.isEmpty })
        #expect(silent.groupSent == [0, 0, 0, 0, 0, 0])
    }

    @Test("a node that hears nobody announces itself alone, and the nodes that still hear it lose it all the same")
    func aDeafNodeIsLostThoughItsLonePresenceIsHeard() {
        var segment = AirtimeSimulation(stations: 1, drones: 1, group: true)
        segment.advance(.seconds(2))
        #expect(segment.whole)
        let drone = segment.nodes[1].mesh.localID
        segment.deaf = [1]  // the drone's firewall drops what comes in; what it sends still arrives
        segment.resetCounts()
        segment.advance(.seconds(5))
        // The drone lost the station and speaks alone on the group (empty datagrams, about 2 a second) ...
        #expect(segment.nodes[1].mesh.membership.peers.values.allSatisfy { $0.state == .lost })
        #expect(segment.groupSent[1] > 0)
        // ... which the station hears but does not count: it loses the drone as it would a silent one.
        #expect(segment.nodes[0].mesh.membership.peers[drone]?.state == .lost)
    }

    @Test("when group datagrams stop passing, unicast heartbeats and floods take over before anyone is suspected")
    func unicastTakesOverWhenTheGroupFails() {
        var segment = AirtimeSimulation(stations: 1, drones: 3, group: true)
        segment.advance(.seconds(3))
        #expect(segment.whole)
        segment.groupPasses = false
        var suspected = false
        for _ in 0..<200 {
            segment.advance(.milliseconds(10))
            suspected =
                suspected
                || segment.nodes.contains { n in n.mesh.membership.peers.values.contains { $0.state != .established } }
        }
        #expect(!suspected, "a peer left `established` when the group stopped passing")
        segment.resetCounts()
        segment.advance(.seconds(1))
        #expect(segment.whole)
        // Heartbeats (20 per second each way) and predictions go unicast between drones again.
        #expect(segment.unicastBetweenDrones >= 100, "unicast between drones: \(segment.unicastBetweenDrones) in 1 s")
        for i in segment.nodes.indices.dropFirst() { #expect(segment.predictionsHeld(at: i) == 2) }
        // And back: the group carries it all again.
        segment.groupPasses = true
        segment.advance(.seconds(1))
        segment.resetCounts()
        segment.advance(.seconds(1))
        #expect(
            segment.unicastBetweenDrones <= 6,
            "unicast between drones once the group is back: \(segment.unicastBetweenDrones)")
    }

    @Test("a node cut off the link is back in session as soon as its group datagrams are heard, not at the next probe")
    func aLinkBackIsProbedWhenTheGroupIsHeard() {
        // Probes 5 s apart: without the group's cue the pair would wait up to 5 s after the link came back.
        var segment = AirtimeSimulation(
            stations: 1, drones: 2, group: true, membership: .init(reconnectInterval: .seconds(5)))
        segment.advance(.seconds(3))
        #expect(segment.whole)
        segment.isolated = [2]
        segment.advance(.seconds(3))
        let station = segment.nodes[0].mesh.localID
        let drone = segment.nodes[2].mesh.localID
        #expect(segment.nodes[0].mesh.membership.peers[drone]?.state == .lost)
        #expect(segment.nodes[2].mesh.membership.peers[station]?.state == .lost)
        segment.isolated = []
        var back: Duration?
        let restored = segment.now
        while back == nil, segment.now - restored < .seconds(6) {
            segment.advance(.milliseconds(10))
            if segment.whole { back = segment.now - restored }
        }
        #expect(
            back.map { $0 <= .milliseconds(300) } ?? false,
            "back in session \(String(describing: back)) after the restore")
    }

    @Test(
        "after a one-way outage a command reaches the drone as soon as the drone echoes the station's group datagrams, though its own unicast to the station is still held"
    )
    func aOneWayOutageEndsWhenTheGroupIsEchoed() throws {
        // The station's reliable messages sent into the outage hold back, in order, everything after them. Its backoff
        // (at most 1 s) would release them 0–1 s after the restore, depending on the phase; the drone's
        // acknowledgements would say so at once but wait in its kernel (its neighbour entry for the station failed:
        // `unicastHeld`). The drone's group echo of the station's stamp says it hears the station again.
        var slowest: Duration = .zero
        for phase in 0..<10 {
            var segment = AirtimeSimulation(stations: 1, drones: 2, group: true)
            segment.advance(.seconds(3))
            #expect(segment.whole)
            let number = try #require(segment.nodes[1].coordinator.uavNumber)
            let station = segment.nodes[0].mesh.localID
            // Drone 1 stops hearing the station; drone 2, which the station no longer hears nor reaches, keeps drone 1
            // company (a node alone would be lost) without being a way round.
            let apart: Set<AirtimeSimulation.Direction> = [.init(from: 0, to: 2), .init(from: 2, to: 0)]
            segment.drops = apart.union([.init(from: 0, to: 1)])
            segment.advance(.seconds(2))
            #expect(segment.nodes[1].mesh.membership.peers[station]?.state == .lost)
            let asked = segment.now
            segment.resetCounts()
            segment.act(at: 0) { $0.sendCommand(.hover, toUAV: number, now: asked).directives }
            segment.advance(.seconds(3) + .milliseconds(100 * phase))
            // No way round: the command waits in the station's reliable window for the restore.
            #expect(segment.commandsExecuted[1] == 0, "phase \(phase): the command reached the drone in the outage")
            segment.drops = apart
            segment.unicastHeld = [.init(from: 1, to: 0)]
            segment.resetCounts()
            let restored = segment.now
            while segment.commandsExecuted[1] == 0, segment.now - restored < .seconds(3) {
                segment.advance(.milliseconds(10))
            }
            #expect(segment.commandsExecuted[1] == 1, "phase \(phase): executed \(segment.commandsExecuted[1])")
            slowest = max(slowest, segment.now - restored)
        }
        #expect(slowest <= .milliseconds(500), "the command reached the drone \(slowest) after the restore at worst")
    }

    @Test("manual control to a drone next door goes by unicast: the other drones on the link never receive it")
    func aStreamForOneNodeGoesByUnicast() throws {
        var segment = AirtimeSimulation(stations: 1, drones: 4, group: true)
        segment.advance(.seconds(3))
        #expect(segment.whole)
        let number = try #require(segment.nodes[1].coordinator.uavNumber)
        segment.resetCounts()
        // Half a second of a 100 Hz stream from the station to drone 1.
        for k in 0..<50 {
            let now = segment.now
            segment.act(at: 0) {
                $0.sendManualControl(
                    ManualControl(x: Int16(k), y: 0, z: 500, r: 0, buttons: 0, sentAtMicros: UInt64(k)),
                    toUAV: number, takeover: true, now: now)
            }
            segment.advance(.milliseconds(10))
        }
        #expect(segment.manualApplied[1] == 50, "drone 1 applied \(segment.manualApplied[1]) of 50 samples")
        // The samples went by unicast to drone 1; the station's group datagrams stayed its presence (10 a second).
        #expect(segment.unicastSent[0] >= 50, "station unicast: \(segment.unicastSent[0])")
        #expect(segment.groupSent[0] <= 8, "station group datagrams in 0.5 s: \(segment.groupSent[0])")
        // Every other drone hears the station's presence and the drones' own traffic, not 50 samples more: by group
        // each of them would open every sample only to drop it.
        for i in 2...4 {
            #expect(segment.received[i] < segment.received[1] - 40, "received: \(segment.received)")
        }
    }

    @Test("the group costs fewer datagrams than unicast: ten nodes, the same traffic")
    func theGroupCostsLessThanUnicast() {
        var withGroup = AirtimeSimulation(stations: 1, drones: 9, group: true)
        var without = AirtimeSimulation(stations: 1, drones: 9, group: false)
        withGroup.advance(.seconds(3))
        without.advance(.seconds(3))
        withGroup.resetCounts()
        without.resetCounts()
        withGroup.advance(.seconds(2))
        without.advance(.seconds(2))
        let a = withGroup.unicastSent.reduce(0, +) + withGroup.groupSent.reduce(0, +)
        let b = without.unicastSent.reduce(0, +)
        // Without: 20 heartbeats + 20 replies + 5 predictions per second per pair (8,190 in 2 s); with: 10 per node per
        // second plus the telemetry to the station (378).
        #expect(a * 15 < b, "datagrams in 2 s: \(a) with the group, \(b) without")
        #expect(withGroup.predictionsHeld(at: 0) == 9)
        #expect(without.predictionsHeld(at: 0) == 9)
    }
}
