import Testing

@testable import Node

private func parse(_ text: String) throws(ConfigError) -> NodeConfiguration {
    try NodeConfiguration.parse(text, file: "/etc/fm/node.toml", baseDirectory: "/etc/fm")
}

private let drone = """
    [node]
    name = "drone-7"
    role = "drone"
    key_file = "mesh.key"
    """

private let station = """
    [node]
    name = "station-1"
    role = "station"
    key_file = "mesh.key"
    """

@Suite("MAVLink configuration: [drone] vehicle and [ground_control]")
struct MAVLinkConfigTests {
    @Test func defaultsAreTheSimulatorAndNoGroundControl() throws {
        #expect(try parse(drone).vehicle == .simulator)
        #expect(try parse(drone).autopilotSystemID == nil)
        #expect(try parse(station).groundControl == nil)
    }

    @Test(arguments: [
        ("simulator", VehicleSource.simulator),
        ("mavlink:udp:127.0.0.1:14540", .mavlink(.udp(host: "127.0.0.1", port: 14540))),
        ("mavlink:udp:[2001:db8::1]:14550", .mavlink(.udp(host: "2001:db8::1", port: 14550))),
        ("mavlink:udpin:14601", .mavlink(.udpIn(port: 14601))),
        ("mavlink:serial:/dev/ttyUSB0:57600", .mavlink(.serial(path: "/dev/ttyUSB0", baud: 57600))),
        (
            "mavlink:serial:/dev/serial/by-id/usb-CubePilot:921600",
            .mavlink(.serial(path: "/dev/serial/by-id/usb-CubePilot", baud: 921600))
        ),
    ])
    func vehicles(text: String, expected: VehicleSource) throws {
        let c = try parse(drone + "\n[drone]\nvehicle = \"\(text)\"")
        #expect(c.vehicle == expected)
        #expect(c.vehicle.description == text)
    }

    @Test func groundControlTable() throws {
        let c = try parse(
            station + "\n[ground_control]\nport = 14551\nadvertise = false\ntargets = [\"127.0.0.1:14550\"]")
        #expect(
            c.groundControl == GroundControlConfiguration(port: 14551, advertise: false, targets: ["127.0.0.1:14550"]))
        #expect(try parse(station + "\n[ground_control]").groundControl == GroundControlConfiguration())
        #expect(try parse(station + "\n[ground_control]\nenabled = false\nport = 1").groundControl == nil)
        let pinned = try parse(drone + "\n[drone]\nvehicle = \"mavlink:udpin:14601\"\nautopilot_sysid = 1")
        #expect(pinned.autopilotSystemID == 1)
    }

    @Test(arguments: [
        (drone + "\n[drone]\nvehicle = \"px4\"", "[drone] vehicle: expected \"simulator\", \"mavlink:udp:HOST:PORT\""),
        (
            drone + "\n[drone]\nvehicle = \"mavlink:tcp:1.2.3.4:5760\"",
            "[drone] vehicle: unknown MAVLink link \"tcp\" (known: udp, udpin, serial)"
        ),
        (
            drone + "\n[drone]\nvehicle = \"mavlink:udp:px4.local:14540\"",
            "[drone] vehicle: expected mavlink:udp:HOST:PORT with a numeric IPv4 address"
        ),
        (
            drone + "\n[drone]\nvehicle = \"mavlink:udpin:0\"",
            "[drone] vehicle: mavlink:udpin:PORT: the port must be a UDP port 1–65535, found \"0\""
        ),
        (
            drone + "\n[drone]\nvehicle = \"mavlink:serial:/dev/ttyS0:56000\"",
            "[drone] vehicle: the baud rate must be one of 9600, 19200"
        ),
        (
            drone + "\n[drone]\nvehicle = \"mavlink:serial:ttyS0:57600\"",
            "[drone] vehicle: the serial device must be an absolute path"
        ),
        (
            drone + "\n[drone]\nvehicle = \"mavlink:serial:/dev/ttyS0\"",
            "[drone] vehicle: expected mavlink:serial:DEVICE:BAUD"
        ),
        (drone + "\n[drone]\nvehicle = 3", "[drone] vehicle: expected a string, found int"),
        (
            drone + "\n[drone]\nautopilot_sysid = 1",
            "[drone] autopilot_sysid: only a MAVLink vehicle has an autopilot system id"
        ),
        (
            drone + "\n[drone]\nvehicle = \"mavlink:udpin:14601\"\nautopilot_sysid = 0",
            "[drone] autopilot_sysid: must be a MAVLink system id 1–255, found 0"
        ),
        (
            station + "\n[drone]\nvehicle = \"mavlink:udpin:14601\"",
            "[drone] vehicle: only drones fly a vehicle; this node's role is station"
        ),
        (
            drone + "\n[ground_control]\nport = 14550",
            "[ground_control]: only stations serve ground-control software; this node's role is drone"
        ),
        (station + "\n[ground_control]\nport = 70000", "[ground_control] port: must be 1–65535, found 70000"),
        (
            station + "\n[ground_control]\nprot = 14550",
            "[ground_control] prot: unknown field (known: advertise, enabled, port, targets)"
        ),
        (
            station + "\n[ground_control]\ntargets = [\"qgc:14550\"]",
            "[ground_control] targets[0]: expected \"host:port\""
        ),
        (station + "\n[ground_control]\nenabled = \"yes\"", "[ground_control] enabled: expected true or false"),
    ])
    func badValuesNameTheFieldAndTheProblem(text: String, expected: String) {
        #expect {
            try parse(text)
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("config /etc/fm/node.toml: ") && message.contains(expected)
        }
    }
}
