import MeshSimulation
import MeshTypes
import NodeCore
import Testing

/// The benchmarks' workload (`fleetmesh-bench datagram`, `fleetmesh-sim station-traffic`): a station and drones on the
/// ground in a star, whose recorded inputs replayed into a copy of the station make it do the same work again.
@Suite("Simulation: station traffic")
struct StationTrafficTests {
    @Test("every drone goes live; the steady state is 10 Hz telemetry and 20 Hz heartbeats; a replay repeats it")
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
        // Per drone and second: 10 telemetry messages, 20 heartbeats and 20 replies to the station's heartbeats.
        #expect((45 * n * 2...55 * n * 2).contains(datagrams), "\(datagrams) datagrams in 2 s")
        #expect(meshTicks == 200 && coordinatorTicks == 40)
        // The station answers heartbeats and sends its own: 40 datagrams a second to each drone.
        #expect((35 * n * 2...45 * n * 2).contains(sent), "\(sent) datagrams sent in 2 s")
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
}
