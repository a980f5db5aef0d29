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

/// `fleetmesh plan inspection` and `plan example` through the real binary: bad input named, several drones.
@Suite struct PlanCommandTests {
    func fleetmesh(_ args: [String]) throws -> (status: Int32, output: String) {
        try shell([try fleetmeshBinary()] + args)
    }

    @Test func badInputIsNamedAndNothingIsWritten() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleetmesh-plan-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try fleetmesh(["plan", "example", "hall", "--dir", dir]).status == 0)
        let missing = try fleetmesh([
            "plan", "inspection", "--map", "\(dir)/nope.pcd", "--points", "\(dir)/hall-points.csv",
        ])
        #expect(missing.status == 65 && missing.output.contains("\(dir)/nope.pcd"), "\(missing.output)")
        try "VERSION 0.7\nFIELDS x y\nSIZE 4 4\nTYPE F F\nCOUNT 1 1\nWIDTH 1\nHEIGHT 1\nPOINTS 1\nDATA ascii\n1 2\n"
            .write(
                toFile: "\(dir)/bad.pcd", atomically: true, encoding: .utf8)
        let bad = try fleetmesh(["plan", "inspection", "--map", "\(dir)/bad.pcd", "--points", "\(dir)/hall-points.csv"])
        #expect(bad.status == 65 && bad.output.contains("bad.pcd:2:"), "\(bad.output)")
        let noOrigin = try fleetmesh([
            "plan", "inspection", "--map", "\(dir)/hall.pcd", "--points", "\(dir)/hall-points.csv", "--out",
            "\(dir)/r.txt",
        ])
        #expect(noOrigin.status == 64 && noOrigin.output.contains("give --origin LAT,LON or --utm"))
        try "x,y,z\n4,4.9,3\n".write(toFile: "\(dir)/inside.csv", atomically: true, encoding: .utf8)
        let inside = try fleetmesh(["plan", "inspection", "--map", "\(dir)/hall.pcd", "--points", "\(dir)/inside.csv"])
        #expect(inside.status == 1 && inside.output.contains("point 1 (\(dir)/inside.csv:2) (4.0, 4.9, 3.0) is 0."))
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/r.txt"))
    }

    @Test func threeDronesShareTheHallAndEachGetsARouteFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleetmesh-fleet-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try fleetmesh(["plan", "example", "hall", "--dir", dir]).status == 0)
        let r = try fleetmesh([
            "plan", "inspection", "--map", "\(dir)/hall.pcd", "--points", "\(dir)/hall-points.csv", "--origin",
            "59.9,10.7", "--start=-2,-2,2", "--start", "16,-2,2", "--start", "34,-2,2", "--out", "\(dir)/route.txt",
            "--json",
        ])
        #expect(r.status == 0, "\(r.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
        let drones = try #require(json["drones"] as? [[String: Any]])
        #expect(drones.count == 3)
        #expect(drones.flatMap { $0["points"] as? [Int] ?? [] }.sorted() == [1, 2, 3, 4, 5])
        #expect(json["conflictsAfter"] as? Int == 0)
        for d in 1...3 { #expect(FileManager.default.fileExists(atPath: "\(dir)/route-\(d).txt")) }
    }
}
