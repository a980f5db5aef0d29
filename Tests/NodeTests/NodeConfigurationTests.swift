import Foundation
import Membership
import MeshCore
import MeshTypes
import Testing

@testable import Node

private func parse(_ text: String) throws(ConfigError) -> NodeConfiguration {
    try NodeConfiguration.parse(text, file: "/etc/fm/node.toml", baseDirectory: "/etc/fm")
}

private let minimal = """
    [node]
    name = "drone-7"
    role = "drone"
    key_file = "mesh.key"
    """

@Suite struct NodeConfigurationTests {
    @Test func minimalConfigGetsDefaults() throws {
        let c = try parse(minimal)
        #expect(c.name == "drone-7")
        #expect(c.role == .drone)
        #expect(c.keyFile == "/etc/fm/mesh.key")
        #expect(c.stateDirectory == "/var/lib/fleetmesh/drone-7")
        #expect(c.controlSocket == "/run/fleetmesh/drone-7.sock")
        #expect(c.port == 47800)
        #expect(c.advertise && c.discover)
        #expect(c.membership == MembershipConfiguration())
        #expect(c.uavNumber == nil)
    }

    @Test func shippedConfigsParse() throws {
        for file in ["station", "drone"] {
            let path = repositoryRoot + "/Config/\(file).toml"
            let c = try NodeConfiguration.load(path: path)
            #expect(c.role.rawValue == file)
        }
    }

    @Test(arguments: [
        (
            "[node]\nname = \"x\"\nrole = \"tank\"\nkey_file = \"k\"",
            "[node] role: must be \"station\" or \"drone\", found \"tank\""
        ),
        ("[node]\nrole = \"drone\"\nkey_file = \"k\"", "[node] name: missing (a string is required)"),
        ("[node]\nname = 5\nrole = \"drone\"\nkey_file = \"k\"", "[node] name: expected a string, found int"),
        (minimal + "\n[network]\nport = 70000", "[network] port: must be 0–65535, found 70000"),
        (minimal + "\n[network]\nprot = 1", "[network] prot: unknown field"),
        (minimal + "\n[network]\nstatic_peers = [\"10.0.0.1\"]", "[network] static_peers[0]: expected \"host:port\""),
        (
            minimal + "\n[membership]\nlost_after_ms = 100",
            "[membership]: lost_after_ms must be longer than suspect_after_ms"
        ),
        (minimal + "\n[drone]\nuav_number = 251", "[drone] uav_number: must be 1–250, found 251"),
        (
            "[node]\nname = \"s\"\nrole = \"station\"\nkey_file = \"k\"\n[drone]\nuav_number = 3",
            "[drone] uav_number: only drones carry a UAV number"
        ),
        (minimal + "\n[log]\nlevel = \"loud\"", "[log] level: must be one of"),
        (
            minimal + "\n[coordinator]\ntelemetry_hz = nan",
            "[coordinator] telemetry_hz: must be a finite number, found nan"
        ),
        (
            minimal + "\n[membership]\nlost_after_ms = 2.5",
            "[membership] lost_after_ms: expected an integer, found floating-point number"
        ),
        (minimal + "\n[drone]\nhome = [50, \"x\"]", "[drone] home[1]: expected a number, found string"),
        ("network = 3\n" + minimal, "network: expected a table, found int"),
        ("[node\nname = 1", "line 1"),
        ("", "[node]: missing table"),
    ])
    func badConfigNamesFileFieldAndProblem(text: String, expected: String) {
        #expect {
            try parse(text)
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("config /etc/fm/node.toml: ") && message.contains(expected)
        }
    }

    @Test func missingFileIsReported() {
        #expect {
            try NodeConfiguration.load(path: "/nonexistent/fm.toml")
        } throws: { error in
            "\(error)" == "config /nonexistent/fm.toml: cannot read the file (no such file)"
        }
    }
}

@Suite struct WireFormatTests {
    @Test func advertisementRoundTrips() throws {
        let ad = MeshAdvertisement(
            nodeID: NodeID(high: 1, low: 2), incarnation: 0xABC, role: .drone, name: "drone-1",
            uavNumber: 7, fingerprint: "0123456789abcdef")
        #expect(ad.txt["id"] == "00000000000000010000000000000002")
        #expect(ad.txt["inc"] == "0000000000000abc")
        #expect(try MeshAdvertisement(txt: ad.txt) == ad)
    }

    @Test(arguments: [
        (["v": "4"], "protocol version 4, this node speaks 5"),
        (["v": "5", "id": "zz"], "'id' must be 32 hex digits"),
        (["v": "5", "id": String(repeating: "a", count: 32), "inc": "1", "role": "tank"], "'role'"),
        (
            [
                "v": "5", "id": String(repeating: "a", count: 32), "inc": "1", "role": "drone",
                "fp": "0123456789abcdef", "uav": "0",
            ], "'uav' must be 1–250"
        ),
    ])
    func malformedAdvertisementIsRefused(txt: [String: String], expected: String) {
        #expect {
            try MeshAdvertisement(txt: txt)
        } throws: { "\($0)".contains(expected) }
    }

    @Test func helloRoundTripsAndRefusesBadLengths() throws {
        let hello = HelloMessage(name: "station-1", uavNumber: nil)
        #expect(try HelloMessage(decoding: hello.encode()) == hello)
        let drone = HelloMessage(name: "d", uavNumber: 250)
        #expect(try HelloMessage(decoding: drone.encode()) == drone)
        #expect(throws: WireError.self) { try HelloMessage(decoding: []) }
        #expect(throws: WireError.self) { try HelloMessage(decoding: [5, 65]) }
        for n in 0..<200 {
            let junk = (0..<(n % 40)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ n) }
            _ = try? HelloMessage(decoding: junk)  // never traps
        }
    }

    @Test(arguments: [
        ("10.0.0.5:47800", "10.0.0.5", 47800, nil as String?),
        ("[fe80::1%lo]:1", "fe80::1", 1, "lo"),
        ("[2001:db8::1]:65535", "2001:db8::1", 65535, nil),
    ])
    func peerEndpointsParse(text: String, host: String, port: Int, scope: String?) throws {
        let e = try #require(PeerEndpoint(parsing: text))
        #expect(e.host == host && e.port == port && e.scope == scope)
        #expect(e.description == text)
    }

    @Test(arguments: [
        "10.0.0.5", "10.0.0.5:0", "host:1", "[fe80::1:1", "fe80::1:47800", "[::1]:x", "[fe80::1%nosuchif]:1",
    ])
    func badPeerEndpointsAreRefused(text: String) {
        #expect(PeerEndpoint(parsing: text) == nil)
    }

    @Test func ipv4IsSentAsMappedIPv6() throws {
        let address = try #require(PeerEndpoint(parsing: "10.1.2.3:9")).socketAddress()
        #expect(address.ipAddress == "::ffff:10.1.2.3")
        #expect(address.displayString == "10.1.2.3:9")
    }
}

let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()
