import ControlProtocol
import Foundation
import LabKit
import Node
import Testing

/// The MAVLink bridge in real nodes: drones fly an autopilot emulator built on pymavlink (Tests/mavlink/
/// autopilot_emulator.py, ArduPilot or PX4 flavour) over UDP or a serial port, and a scripted ground station on
/// pymavlink (Tests/mavlink/gcs_client.py) talks to a station's ground-control endpoint. All inside the lab.
@Suite(.serialized) struct MAVLinkLabTests {
    static let emulator = repositoryRoot.appendingPathComponent("Tests/mavlink/autopilot_emulator.py").path
    static let gcsClient = repositoryRoot.appendingPathComponent("Tests/mavlink/gcs_client.py").path

    func vehicles(_ node: NodeProcess) throws -> [VehicleReport] {
        let r = try ControlClient.request(ControlRequest.vehicles, socket: node.socketPath, timeout: .seconds(2))
        guard let v = r.vehicles else { throw LabError(r.error ?? "no vehicles in the answer") }
        return v
    }

    func send(_ station: NodeProcess, _ args: [String], timeout: Int = 30) throws -> (status: Int32, output: String) {
        try shell([try fleetmeshBinary(), "send", "--node", station.socketPath, "--timeout", String(timeout)] + args)
    }

    /// The emulator's record of what it received, one JSON object per line.
    func events(_ path: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// COMMAND_LONG / COMMAND_INT events for one MAV_CMD.
    func commands(_ path: String, _ command: Int) -> [[String: Any]] {
        events(path).filter {
            ($0["type"] as? String)?.hasPrefix("COMMAND_") == true && ($0["command"] as? Int) == command
        }
    }

    func param(_ e: [String: Any], _ i: Int) -> Double? { (e["params"] as? [Any])?[i] as? Double }

    /// Runs the pymavlink ground station on `host` against `endpoint` and returns one JSON object per step.
    func groundStation(_ lab: Lab, host: Int, endpoint: String, steps: String) throws -> [[String: Any]] {
        let r = try shell(lab.onHost(host, ["python3", Self.gcsClient, "--connect", endpoint, "--steps", steps]))
        guard r.status == 0 else { throw LabError("gcs_client failed (\(r.status)):\n\(r.output)") }
        return r.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func aDroneFliesAnArduPilotOverUDPAndAGroundStationCommandsItThroughTheMesh() async throws {
        try await Lab.with(hosts: 2) { lab in
            let log = lab.directory.appendingPathComponent("ardupilot-events.jsonl").path
            // The autopilot sends to the bridge (like ArduPilot's --out); its first arming command goes unanswered.
            let autopilot = try lab.start(
                host: 2, tag: "ardupilot",
                [
                    "python3", "-u", Self.emulator, "--flavour", "ardupilot", "--sysid", "1",
                    "--link", "udpout:127.0.0.1:14601", "--events", log, "--ignore-first", "400",
                ])
            let station = try lab.startNode(
                host: 1, name: "station", role: "station", extra: "[ground_control]\nport = 14550")
            let drone = try lab.startNode(host: 2, name: "drone", extra: "[drone]\nvehicle = \"mavlink:udpin:14601\"")
            var number = 0
            let seen = try await waitUntil(
                "the station sees the autopilot's position under the drone's UAV number", timeout: .seconds(15)
            ) {
                guard let v = try vehicles(station).first(where: { !$0.stale && $0.uavNumber != nil }) else {
                    return false
                }
                number = v.uavNumber!
                return abs(v.latitude - 50.0901) < 1e-6 && abs(v.longitude - 14.4101) < 1e-6 && v.batteryPercent == 87
            }
            print("autopilot telemetry at the station \(seen) after start; UAV \(number)")
            #expect(
                drone.log.contains("autopilot connected: ardupilot autopilot, system id 1, component 1 on udpin:14601"))
            #expect(drone.log.contains("autopilot system id 1 differs from UAV number \(number)") || number == 1)
            // ArduPilot streams only what it is asked for: the bridge asked (SET_MESSAGE_INTERVAL for GLOBAL_POSITION_INT).
            #expect(commands(log, 511).contains { param($0, 0) == 33 })

            // Takeoff: GUIDED, arm (retried after the ignored first try, confirmation 1), NAV_TAKEOFF to 10 m above home.
            let takeoff = try send(station, [String(number), "takeoff", "10"])
            print(takeoff.output)
            #expect(takeoff.status == 0 && takeoff.output.contains("takeoff 10: completed"), "\(takeoff.output)")
            let modes = commands(log, 176)
            #expect(modes.first.flatMap { param($0, 1) } == 4)
            #expect(commands(log, 400).compactMap { $0["confirmation"] as? Int } == [0, 1])
            #expect(commands(log, 22).count == 1 && commands(log, 22).first.flatMap { param($0, 6) } == 10)
            #expect(drone.log.contains("no COMMAND_ACK for MAV_CMD_COMPONENT_ARM_DISARM, sending again"))
            let up = try #require(try vehicles(station).first { $0.uavNumber == number })
            #expect(up.armed && abs(up.altitude - 10) < 0.8 && !up.stale, "\(up)")

            // Goto 8 m north at 12 m: a position target in GUIDED, relative altitude.
            let north = up.latitude + 8 / 111_195.0
            let goto = try send(station, [String(number), "goto", String(north), String(up.longitude), "12"])
            #expect(goto.status == 0 && goto.output.contains("completed"), "\(goto.output)")
            let target = try #require(events(log).last { ($0["type"] as? String) == "SET_POSITION_TARGET_GLOBAL_INT" })
            #expect(target["frame"] as? Int == 6 && target["alt"] as? Double == 12)

            // A trajectory: a mission upload (ArduPilot's item 0 is home), AUTO, completed at the last waypoint.
            let east = up.longitude + 6 / (111_195.0 * cos(up.latitude * .pi / 180))
            let path = try send(
                station, [String(number), "trajectory", "\(north),\(east),12", "\(up.latitude),\(east),10"])
            #expect(path.status == 0 && path.output.contains("trajectory (2 points): completed"), "\(path.output)")
            let items = events(log).filter { $0["type"] as? String == "MISSION_ITEM_INT" }
            #expect(
                items.count == 3 && items.last?["frame"] as? Int == 3 && items.last?["z"] as? Double == 10, "\(items)")
            #expect(commands(log, 176).contains { param($0, 1) == 3 })
            #expect(events(log).contains { $0["type"] as? String == "MISSION_ITEM_REACHED" && $0["seq"] as? Int == 2 })

            // A ground station (pymavlink, on the station's host) sees UAV N, lands it, and is refused for a number no
            // drone holds.
            let unknown = uavNumberNobodyHolds([number])
            let gcs = try groundStation(
                lab, host: 1, endpoint: "127.0.0.1:14550",
                steps: """
                    [{"do":"heartbeats","seconds":2.5},
                     {"do":"long","sysid":\(number),"command":21},
                     {"do":"wait_alt","sysid":\(number),"alt":0,"tolerance":0.05,"timeout":20},
                     {"do":"texts","sysid":\(number),"seconds":2.5},
                     {"do":"long","sysid":\(unknown),"command":22,"params":[0,0,0,0,0,0,5]}]
                    """)
            print(gcs)
            let systems = try #require(gcs.first?["systems"] as? [String: [String: Any]])
            #expect(systems.keys.sorted() == [String(number)])
            #expect(systems[String(number)]?["autopilot"] as? Int == 0 && systems[String(number)]?["type"] as? Int == 2)
            #expect(gcs[1]["result"] as? Int == 0)
            #expect(gcs[2]["ok"] as? Bool == true)
            #expect((gcs[3]["texts"] as? [String])?.contains("land completed") == true)
            #expect(gcs[4]["result"] as? Int == 2)
            #expect(
                (gcs[4]["texts"] as? [String])?.joined().contains("rejected: unknown UAV number \(unknown)") == true)
            #expect(modes.count >= 1 && commands(log, 176).contains { param($0, 1) == 9 })
            #expect(
                station.log.contains(
                    "ground control 255: takeoff 5 for UAV \(unknown) rejected: unknown UAV number \(unknown)"))

            // The autopilot freezes: the drone reports it silent after 3 s and refuses commands; it recovers.
            let clock = ContinuousClock()
            autopilot.process.signal(SIGSTOP)
            let frozen = clock.now
            try await waitUntil("the drone reports the autopilot silent", timeout: .seconds(6), poll: .milliseconds(50))
            {
                drone.log.contains("autopilot silent")
            }
            let detected = clock.now - frozen
            print("autopilot silence reported \(detected) after SIGSTOP")
            #expect(detected >= .milliseconds(2000) && detected < .seconds(4.5))
            let refused = try send(station, [String(number), "takeoff", "5"])
            #expect(refused.status == 1 && refused.output.contains("rejected (autopilot silent"), "\(refused.output)")
            // Reported on the drone's status and, as link quality 0, in the station's fleet picture.
            let report = try #require(try drone.status().autopilot)
            #expect(report.silent && !report.connected && report.linkQuality == 0 && report.systemID == 1, "\(report)")
            try await waitUntil("the station sees link quality 0 for UAV \(number)", timeout: .seconds(2)) {
                try vehicles(station).first { $0.uavNumber == number }?.linkQuality == 0
            }
            func stationEvents() throws -> [String] {
                try ControlClient.request(
                    ControlRequest.events(.init(after: 0, limit: 1000)), socket: station.socketPath,
                    timeout: .seconds(2)
                ).events?.events.map(\.text) ?? []
            }
            try await waitUntil("the station's events say the flight controller is silent", timeout: .seconds(2)) {
                try stationEvents().contains {
                    $0.hasPrefix("UAV \(number) ") && $0.contains("flight controller is silent")
                }
            }
            autopilot.process.signal(SIGCONT)
            try await waitUntil("the autopilot is heard again", timeout: .seconds(5), poll: .milliseconds(50)) {
                drone.log.components(separatedBy: "autopilot connected:").count == 3
            }
            let again = try send(station, [String(number), "takeoff", "5"])
            #expect(again.status == 0 && again.output.contains("takeoff 5: completed"), "\(again.output)")
            #expect(
                try stationEvents().contains {
                    $0.hasPrefix("UAV \(number) ") && $0.contains("flight controller heard again")
                })
        }
    }

    @Test func aDroneFliesAPX4OverASerialPort() async throws {
        try await Lab.with(hosts: 2) { lab in
            let log = lab.directory.appendingPathComponent("px4-events.jsonl").path
            let ttyFile = lab.directory.appendingPathComponent("px4-tty").path
            _ = try lab.start(
                host: 2, tag: "px4",
                [
                    "python3", "-u", Self.emulator, "--flavour", "px4", "--sysid", "42",
                    "--link", "pty:\(ttyFile)", "--events", log, "--refuse-once", "400:1",
                ])
            try await waitUntil("the emulator's serial port exists", timeout: .seconds(5)) {
                FileManager.default.fileExists(atPath: ttyFile)
            }
            let tty = try String(contentsOfFile: ttyFile, encoding: .utf8)
            let station = try lab.startNode(host: 1, name: "station", role: "station")
            let drone = try lab.startNode(
                host: 2, name: "drone", extra: "[drone]\nuav_number = 7\nvehicle = \"mavlink:serial:\(tty):57600\"")
            try await waitUntil("the station sees UAV 7 at the autopilot's position", timeout: .seconds(15)) {
                try vehicles(station).contains { $0.uavNumber == 7 && !$0.stale && abs($0.latitude - 50.0901) < 1e-6 }
            }
            #expect(drone.log.contains("autopilot connected: px4 autopilot, system id 42"))
            let report = try #require(try drone.status().autopilot)
            #expect(
                report.connected && report.autopilot == "px4" && report.systemID == 42 && report.mode == "AUTO.LOITER"
                    && report.link == "serial:\(tty):57600" && report.framesSent > 0, "\(report)")
            let text = try shell([try fleetmeshBinary(), "status", "--node", drone.socketPath]).output
            #expect(
                text.contains("autopilot px4 system 42 on serial:\(tty):57600: connected   mode AUTO.LOITER"), "\(text)"
            )
            #expect(drone.log.contains("autopilot system id 42 differs from UAV number 7"))

            // The first arming is refused: the command is refused with the autopilot's reason, and nothing flies.
            let refused = try send(station, ["7", "takeoff", "8"])
            #expect(refused.status == 1, "\(refused.output)")
            #expect(
                refused.output.contains(
                    "autopilot refused MAV_CMD_COMPONENT_ARM_DISARM: MAV_RESULT_TEMPORARILY_REJECTED"),
                "\(refused.output)")
            #expect(commands(log, 22).isEmpty)
            // PX4's takeoff altitude is above mean sea level: home 300 m + 8 m.
            let takeoff = try send(station, ["7", "takeoff", "8"])
            #expect(takeoff.status == 0 && takeoff.output.contains("takeoff 8: completed"), "\(takeoff.output)")
            #expect(commands(log, 22).first.flatMap { param($0, 6) } == 308)
            let up = try #require(try vehicles(station).first { $0.uavNumber == 7 })

            // Goto: DO_REPOSITION as COMMAND_INT (AMSL, ground speed).
            let east = up.longitude + 10 / (111_195.0 * cos(up.latitude * .pi / 180))
            let goto = try send(station, ["7", "goto", String(up.latitude), String(east), "8", "3"])
            #expect(goto.status == 0 && goto.output.contains("completed"), "\(goto.output)")
            let reposition = try #require(commands(log, 192).first)
            #expect(reposition["type"] as? String == "COMMAND_INT" && reposition["frame"] as? Int == 0)
            #expect(reposition["z"] as? Double == 308 && param(reposition, 0) == 3)

            // Follow a target: OFFBOARD, entered only after the setpoint stream started (PX4 refuses it otherwise).
            let north = up.latitude + 6 / 111_195.0
            let follow = try shell([
                try fleetmeshBinary(), "target", "--node", station.socketPath, "--uav", "7", "--follow",
                String(north), String(east), "9",
            ])
            #expect(follow.status == 0 && follow.output.contains("follow: accepted, completed"), "\(follow.output)")
            #expect(commands(log, 176).contains { param($0, 1) == 6 })
            try await waitUntil("UAV 7 follows the target", timeout: .seconds(10)) {
                guard let v = try vehicles(station).first(where: { $0.uavNumber == 7 }) else { return false }
                return abs(v.latitude - north) * 111_195 < 1 && abs(v.altitude - 9) < 0.7 && v.activity == "following"
            }

            // Return: NAV_RETURN_TO_LAUNCH, completed when landed and disarmed at home.
            let rtl = try send(station, ["7", "rtl"], timeout: 40)
            #expect(rtl.status == 0 && rtl.output.contains("rtl: completed"), "\(rtl.output)")
            #expect(commands(log, 20).count == 1)
            // The station's picture follows with the next telemetry sample (10 Hz).
            try await waitUntil("the station sees UAV 7 landed and disarmed at home", timeout: .seconds(2)) {
                guard let v = try vehicles(station).first(where: { $0.uavNumber == 7 }) else { return false }
                return !v.armed && v.activity == "landed" && abs(v.latitude - 50.0901) < 1e-5
                    && abs(v.longitude - 14.4101) < 1e-5
            }
        }
    }

    @Test("a ground station receives every stream at its documented rate, within 2 % over 20 s")
    func groundControlStreamsKeepTheirDocumentedRates() async throws {
        try await Lab.with(hosts: 2) { lab in
            let station = try lab.startNode(
                host: 1, name: "station", role: "station", extra: "[ground_control]\nport = 14550",
                logLevel: "info")
            _ = try lab.startNode(host: 2, name: "drone-2", logLevel: "info")
            var number = 0
            try await waitUntil("the station sees the drone with a number", timeout: .seconds(15)) {
                number = try vehicles(station).first { !$0.stale }?.uavNumber ?? 0
                return number > 0
            }
            // From host 2, across the lab's bridge: the GCS hears the station's streams as QGroundControl would.
            let gcs = try groundStation(
                lab, host: 2, endpoint: "\(try lab.address(1)):14550",
                steps: """
                    [{"do":"heartbeats","seconds":1.5},
                     {"do":"rates","sysid":\(number),"seconds":20}]
                    """)
            let rates = try #require(gcs.last?["rates"] as? [String: Double], "\(gcs)")
            let documented: [String: Double] = [
                "HEARTBEAT": 1, "SYS_STATUS": 1, "BATTERY_STATUS": 1, "EXTENDED_SYS_STATE": 1,
                "GLOBAL_POSITION_INT": 5, "ATTITUDE": 5, "VFR_HUD": 2,
            ]
            for (stream, hz) in documented.sorted(by: { $0.key < $1.key }) {
                let got = rates[stream] ?? 0
                print("ground-control stream \(stream): \(String(format: "%.3f", got)) Hz (documented \(hz) Hz)")
                #expect(abs(got - hz) / hz <= 0.02, "\(stream): \(got) Hz, documented \(hz) Hz")
            }
        }
    }

    @Test func groundControlSoftwareFindsTheStationAndCommandsEveryDroneByItsNumber() async throws {
        try await Lab.with(hosts: 3) { lab in
            let station = try lab.startNode(
                host: 1, name: "station", role: "station",
                extra: "[mission]\norigin = [50.0755, 14.4378, 235]\n[ground_control]\nport = 14550")
            _ = try lab.startNode(host: 2, name: "drone-2")
            _ = try lab.startNode(host: 3, name: "drone-3")
            var numbers: [Int] = []
            // Two distinct numbers: while the mesh settles a clash, or before a drone is known by its own name, the
            // station can list two vehicles under one number (a CI run went on with 42 and 42, and commanded 42 twice).
            try await waitUntil("the station sees both drones with numbers of their own", timeout: .seconds(15)) {
                numbers = try vehicles(station).filter { !$0.stale }.compactMap(\.uavNumber).sorted()
                return numbers.count == 2 && Set(numbers).count == 2
            }
            // QGroundControl's way in: the station's _mavlink._udp record, resolved by host 3's avahi-daemon.
            var endpoint = ""
            let stationAddress = try lab.address(1)
            try await waitUntil(
                "host 3 resolves the station's _mavlink._udp record", timeout: .seconds(10), poll: .milliseconds(200)
            ) {
                let r = try shell(lab.onHost(3, ["avahi-browse", "-ptkr", "_mavlink._udp"]))
                guard
                    let line = r.output.split(separator: "\n").first(where: {
                        $0.hasPrefix("=;") && $0.contains(";IPv4;station;_mavlink._udp;")
                    })
                else { return false }
                let f = line.split(separator: ";", omittingEmptySubsequences: false)
                guard f.count > 8 else { return false }
                // The record's address is whichever the resolver got first: over mDNS on IPv4 that may be the host's
                // IPv6 link-local address (a CI run resolved fe80::…). The host name's IPv4 address, as a ground
                // station that prefers IPv4 asks for it:
                var address = String(f[7])
                if address.contains(":") {
                    let a = try shell(lab.onHost(3, ["avahi-resolve-host-name", "-4", String(f[6])]))
                    guard a.status == 0, let v4 = a.output.split(whereSeparator: \.isWhitespace).last else {
                        return false
                    }
                    address = String(v4)
                }
                endpoint = "\(address):\(f[8])"
                return true
            }
            #expect(endpoint == "\(stationAddress):14550")
            // The station publishes two records (_fleetmesh._udp, _mavlink._udp) and browses peers and target
            // sources through one Avahi client: one connection to its host's D-Bus system bus.
            let buses = try shell(
                lab.onHost(1, ["busctl", "--system", "list", "--unique", "--no-pager", "--no-legend"]))
            let clients = buses.output.split(separator: "\n").filter {
                $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(2).first == "fleetmesh"
            }
            #expect(clients.count == 1, "the station's D-Bus connections:\n\(buses.output)")
            #expect(station.log.contains("subscribing to target sources"))
            let (a, b) = (numbers[0], numbers[1])
            let unknown = uavNumberNobodyHolds(numbers)
            let start = try #require(try vehicles(station).first { $0.uavNumber == a })
            let north = start.latitude + 10 / 111_195.0
            let gcs = try groundStation(
                lab, host: 3, endpoint: endpoint,
                steps: """
                    [{"do":"heartbeats","seconds":2.5},
                     {"do":"params","sysid":\(a)},
                     {"do":"long","sysid":\(a),"command":22,"params":[0,0,0,0,0,0,6]},
                     {"do":"wait_alt","sysid":\(a),"alt":6,"tolerance":0.5,"timeout":15},
                     {"do":"int","sysid":\(a),"command":192,"frame":6,"params":[-1,1,0,NaN],"x":\(Int((north * 1e7).rounded())),"y":\(Int((start.longitude * 1e7).rounded())),"z":6},
                     {"do":"wait_pos","sysid":\(a),"lat":\(north),"lon":\(start.longitude),"radius":1.0,"timeout":15},
                     {"do":"long","sysid":\(b),"command":21},
                     {"do":"long","sysid":\(unknown),"command":22,"params":[0,0,0,0,0,0,5]},
                     {"do":"long","sysid":\(b),"command":400,"params":[1]}]
                    """)
            print(gcs)
            let systems = try #require(gcs[0]["systems"] as? [String: [String: Any]])
            #expect(Set(systems.keys) == [String(a), String(b)])
            for (_, s) in systems {
                #expect(s["type"] as? Int == 2 && s["autopilot"] as? Int == 0 && s["component"] as? Int == 1)
                let kinds = Set(s["messages"] as? [String] ?? [])
                #expect(
                    kinds.isSuperset(of: [
                        "HEARTBEAT", "GLOBAL_POSITION_INT", "ATTITUDE", "SYS_STATUS", "BATTERY_STATUS", "VFR_HUD",
                        "EXTENDED_SYS_STATE", "HOME_POSITION",
                    ]), "\(kinds)")
            }
            #expect((gcs[1]["params"] as? [[Any]])?.first?[1] as? Double == Double(a))
            // Takeoff accepted (ACK from system a), altitude reached as GLOBAL_POSITION_INT shows (AMSL = origin 235 m + 6).
            #expect(gcs[2]["result"] as? Int == 0, "\(gcs[2])")
            #expect(gcs[3]["ok"] as? Bool == true, "\(gcs[3])")
            #expect(abs((gcs[3]["alt"] as? Double ?? 0) - 241) < 0.6)
            #expect(gcs[4]["result"] as? Int == 0 && gcs[5]["ok"] as? Bool == true, "\(gcs[4]) \(gcs[5])")
            // Drone b is on the ground: land is refused by its vehicle (DENIED, with the reason).
            #expect(
                gcs[6]["result"] as? Int == 2
                    && (gcs[6]["texts"] as? [String])?.contains("land rejected: not airborne") == true, "\(gcs[6])")
            #expect(gcs[7]["result"] as? Int == 2, "\(gcs[7])")
            #expect(
                (gcs[7]["texts"] as? [String])?.joined().contains("rejected: unknown UAV number \(unknown)") == true)
            #expect(
                gcs[8]["result"] as? Int == 2
                    && (gcs[8]["texts"] as? [String])?.first?.contains("arms as part of takeoff") == true)
            // The station's own picture agrees.
            let flown = try #require(try vehicles(station).first { $0.uavNumber == a })
            #expect(abs(flown.altitude - 6) < 0.6 && abs(flown.latitude - north) * 111_195 < 1.2)
            #expect(station.log.contains("ground control: \(try lab.address(3)):"))
        }
    }
}
