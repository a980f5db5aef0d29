import Coordinator
import MeshTypes
import Node
import Testing

@Suite struct FleetCommandParserTests {
    @Test func parsesEveryCommand() throws {
        #expect(try FleetCommandParser.parse(["takeoff", "10"]) == .takeoff(altitudeMillimetres: 10_000))
        #expect(try FleetCommandParser.parse(["takeoff", "2.5"]) == .takeoff(altitudeMillimetres: 2_500))
        #expect(try FleetCommandParser.parse(["land"]) == .land)
        #expect(try FleetCommandParser.parse(["hover"]) == .hover)
        #expect(try FleetCommandParser.parse(["RTL"]) == .returnToLaunch)
        #expect(try FleetCommandParser.parse(["follow", "on"]) == .followTarget(true))
        #expect(
            try FleetCommandParser.parse(["goto", "50.1", "-14.5", "20"])
                == .goto(GeoPoint(latitude: 50.1, longitude: -14.5, altitude: 20), speedCmS: 0))
        #expect(
            try FleetCommandParser.parse(["goto", "50.1", "14.5", "20", "3.5"])
                == .goto(GeoPoint(latitude: 50.1, longitude: 14.5, altitude: 20), speedCmS: 350))
        #expect(
            try FleetCommandParser.parse(["trajectory", "50.1,14.5,20", " 50.2, 14.6 ,25"])
                == .trajectory([
                    GeoPoint(latitude: 50.1, longitude: 14.5, altitude: 20),
                    GeoPoint(latitude: 50.2, longitude: 14.6, altitude: 25),
                ]))
    }

    @Test func refusesBadInputPrecisely() {
        func error(_ words: [String]) -> String {
            do {
                _ = try FleetCommandParser.parse(words)
                return "no error"
            } catch { return error.description }
        }
        #expect(error([]).hasPrefix("missing command"))
        #expect(error(["jump"]).hasPrefix("unknown command 'jump'"))
        #expect(
            error(["takeoff"])
                == "takeoff takes one argument: ALT (metres above home, e.g. takeoff 10), found 0 arguments")
        #expect(error(["takeoff", "ten"]) == "ALT must be a number, found 'ten'")
        #expect(error(["takeoff", "-3"]).hasPrefix("takeoff ALT must be more than 0"))
        #expect(error(["takeoff", "nan"]) == "ALT must be a number, found 'nan'")
        #expect(error(["land", "now"]) == "land takes no arguments, found 1 argument")
        #expect(error(["goto", "50", "14"]).hasPrefix("goto takes LAT LON ALT [SPEED]"))
        #expect(error(["goto", "91", "14", "10"]) == "LAT must be within -90…90 degrees, found 91.0")
        #expect(error(["goto", "50", "181", "10"]) == "LON must be within -180…180 degrees, found 181.0")
        #expect(error(["goto", "50", "14", "10", "0"]).hasPrefix("goto SPEED must be more than 0"))
        #expect(error(["follow", "maybe"]) == "follow takes on or off, found 'maybe'")
        #expect(error(["trajectory"]).hasPrefix("trajectory takes one or more waypoints LAT,LON,ALT"))
        #expect(
            error(["trajectory", "50,14,10", "50,14"])
                == "trajectory waypoint 2 must be LAT,LON,ALT[,HEADING[,HOLD]], found '50,14'")
        #expect(
            error(["trajectory", "50,14,10,400"])
                == "trajectory waypoint 1: HEADING must be 0…360 degrees, found 400.0")
        #expect(
            error(["trajectory", "50,14,10,-,9000"])
                == "trajectory waypoint 1: HOLD must be 0…6553.5 seconds, found 9000.0")
        #expect(
            error(["trajectory", "50,14,10", "95,14,10"])
                == "trajectory waypoint 2: LAT must be within -90…90 degrees, found 95.0")
        #expect(
            error(["trajectory"] + Array(repeating: "50,14,10", count: 201))
                == "trajectory takes at most 200 waypoints, found 201")
    }

    @Test func trajectoryWaypointsMayTurnAndHold() throws {
        let c = try FleetCommandParser.parse(["trajectory", "50,14,10", "50.001,14,10,90.25,2.5", "50.002,14,12,-,4"])
        guard case .trajectory(let points, let stops) = c else {
            Issue.record("not a trajectory: \(c)")
            return
        }
        #expect(points.count == 3)
        #expect(
            stops == [
                TrajectoryStop(index: 1, headingCentidegrees: 9025, holdDeciseconds: 25),
                TrajectoryStop(index: 2, headingCentidegrees: nil, holdDeciseconds: 40),
            ])
        #expect(c.summary == "trajectory (3 points, 2 stops)")
    }

    @Test func describesCommandsAsTyped() {
        #expect(Command.takeoff(altitudeMillimetres: 10_000).summary == "takeoff 10")
        #expect(Command.returnToLaunch.summary == "rtl")
        #expect(
            Command.goto(GeoPoint(latitude: 50.5, longitude: 14.25, altitude: 20), speedCmS: 350).summary
                == "goto 50.5 14.25 20 3.5")
    }
}

@Suite struct DroneConfigurationTests {
    let base = """
        [node]
        name = "d1"
        role = "drone"
        key_file = "mesh.key"

        """

    func error(_ text: String) -> String {
        do {
            _ = try NodeConfiguration.parse(text, file: "d.toml", baseDirectory: "/tmp")
            return "no error"
        } catch { return error.description }
    }

    @Test func homeIsOptionalWithADefault() throws {
        let plain = try NodeConfiguration.parse(base, file: "d.toml", baseDirectory: "/tmp")
        #expect(plain.home == nil)
        #expect(HomeLocation.default == HomeLocation(latitude: 50.0755, longitude: 14.4378))
        let set = try NodeConfiguration.parse(
            base + "[drone]\nhome = [48.5, 11]\n", file: "d.toml", baseDirectory: "/tmp")
        #expect(set.home == HomeLocation(latitude: 48.5, longitude: 11))
    }

    @Test func badHomesNameFileFieldAndProblem() {
        #expect(
            error(base + "[drone]\nhome = [48.5]\n")
                == "config d.toml: [drone] home: expected [latitude, longitude] in degrees, found 1 numbers")
        #expect(
            error(base + "[drone]\nhome = \"here\"\n")
                == "config d.toml: [drone] home: expected an array of numbers, found string")
        #expect(
            error(base + "[drone]\nhome = [48.5, \"x\"]\n")
                == "config d.toml: [drone] home[1]: expected a number, found string")
        #expect(
            error(base + "[drone]\nhome = [85, 11]\n")
                == "config d.toml: [drone] home: latitude must be within -80…84 degrees (the UTM map frame), found 85.0"
        )
        #expect(
            error(base + "[drone]\nhome = [50, 200]\n")
                == "config d.toml: [drone] home: longitude must be within -180…180 degrees, found 200.0")
        let station = base.replacingOccurrences(of: "\"drone\"", with: "\"station\"")
        #expect(
            error(station + "[drone]\nhome = [50, 14]\n")
                == "config d.toml: [drone] home: only drones have a home position; this node's role is station")
    }
}

@Suite struct CoordinatorSettingsTests {
    let base = """
        [node]
        name = "d1"
        role = "drone"
        key_file = "mesh.key"

        """

    func parse(_ text: String) throws -> NodeConfiguration {
        try NodeConfiguration.parse(base + text, file: "d.toml", baseDirectory: "/tmp")
    }

    func error(_ text: String) -> String {
        do {
            _ = try parse(text)
            return "no error"
        } catch { return "\(error)" }
    }

    @Test func defaultsAreTenAndFiveHertzAndAFiveSecondHover() throws {
        let c = try parse("").coordinator
        #expect(c.telemetryHz == 10 && c.predictionHz == 5 && c.hopLimit == 8)
        #expect(c.failsafeHoverAfterMs == 5000 && c.failsafeActionAfterMs == 10_000 && c.failsafeAction == .returnHome)
    }

    @Test func everyKeyIsReadAndCheckedPrecisely() throws {
        let c = try parse(
            """
            [coordinator]
            telemetry_hz = 20
            prediction_hz = 2.5
            failsafe_hover_after_ms = 3000
            failsafe_action_after_ms = 4000
            failsafe_action = "land"
            hop_limit = 12
            """
        ).coordinator
        #expect(c.telemetryHz == 20 && c.predictionHz == 2.5)
        #expect(c.failsafeHoverAfterMs == 3000 && c.failsafeActionAfterMs == 4000 && c.failsafeAction == .land)
        // The hop limit reaches the core: its routes and its messages' TTL.
        var core = CoordinatorConfiguration(nodeID: NodeID(high: 1, low: 2), role: .drone, name: "d1")
        #expect(core.hopLimit == 8)
        c.apply(to: &core)
        #expect(core.hopLimit == 12)
        #expect(error("[coordinator]\nhop_limit = 0").contains("[coordinator] hop_limit: must be 1–64 hops, found 0"))
        #expect(error("[coordinator]\nhop_limit = 8.5").contains("[coordinator] hop_limit: expected an integer"))
        #expect(
            error("[coordinator]\ntelemetry_hz = 0").contains("[coordinator] telemetry_hz: must be 1–50, found 0.0"))
        #expect(
            error("[coordinator]\nprediction_hz = \"fast\"").contains("[coordinator] prediction_hz: expected a number"))
        #expect(
            error("[coordinator]\nfailsafe_hover_after_ms = 50").contains("must be 100–600000 milliseconds, found 50"))
        #expect(
            error("[coordinator]\nfailsafe_action = \"panic\"").contains(
                "must be \"return_home\" or \"land\", found \"panic\""))
        #expect(error("[coordinator]\nheartbeat = 1").contains("heartbeat"))
    }
}

@Suite struct AvoidanceSettingsTests {
    func parse(_ text: String, role: String = "drone") throws -> NodeConfiguration {
        try NodeConfiguration.parse(
            "[node]\nname = \"d1\"\nrole = \"\(role)\"\nkey_file = \"mesh.key\"\n" + text, file: "d.toml",
            baseDirectory: "/tmp")
    }

    func error(_ text: String, role: String = "drone") -> String {
        do {
            _ = try parse(text, role: role)
            return "no error"
        } catch { return "\(error)" }
    }

    @Test func onByDefaultWithMRSSeparationsAndNoFence() throws {
        let a = try parse("").avoidance
        #expect(a.enabled && a.horizontalSeparation == 5 && a.verticalSeparation == 2.9 && a.geofence.isEmpty)
    }

    @Test func readsAFenceAndRefusesBadOnesPrecisely() throws {
        let a = try parse(
            """
            [avoidance]
            horizontal_separation = 6
            geofence = [[50.07, 14.43], [50.08, 14.43], [50.08, 14.45]]
            geofence_altitude = [3, 60]
            """
        ).avoidance
        #expect(a.horizontalSeparation == 6 && a.geofence.count == 3 && a.geofenceAltitude == [3, 60])
        #expect(
            error("[avoidance]\ngeofence = [[50.07, 14.43], [50.08, 14.43]]").contains(
                "[avoidance] geofence: needs at least 3 corners, found 2"))
        #expect(
            error("[avoidance]\ngeofence = [[50.07, 14.43], [95, 14.43], [50.0, 14.0]]").contains(
                "[avoidance] geofence[1]: expected [latitude, longitude]"))
        #expect(error("[avoidance]\ngeofence_altitude = [60, 3]").contains("minimum < maximum"))
        #expect(error("[avoidance]\nhorizontal_separation = 0").contains("must be 1–100 metres"))
        #expect(error("[avoidance]\nenabled = true", role: "station").contains("only drones avoid"))
    }
}
