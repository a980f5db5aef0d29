import Coordinator
import MeshSimulation
import MeshTypes
import Testing

@Suite("Simulation: map origin")
struct MapOriginSimulationTests {
    @Test("two stations with different origins on a lossy mesh: every connected node settles on the same one")
    func twoStationsConverge() {
        let prague = GeoPoint(latitude: 50.0755, longitude: 14.4378, altitude: 0)
        let brno = GeoPoint(latitude: 49.1951, longitude: 16.6068, altitude: 237)
        let network = NetworkProfile(unreliableLoss: 0.2, duplication: 0.1)
        let sim = MeshSimulation(
            seed: 31, nodes: [.station("GS-1"), .drone("D1"), .drone("D2"), .drone("D3"), .station("GS-2")],
            links: [(0, 1), (1, 2), (2, 3), (3, 4)], network: network
        ) { c in
            if c.name == "GS-1" { c.mapOrigin = MapOriginAnnouncement(position: prague, forcedZone: 33, epoch: 1_000) }
            if c.name == "GS-2" { c.mapOrigin = MapOriginAnnouncement(position: brno, epoch: 2_000) }
        }
        sim.run(for: .seconds(8))
        #expect(sim.mapOriginViolations().isEmpty, "\(sim.mapOriginViolations())")
        for i in 0..<5 {
            #expect(sim.core(i)?.agreedMapOrigin?.announcedBy == sim.ids[4])
            #expect(sim.core(i)?.agreedMapOrigin?.announcement.position == brno)
        }
        #expect(sim.violations.isEmpty)
        #expect(sim.settledViolations().isEmpty)
    }

    @Test("a drone that joins late hears the origin within one period, even when the station's first copies were lost")
    func lateJoiner() {
        let origin = MapOriginAnnouncement(
            position: GeoPoint(latitude: -33.8688, longitude: 151.2093, altitude: 12), epoch: 42)
        let sim = MeshSimulation(
            seed: 5, nodes: [.station("GS"), .drone("D1"), .drone("D2")], links: [(0, 1), (1, 2)]
        ) { c in
            if c.role == .station { c.mapOrigin = origin }
        }
        sim.partition([[0, 1], [2]])
        sim.run(for: .seconds(3))
        #expect(sim.core(1)?.agreedMapOrigin?.announcement == origin)
        #expect(sim.core(2)?.agreedMapOrigin == nil)
        #expect(sim.mapOriginViolations().isEmpty)
        sim.healAllLinks()
        sim.run(for: .seconds(3))
        #expect(sim.core(2)?.agreedMapOrigin?.announcement == origin)
        #expect(sim.core(2)?.agreedMapOrigin?.announcedBy == sim.ids[0])
        #expect(sim.mapOriginViolations().isEmpty, "\(sim.mapOriginViolations())")
    }
}
