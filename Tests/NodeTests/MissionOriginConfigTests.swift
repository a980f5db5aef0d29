import Testing

@testable import Node

private func parse(_ text: String) throws(ConfigError) -> NodeConfiguration {
    try NodeConfiguration.parse(text, file: "/etc/fm/node.toml", baseDirectory: "/etc/fm")
}

private let station = """
    [node]
    name = "station-1"
    role = "station"
    key_file = "mesh.key"
    """

@Suite struct MissionOriginConfigTests {
    @Test func stationOriginAndZoneParse() throws {
        let c = try parse(station + "\n[mission]\norigin = [50.0755, 14.4378, 235.5]\nzone = \"33n\"")
        let o = try #require(c.mapOrigin)
        #expect(o.latitude == 50.0755 && o.longitude == 14.4378 && o.altitude == 235.5)
        #expect(o.zone?.description == "33N")
        let plain = try parse(station + "\n[mission]\norigin = [-33, 151]")
        #expect(plain.mapOrigin == MissionOrigin(latitude: -33, longitude: 151, altitude: 0, zone: nil))
        #expect(try parse(station).mapOrigin == nil)
    }

    @Test(arguments: [
        (
            station + "\n[mission]\norigin = [95, 14, 0]",
            "[mission] origin: latitude must be within -90…90 degrees, found 95.0"
        ),
        (
            station + "\n[mission]\norigin = [50, 181, 0]",
            "[mission] origin: longitude must be within -180…180 degrees, found 181.0"
        ),
        (
            station + "\n[mission]\norigin = [50, 14, 20000]",
            "[mission] origin: altitude must be within -10000…10000 metres"
        ),
        (station + "\n[mission]\norigin = [50]", "[mission] origin: expected [latitude, longitude, altitude]"),
        (station + "\n[mission]\norigin = [50, \"x\"]", "[mission] origin[1]: expected a number"),
        (station + "\n[mission]\norigin = [85, 14]", "[mission] origin: cannot place the origin on the UTM map"),
        (station + "\n[mission]\norigin = [50, 14]\nzone = \"33X\"", "[mission] zone: bad UTM zone '33X'"),
        (station + "\n[mission]\norigin = [50, 14]\nzone = \"61N\"", "[mission] zone: bad UTM zone '61N'"),
        (
            station + "\n[mission]\norigin = [50, 14]\nzone = \"33S\"",
            "[mission] zone: zone 33S has the wrong hemisphere for latitude 50.0"
        ),
        (
            station + "\n[mission]\norigin = [50, 14]\nzone = \"3N\"",
            "[mission] zone: cannot place the origin on the UTM map"
        ),
        (station + "\n[mission]\nzone = \"33N\"", "[mission] zone: a zone needs an origin"),
        (station + "\n[mission]\norign = [50, 14]", "[mission] orign: unknown field"),
        (
            "[node]\nname = \"d\"\nrole = \"drone\"\nkey_file = \"k\"\n[mission]\norigin = [50, 14, 0]",
            "[mission]: only stations announce a map origin; this node's role is drone"
        ),
    ])
    func badMissionNamesFileFieldAndProblem(text: String, expected: String) {
        #expect {
            try parse(text)
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("config /etc/fm/node.toml: ") && message.contains(expected)
        }
    }
}
