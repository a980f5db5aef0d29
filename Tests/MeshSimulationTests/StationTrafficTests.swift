import MeshSimulation
import MeshTypes
import NodeCore
import Testing

/// The benchmarks' workload (`fleetmesh-bench datagram`, `fleetmesh-sim station-traffic`): a station and drones on the
/// ground in a star, whose recorded inputs replayed into a copy of the station make it do the same work again.
@Suite("Simulation: station traffic")
struct StationTrafficTests {
    @Test(
        "every drone goes live; the steady state is 10 Hz telemetry with a heartbeat in each gap; a replay repeats it")
    func steadyStateAndReplay() throws {
        let n = 5
        var traffic = StationTraffic(spec: .init(drones: n))
        let settled = traffic.settle(timeout: .seconds(30))
        #expect(settled)
        #expect(traffic.liveDrones == n)
        let before = traffic.station
        let sentBefore = traffic.stationDatagramsSent
        let trace = traffic.record(for: .seconds(2))
        let sent = traffic.stationDatagramsSent - sentBefore
        #expect(traffic.malformed.isEmpty)
        var datagrams = 0, meshTicks = 0, coordinatorTicks = 0
        for r in trace {
            switch r.input {
            case .datagram: datagrams += 1
            case .meshTick: meshTicks += 1
            case .coordinatorTick: coordinatorTicks += 1
            }
        }
        // Per drone and second: 10 telemetry messages, a heartbeat in each gap between them (10) and about 2 replies
        // to the station's heartbeats that ask for one (PROTOCOL.md §6.2; answering every heartbeat made it 50).
        #expect((20 * n * 2...25 * n * 2).contains(datagrams), "\(datagrams) datagrams in 2 s")
        #expect(meshTicks == 200 && coordinatorTicks == 40)
        // The station sends each drone a heartbeat or a reply every 50 ms: 20 datagrams a second (it was 40).
        #expect((18 * n * 2...23 * n * 2).contains(sent), "\(sent) datagrams sent in 2 s")
        // Fed again to the station as it was, the same inputs make it send the same datagrams (sealed afresh: the
        // same count and sizes).
        var station = before
        var replayed: [Int] = []
        for r in trace {
            for case .datagram(let bytes, _) in StationTraffic.feed(r.input, to: &station, now: r.at) {
                replayed.append(bytes.count)
            }
        }
        #expect(replayed.count == sent)
        #expect(station.coordinator.fleetPicture(now: traffic.now).filter { !$0.isStale }.count == n)
    }

    @Test("on one shared link, telemetry goes once by group and the station sends almost nothing per drone")
    func sharedLink() throws {
        let n = 5
        var traffic = StationTraffic(spec: .init(drones: n, group: true))
        let settled = traffic.settle(timeout: .seconds(30))
        #expect(settled)
        #expect(traffic.liveDrones == n)
        let sentBefore = (traffic.stationDatagramsSent, traffic.groupDatagrams)
        let trace = traffic.record(for: .seconds(2))
        let unicastSent = traffic.stationDatagramsSent - sentBefore.0
        let groupSent = traffic.groupDatagrams - sentBefore.1
        #expect(traffic.malformed.isEmpty)
        let received = trace.reduce(0) { n, r in if case .datagram = r.input { n + 1 } else { n } }
        // Per drone and second: its 10 Hz group datagram (telemetry, presence riding along), and now and then a
        // unicast datagram (PROTOCOL.md §6.3); in the unicast star it was 20–25.
        #expect((10 * n * 2...13 * n * 2).contains(received), "\(received) datagrams in 2 s")
        // The station: its group datagrams, 10 a second whatever the fleet, and little unicast (it was 18–23 per
        // drone and second).
        #expect((18...22).contains(groupSent), "\(groupSent) group datagrams in 2 s")
        #expect(unicastSent <= 2 * n * 2, "\(unicastSent) unicast datagrams in 2 s")
        #expect(traffic.station.coordinator.fleetPicture(now: traffic.now).filter { !$0.isStale }.count == n)
    }
}
