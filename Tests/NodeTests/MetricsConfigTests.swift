import Dashboard
import Testing

@testable import Node

private func parse(_ text: String) throws(ConfigError) -> NodeConfiguration {
    try NodeConfiguration.parse(text, file: "/etc/fm/node.toml", baseDirectory: "/etc/fm")
}

private func node(_ role: String) -> String {
    "[node]\nname = \"n\"\nrole = \"\(role)\"\nkey_file = \"k\"\n"
}

/// `[metrics] listen`: off unless configured, on any role, an "address:port" that is not the dashboard's.
@Suite struct MetricsConfigTests {
    @Test func theListenerIsOffUnlessConfigured() throws {
        #expect(try parse(node("drone")).metrics == nil)
        #expect(try parse(node("station")).metrics == nil)
        let drone = try parse(node("drone") + "[metrics]\nlisten = \"[::1]:9464\"")
        #expect(drone.metrics == MetricsConfiguration(host: "::1", port: 9464))
        let station = try parse(node("station") + "[metrics]\nlisten = \"0.0.0.0:9100\"")
        #expect(station.metrics == MetricsConfiguration(host: "0.0.0.0", port: 9100))
        // Beside a dashboard on another port, or on the same port of another address.
        let beside = try parse(
            node("station") + "[dashboard]\nlisten = \"127.0.0.1:8080\"\n[metrics]\nlisten = \"[::1]:8080\"")
        #expect(beside.metrics?.port == 8080 && beside.dashboard?.port == 8080)
    }

    @Test(arguments: [
        ("", "[metrics] listen: missing (an \"address:port\" such as \"[::1]:9464\")"),
        ("listen = \"localhost:9464\"", "[metrics] listen: expected \"address:port\" with a numeric address"),
        ("listen = \"[::1]\"", "found \"[::1]\""),
        ("listen = \"127.0.0.1:0\"", "[metrics] listen: expected \"address:port\""),
        ("listen = \"[fe80::1%eth0]:9464\"", "[metrics] listen: expected \"address:port\""),
        ("listen = 9464", "[metrics] listen: expected a string"),
        ("listen = \"[::1]:9464\"\nport = 9464", "[metrics] port: unknown field (known: listen)"),
        (
            "listen = \"127.0.0.1:8080\"",
            "[metrics] listen: 127.0.0.1:8080 is the dashboard's port (127.0.0.1:8080), which serves /metrics already"
        ),
        ("listen = \"0.0.0.0:8080\"", "is the dashboard's port"),
    ])
    func badListenersNameTheField(line: String, expected: String) {
        #expect {
            try parse(node("station") + "[metrics]\n" + line)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }
}
