import Dashboard
import Testing

@testable import Node

private func parse(_ text: String) throws(ConfigError) -> NodeConfiguration {
    try NodeConfiguration.parse(text, file: "/etc/fm/node.toml", baseDirectory: "/etc/fm")
}

/// A bcrypt hash of "correct horse" (cost 4: quick).
private let hash = DashboardPassword.hash("correct horse", cost: 4)

private func node(_ role: String) -> String {
    "[node]\nname = \"n\"\nrole = \"\(role)\"\nkey_file = \"k\"\n"
}

/// `[dashboard]`: on for stations at 127.0.0.1:8080 unless turned off, off for drones unless turned on, and never on
/// an address other machines reach without `[[dashboard.accounts]]`.
@Suite struct DashboardConfigTests {
    @Test func stationsServeTheDashboardOnLoopbackByDefaultAndDronesDoNot() throws {
        #expect(try parse(node("station")).dashboard == DashboardConfiguration(host: "127.0.0.1", port: 8080))
        #expect(try parse(node("drone")).dashboard == nil)
        #expect(try parse(node("station") + "[dashboard]\nenabled = false").dashboard == nil)
        let drone = try parse(node("drone") + "[dashboard]\nenabled = true\nlisten = \"127.0.0.1:9090\"")
        #expect(drone.dashboard == DashboardConfiguration(host: "127.0.0.1", port: 9090))
        let v6 = try parse(node("station") + "[dashboard]\nlisten = \"[::1]:8081\"\nlive_rate_hz = 10")
        #expect(v6.dashboard == DashboardConfiguration(host: "::1", port: 8081, liveRateHz: 10))
    }

    @Test(arguments: [
        ("listen = \"0.0.0.0:8080\"", "[dashboard] listen: 0.0.0.0:8080 is reachable from other machines"),
        ("listen = \"10.0.0.5:8080\"", "add [[dashboard.accounts]] (name, role, password_hash"),
        ("listen = \"localhost\"", "[dashboard] listen: expected \"address:port\""),
        ("listen = \"127.0.0.1:70000\"", "[dashboard] listen: expected \"address:port\""),
        ("live_rate_hz = 50", "[dashboard] live_rate_hz: must be 1–20, found 50.0"),
        ("enabled = \"yes\"", "[dashboard] enabled: expected true or false, found string"),
        ("port = 8080", "[dashboard] port: unknown field (known: accounts, enabled, listen, live_rate_hz)"),
        ("[[dashboard.accounts]]\nrole = \"viewer\"", "[dashboard.accounts[0]] name: missing"),
        ("[[dashboard.accounts]]\nname = \"a b\"", "name: must be 1–64 characters without spaces"),
        (
            "[[dashboard.accounts]]\nname = \"ops\"\nrole = \"admin\"",
            "role: must be viewer or operator, found \"admin\""
        ),
        (
            "[[dashboard.accounts]]\nname = \"ops\"",
            "password_hash: missing (a bcrypt hash: run `fleetmesh hash-password`)"
        ),
        (
            "[[dashboard.accounts]]\nname = \"ops\"\npassword_hash = \"hunter22\"",
            "password_hash: is not a bcrypt hash ($2b$…, 60 characters"
        ),
        (
            "[[dashboard.accounts]]\nname = \"ops\"\npassword = \"x\"",
            "password: unknown field (known: name, password_hash, role)"
        ),
        (
            "[[dashboard.accounts]]\nname = \"ops\"\npassword_hash = \"\(hash)\"\n[[dashboard.accounts]]\nname = \"ops\"",
            "\"ops\" is taken by accounts[0]"
        ),
    ])
    func badDashboardSettingsNameTheField(line: String, expected: String) {
        #expect {
            try parse(node("station") + "[dashboard]\n" + line)
        } throws: { error in
            // A password typed where its hash belongs is never repeated back.
            "\(error)".contains(expected) && !"\(error)".contains("hunter22")
        }
    }

    @Test func accountsLetTheDashboardLeaveLoopback() throws {
        let text =
            node("station") + "[dashboard]\nlisten = \"0.0.0.0:8080\"\n[[dashboard.accounts]]\nname = \"ops\"\n"
            + "role = \"operator\"\npassword_hash = \"\(hash)\"\n[[dashboard.accounts]]\nname = \"eyes\"\n"
            + "password_hash = \"\(hash)\"\n"
        let c = try #require(try parse(text).dashboard)
        #expect(c.host == "0.0.0.0" && !c.isLoopback)
        #expect(
            c.accounts == [
                DashboardAccount(name: "ops", role: .operator, passwordHash: hash),
                DashboardAccount(name: "eyes", role: .viewer, passwordHash: hash),
            ])
    }

    @Test func theShippedStationConfigServesTheDashboardOnLoopback() throws {
        let c = try NodeConfiguration.load(path: repositoryRoot + "/Config/station.toml")
        #expect(c.dashboard?.isLoopback == true && c.dashboard?.port == 8080 && c.dashboard?.liveRateHz == 5)
    }
}
