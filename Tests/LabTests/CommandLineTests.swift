import Foundation
import LabKit
import Testing

/// The field commands that need no running node, exercised through the real `fleetmesh` binary.
@Suite struct CommandLineTests {
    private struct UTMOutput: Decodable {
        var zone: String
        var easting: Double
        var northing: Double
    }

    @Test func geoUTMMatchesGeographicLib() throws {
        // `echo "50.0755 14.4378" | GeoConvert -u -p 6` → 33n 459772.016297 5547176.551333
        let r = try shell([try fleetmeshBinary(), "geo", "utm", "50.0755", "14.4378", "--json"])
        #expect(r.status == 0)
        let utm = try JSONDecoder().decode(UTMOutput.self, from: Data(r.output.utf8))
        #expect(utm.zone == "33N")
        #expect(abs(utm.easting - 459772.016297) < 1e-6)
        #expect(abs(utm.northing - 5547176.551333) < 1e-6)
    }

    @Test func geoRoundTripsThroughLatLon() throws {
        let r = try shell([try fleetmeshBinary(), "geo", "latlon", "33N", "459772.016297", "5547176.551333", "--json"])
        #expect(r.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
        #expect(abs((json["latitude"] as? Double ?? 0) - 50.0755) < 1e-9)
        #expect(abs((json["longitude"] as? Double ?? 0) - 14.4378) < 1e-9)
    }

    @Test func geoRefusesBadInputClearly() throws {
        let r = try shell([try fleetmeshBinary(), "geo", "utm", "95", "14"])
        #expect(r.status != 0)
        #expect(r.output.contains("latitude 95.0 is outside -90…90 degrees"))
        let z = try shell([try fleetmeshBinary(), "geo", "latlon", "61X", "500000", "0"])
        #expect(z.status != 0)
        #expect(z.output.lowercased().contains("zone"))
    }

    @Test func simulateRunsAShippedScenarioAndReports() throws {
        let path = repositoryRoot.appendingPathComponent("Config/scenarios/square-patrol.toml").path
        let r = try shell([try fleetmeshBinary(), "simulate", path, "--json", "--quiet"])
        #expect(r.status == 0)
        let start = try #require(r.output.firstIndex(of: "{"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.output[start...].utf8)) as? [String: Any])
        let drones = try #require(json["drones"] as? [[String: Any]])
        #expect(drones.count >= 1)
        #expect((drones[0]["distanceFlown"] as? Double ?? 0) > 100)
    }

    @Test func simulateNamesTheFileAndProblem() throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("fm-bad-\(getpid()).toml").path
        try "[drones\n".write(toFile: bad, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let r = try shell([try fleetmeshBinary(), "simulate", bad])
        #expect(r.status != 0)
        #expect(r.output.contains(bad))
        #expect(r.output.contains("line 1"))
    }

    @Test func statusWithoutANodeSaysSo() throws {
        let r = try shell([try fleetmeshBinary(), "status", "--node", "/tmp/fm-no-such-node.sock"])
        #expect(r.status == 69)
        #expect(r.output.contains("is the node running?"))
    }
}
