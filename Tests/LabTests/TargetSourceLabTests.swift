import ControlProtocol
import Foundation
import LabKit
import Node
import Testing

/// Target sources over real mDNS: the Python example in Examples/loc-broadcaster (python-zeroconf, its own crypto)
/// advertises `_loc-broadcaster._udp` on a lab host, a station subscribes and floods its targets, a drone flies there.
@Suite(.serialized) struct TargetSourceLabTests {
    var example: String { repositoryRoot.appendingPathComponent("Examples/loc-broadcaster/loc_broadcaster.py").path }

    func vehicles(_ node: NodeProcess) throws -> [VehicleReport] {
        try ControlClient.request(ControlRequest.vehicles, socket: node.socketPath, timeout: .seconds(2)).vehicles ?? []
    }

    func sources(_ node: NodeProcess) throws -> TargetSourcesReport {
        let r = try ControlClient.request(ControlRequest.sources, socket: node.socketPath, timeout: .seconds(2))
        guard let s = r.sources else { throw LabError(r.error ?? "no sources in the answer") }
        return s
    }

    @Test func thePythonExampleSourceDrivesADroneThroughTheStation() async throws {
        try await Lab.with(hosts: 3) { lab in
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            _ = try lab.startNode(host: 2, name: "drone-2")
            var number = 0
            try await waitUntil("the station sees the drone with a number", timeout: .seconds(10)) {
                guard let v = try vehicles(station).first(where: { !$0.stale && $0.uavNumber != nil }) else {
                    return false
                }
                number = v.uavNumber!
                return true
            }
            let cli = try fleetmeshBinary()
            let takeoff = try shell([
                cli, "send", "--node", station.socketPath, "--timeout", "20", String(number), "takeoff", "10",
            ])
            #expect(takeoff.status == 0, "\(takeoff.output)")
            let start = try #require(try vehicles(station).first { $0.uavNumber == number })
            // 15 m north and 12 m up.
            let lat = start.latitude + 15 / 111_200.0, lon = start.longitude

            // A stranger with another mesh key advertises too: its record is ignored (other fingerprint).
            let strangerKey = lab.directory.appendingPathComponent("stranger.key").path
            #expect(try shell([cli, "keygen", strangerKey]).status == 0)
            let stranger = try lab.start(
                host: 3, tag: "stranger",
                [
                    "python3", "-u", example, "--key", strangerKey, "--name", "stranger",
                    "--lat", "50.0", "--lon", "14.0", "--alt", "30", "--all",
                ])
            let phone = try lab.start(
                host: 3, tag: "phone",
                [
                    "python3", "-u", example, "--key", lab.keyPath, "--name", "phone",
                    "--lat", String(lat), "--lon", String(lon), "--alt", "12",
                    "--uav", String(number), "--rate", "5",
                ])
            let found = try await waitUntil(
                "the station subscribes to 'phone' and receives its targets", timeout: .seconds(10)
            ) {
                try sources(station).sources.contains { $0.name == "phone" && $0.targets >= 3 }
            }
            print("station receiving the phone's targets \(found) after the source started")
            #expect(phone.output.contains("subscribed: station"))
            let flown = try await waitUntil(
                "UAV \(number) reaches the phone's target", timeout: .seconds(25), poll: .milliseconds(100)
            ) {
                guard let v = try vehicles(station).first(where: { $0.uavNumber == number }), !v.stale else {
                    return false
                }
                let north = (v.latitude - lat) * 111_200
                let east = (v.longitude - lon) * 111_200 * cos(lat * .pi / 180)
                return (north * north + east * east).squareRoot() < 1.5 && abs(v.altitude - 12) < 1
            }
            print("UAV \(number) at the target \(flown) after the station first received it")

            // Junk and forgeries at the subscriber's port are refused and counted; the node keeps running.
            let report = try sources(station)
            let port = try #require(report.port)
            let stationAddress = try lab.address(1)
            let junk = try shell(
                lab.onHost(
                    3,
                    [
                        "python3", "-c",
                        """
                        import socket
                        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                        for p in [b"hello", b"XXXX" + bytes(60), b"FMLB\\x01\\x02" + bytes(15) + b"\\x01" + bytes(40)]:
                            s.sendto(p, ("\(stationAddress)", \(port)))
                        """,
                    ]))
            #expect(junk.status == 0, "\(junk.output)")
            try await waitUntil("the refusals are counted", timeout: .seconds(5)) {
                let r = try sources(station).rejected
                return r == ["size": 1, "magic": 1, "authentication": 1]
            }
            #expect(station.process.isRunning)
            let listed = try sources(station).sources.map(\.name)
            #expect(!listed.contains("stranger"), "\(listed)")
            #expect(!stranger.output.contains("subscribed:"), "\(stranger.output)")

            // The CLI table.
            let table = try shell([cli, "sources", "--node", station.socketPath])
            #expect(table.status == 0)
            #expect(table.output.contains("phone") && table.output.contains("UAV \(number)"), "\(table.output)")
        }
    }
}
