import ControlProtocol
import Foundation
import LabKit
import Node
import Testing

/// The map origin in real nodes: a station configured with `[mission] origin` floods it, and every node, drones
/// included, reports the same origin (and UTM offset) over its control socket and the CLI. Serialized, like the
/// other lab suites: the time bounds assume no other lab shares the cores.
@Suite(.serialized) struct MapOriginLabTests {
    func origin(_ node: NodeProcess) throws -> OriginReport? {
        try ControlClient.request(ControlRequest.origin, socket: node.socketPath, timeout: .seconds(2)).origin
    }

    @Test func everyNodeReportsTheStationsOrigin() async throws {
        try await Lab.with(hosts: 3) { lab in
            let station = try lab.startNode(
                host: 1, name: "station", role: "station",
                extra: "[mission]\norigin = [50.0755, 14.4378, 0]\nzone = \"33N\"")
            let drones = try (2...3).map { try lab.startNode(host: $0, name: "drone-\($0)") }
            let nodes = [station] + drones
            let agreed = try await waitUntil("every node reports the station's map origin", timeout: .seconds(15)) {
                let reports = try nodes.map { try origin($0) }
                return reports.allSatisfy { r in
                    guard let r else { return false }
                    return r.announcedBy == "station" && r.zone == "33N" && r.zoneForced
                        && abs(r.latitude - 50.0755) < 1e-7 && abs(r.longitude - 14.4378) < 1e-7 && r.altitude == 0
                }
            }
            print("all nodes agree on the origin \(agreed) after start")
            let reports = try nodes.map { try #require(try origin($0)) }
            let first = reports[0]
            for r in reports.dropFirst() {
                #expect(r.announcedByNode == first.announcedByNode && r.epoch == first.epoch)
                #expect(r.utmEasting == first.utmEasting && r.utmNorthing == first.utmNorthing)
                // Re-announced every 2 s (a drone's copy is never much older than that).
                #expect(r.ageMs < 4_000)
            }
            // 50.0755 N 14.4378 E in zone 33N (as `fleetmesh geo utm` gives it).
            #expect(abs(first.utmEasting - 459_772.016) < 0.01 && abs(first.utmNorthing - 5_547_176.551) < 0.01)
            #expect(try station.status().node.id == first.announcedByNode)
            #expect(try drones[0].status().mapOrigin?.announcedBy == "station")

            // The CLI prints the same report as JSON.
            let cli = try fleetmeshBinary()
            let json = try shell([cli, "origin", "--json", "--node", drones[1].socketPath])
            #expect(json.status == 0, "\(json.output)")
            let printed = try JSONDecoder().decode(OriginReport.self, from: Data(json.output.utf8))
            #expect(
                printed.announcedByNode == first.announcedByNode && printed.zone == "33N"
                    && printed.epoch == first.epoch)
            let text = try shell([cli, "origin", "--node", station.socketPath])
            #expect(text.status == 0 && text.output.contains("33N (forced)"), "\(text.output)")

            // Named by the station's name, or by its ID when the origin came through another node before the
            // station's advertisement (one node repeats another's advertisement 150 ms after hearing it from its origin,
            // PROTOCOL.md §7.1).
            let stationID = try station.status().node.id
            for node in nodes {
                let line = "map origin 50.07550 14.43780 alt 0 (zone 33N) from "
                #expect(
                    node.log.contains(line + "station") || node.log.contains(line + stationID.prefix(8)),
                    "\(node.name)")
            }
            expectQuietLogs(nodes)
        }
    }

    @Test func aDroneWithAMissionTableRefusesToStartAndNodesWithoutOriginSayNone() async throws {
        try await Lab.with(hosts: 2) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            let bad = try lab.startNode(host: 2, name: "drone-2", extra: "[mission]\norigin = [50.0755, 14.4378, 0]")
            try await waitUntil("the drone with [mission] exits", timeout: .seconds(10)) { !bad.process.isRunning }
            #expect(bad.process.wait() != 0)
            #expect(bad.log.contains("[mission]: only stations announce a map origin"), "\(bad.log)")
            try await waitUntil("the station answers on its control socket", timeout: .seconds(10)) {
                (try? station.status()) != nil
            }
            let r = try ControlClient.request(ControlRequest.origin, socket: station.socketPath, timeout: .seconds(2))
            #expect(r.origin == nil)
            #expect(r.error?.hasPrefix("origin: no map origin known yet") == true)
        }
    }
}
