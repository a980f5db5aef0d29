import Coordinator
import Flight
import MAVLink
import MeshTypes
import Testing

@testable import MAVLinkBridge

/// A ground-control program as the tests see it: sysid 255, compid 190, at address "qgc".
struct FakeGCS {
    var encoder = MAVLinkEncoder(systemID: 255, componentID: 190)
    mutating func bytes(_ m: some MAVLinkMessageType) -> [UInt8] {
        encoder.encode(m, now: MAVLinkTimestamp(rawValue: 0))
    }
    mutating func heartbeat() -> [UInt8] { bytes(Heartbeat(type: .gcs, autopilot: .invalid)) }
    mutating func long(_ cmd: MAVCmd, to target: UInt8, confirmation: UInt8 = 0, _ p: [Float] = []) -> [UInt8] {
        let v = p + Array(repeating: 0, count: max(0, 7 - p.count))
        return bytes(
            CommandLong(
                targetSystem: target, targetComponent: 1, command: cmd, confirmation: confirmation,
                param1: v[0], param2: v[1], param3: v[2], param4: v[3], param5: v[4], param6: v[5], param7: v[6]))
    }
}

typealias Bridge = GroundControlBridge<String>

/// (destination, frame) for every send.
func framesSent(_ directives: [Bridge.Directive]) -> [(String, MAVLinkFrame)] {
    var out: [(String, MAVLinkFrame)] = []
    for case .send(let bytes, let to) in directives {
        var parser = MAVLinkParser()
        for case .frame(let f) in parser.feed(bytes) { out.append((to, f)) }
    }
    return out
}

func acks(_ directives: [Bridge.Directive]) -> [(from: UInt8, ack: CommandAck)] {
    framesSent(directives).compactMap {
        if case .commandAck(let a) = $0.1.message { return ($0.1.systemID, a) } else { return nil }
    }
}

func texts(_ directives: [Bridge.Directive]) -> [String] {
    framesSent(directives).compactMap {
        if case .statustext(let t) = $0.1.message { return t.text } else { return nil }
    }
}

func meshCommands(_ directives: [Bridge.Directive]) -> [(Command, UInt8, UInt64)] {
    directives.compactMap { if case .command(let c, let n, let t) = $0 { return (c, n, t) } else { return nil } }
}

func state(
    _ lat: Double = 50.1, _ lon: Double = 14.4, alt: Double = 0, activity: Activity = .landed,
    armed: Bool = false,
    battery: UInt8 = 80
) -> Coordinator.VehicleState {
    Coordinator.VehicleState(
        position: GeoPoint(latitude: lat, longitude: lon, altitude: alt), velocityNorthCmS: 100,
        velocityEastCmS: 0, velocityDownCmS: -50, headingCentidegrees: 9000, batteryPercent: battery,
        activity: activity, armed: armed, linkQuality: 100)
}

/// A bridge that knows UAV 7 (landed) and UAV 12 (hovering at 10 m) and has heard the GCS at "qgc".
func bridge(origin: Double? = 250) -> (Bridge, FakeGCS) {
    var b = Bridge()
    var g = FakeGCS()
    _ = b.tick(
        vehicles: [
            .init(uavNumber: 7, state: state(), isStale: false),
            .init(uavNumber: 12, state: state(alt: 10, activity: .hovering, armed: true), isStale: false),
        ],
        originAltitude: origin, now: at(0))
    _ = b.receive(g.heartbeat(), from: "qgc", now: at(1))
    return (b, g)
}

@Suite("Ground-control bridge (station side)")
struct GroundControlBridgeTests {
    @Test(
        "every fresh vehicle streams under its UAV number to every peer and fixed destination; stale ones and no listeners mean nothing"
    )
    func streams() {
        var b = Bridge(fixedDestinations: ["fixed"])
        let fleet: [Bridge.Vehicle] = [
            .init(uavNumber: 7, state: state(alt: 12, activity: .hovering, armed: true), isStale: false),
            .init(uavNumber: 9, state: state(), isStale: true),
        ]
        var g = FakeGCS()
        _ = b.receive(g.heartbeat(), from: "qgc", now: at(0))
        let d = b.tick(vehicles: fleet, originAltitude: 250, now: at(20))
        let sent = framesSent(d)
        #expect(Set(sent.map(\.0)) == ["fixed", "qgc"])
        #expect(sent.allSatisfy { $0.1.systemID == 7 && $0.1.componentID == 1 })
        let names = Set(sent.map { $0.1.message.name })
        #expect(
            names.isSuperset(of: [
                "HEARTBEAT", "GLOBAL_POSITION_INT", "ATTITUDE", "SYS_STATUS", "BATTERY_STATUS", "VFR_HUD",
                "EXTENDED_SYS_STATE",
            ]))
        for (_, f) in sent {
            switch f.message {
            case .heartbeat(let h):
                #expect(h.type == .quadrotor && h.autopilot == .generic && h.baseMode.contains(.safetyArmed))
                #expect(h.customMode == UInt32(Activity.hovering.wireValue) && h.systemStatus == .active)
            case .globalPositionInt(let p):
                #expect(p.relativeAlt == 12_000 && p.alt == 262_000 && p.vx == 100 && p.vz == -50 && p.hdg == 9000)
            case .sysStatus(let s):
                #expect(s.batteryRemaining == 80)
            case .extendedSysState(let e):
                #expect(e.landedState == .inAir)
            default: break
            }
        }
        // Sequence numbers count per vehicle.
        #expect(sent.filter { $0.0 == "qgc" }.map(\.1.sequence) == Array(0..<UInt8(sent.count / 2)))
        // Heartbeats once a second, positions five times a second.
        var beats = 0, positions = 0
        for t in stride(from: 30, through: 1030, by: 50) {
            for (to, f) in framesSent(b.tick(vehicles: fleet, originAltitude: 250, now: at(t))) where to == "qgc" {
                if f.message.name == "HEARTBEAT" { beats += 1 }
                if f.message.name == "GLOBAL_POSITION_INT" { positions += 1 }
            }
        }
        #expect(beats == 1 && positions == 5)
    }

    @Test("peers: joined on their first frame, left after 10 s of silence; nothing is streamed to nobody")
    func peers() {
        var b = Bridge()
        let fleet: [Bridge.Vehicle] = [.init(uavNumber: 7, state: state(), isStale: false)]
        #expect(b.tick(vehicles: fleet, originAltitude: nil, now: at(0)).isEmpty)
        var g = FakeGCS()
        let joined = b.receive(g.heartbeat(), from: "qgc", now: at(100))
        #expect(joined.count == 1)
        if case .peerJoined(let p) = joined.first {
            #expect(p.systemID == 255 && p.sendsHeartbeats)
        } else {
            Issue.record("no join")
        }
        #expect(b.receive(g.heartbeat(), from: "qgc", now: at(1100)).isEmpty)
        #expect(
            !b.tick(vehicles: fleet, originAltitude: nil, now: at(11_000)).contains {
                if case .peerLeft = $0 { return true } else { return false }
            })
        let left = b.tick(vehicles: fleet, originAltitude: nil, now: at(11_200))
        #expect(left.contains { if case .peerLeft = $0 { return true } else { return false } })
        #expect(framesSent(b.tick(vehicles: fleet, originAltitude: nil, now: at(13_000))).isEmpty)
    }

    @Test(
        "NAV_TAKEOFF becomes a FleetMesh takeoff; the answers become COMMAND_ACK from the UAV, and a STATUSTEXT on completion"
    )
    func takeoff() {
        var (b, g) = bridge()
        var d = b.receive(g.long(.navTakeoff, to: 7, [0, 0, 0, 0, 0, 0, 15]), from: "qgc", now: at(100))
        let cmds = meshCommands(d)
        #expect(cmds.count == 1 && cmds[0].0 == .takeoff(altitudeMillimetres: 15_000) && cmds[0].1 == 7)
        #expect(acks(d).isEmpty)
        d = b.onAnswer(ticket: cmds[0].2, .accepted, now: at(130))
        let a = acks(d)
        #expect(a.count == 1 && a[0].from == 7 && a[0].ack.command == .navTakeoff && a[0].ack.result == .accepted)
        #expect(a[0].ack.targetSystem == 255 && a[0].ack.targetComponent == 190)
        d = b.onAnswer(ticket: cmds[0].2, .completed, now: at(3000))
        #expect(acks(d).isEmpty)
        #expect(texts(d) == ["takeoff 15 completed"])
        // No altitude: the default 10 m.
        d = b.receive(g.long(.navTakeoff, to: 7, [0, 0, 0, 0, 0, 0, .nan]), from: "qgc", now: at(4000))
        #expect(meshCommands(d).first?.0 == .takeoff(altitudeMillimetres: 10_000))
    }

    @Test("refusals map to MAV_RESULT with a STATUSTEXT naming the reason")
    func refusals() {
        var (b, g) = bridge()
        func ask(_ target: UInt8, _ answer: CommandAnswer) -> [Bridge.Directive] {
            let d = b.receive(g.long(.navLand, to: target), from: "qgc", now: at(100))
            return b.onAnswer(ticket: meshCommands(d)[0].2, answer, now: at(110))
        }
        var d = ask(200, .rejected(.unknownUAVNumber(200)))
        #expect(acks(d).map(\.ack.result) == [.denied] && acks(d).first?.from == 200)
        #expect(texts(d) == ["land rejected: unknown UAV number 200"])
        #expect(
            d.contains {
                if case .note(let t) = $0 { return t.contains("unknown UAV number 200") } else { return false }
            })
        d = ask(12, .rejected(.controlledBy("station-b")))
        #expect(acks(d).map(\.ack.result) == [.denied] && texts(d) == ["land rejected: controlled by station-b"])
        d = ask(12, .rejected(.contestedNumber(12)))
        #expect(acks(d).map(\.ack.result) == [.temporarilyRejected])
        d = ask(12, .rejected(.vehicle("not airborne")))
        #expect(acks(d).map(\.ack.result) == [.denied])
        d = ask(12, .failed("no answer from UAV 12"))
        #expect(acks(d).map(\.ack.result) == [.failed] && texts(d) == ["land failed: no answer from UAV 12"])
        #expect(Bridge.result(for: .targetRestarted) == .temporarilyRejected)
        #expect(Bridge.result(for: .vehicle("autopilot silent (no HEARTBEAT for 3.1 s)")) == .temporarilyRejected)
        #expect(
            Bridge.result(for: .vehicle("autopilot refused MAV_CMD_NAV_TAKEOFF: MAV_RESULT_UNSUPPORTED"))
                == .unsupported)
        #expect(Bridge.result(for: .vehicle("autopilot did not acknowledge MAV_CMD_DO_SET_MODE")) == .failed)
    }

    @Test(
        "a retransmission (confirmation > 0) is answered IN_PROGRESS while pending, then with the same result; it never runs twice"
    )
    func retransmission() {
        var (b, g) = bridge()
        var d = b.receive(g.long(.navLand, to: 12), from: "qgc", now: at(100))
        let ticket = meshCommands(d)[0].2
        d = b.receive(g.long(.navLand, to: 12, confirmation: 1), from: "qgc", now: at(600))
        #expect(meshCommands(d).isEmpty && acks(d).map(\.ack.result) == [.inProgress])
        _ = b.onAnswer(ticket: ticket, .accepted, now: at(700))
        d = b.receive(g.long(.navLand, to: 12, confirmation: 2), from: "qgc", now: at(1100))
        #expect(meshCommands(d).isEmpty && acks(d).map(\.ack.result) == [.accepted])
        // A fresh request (confirmation 0) is a new command.
        d = b.receive(g.long(.navLand, to: 12), from: "qgc", now: at(9000))
        #expect(meshCommands(d).count == 1)
    }

    @Test("goto: DO_REPOSITION (LONG: relative altitude; INT: its frame), SET_POSITION_TARGET_GLOBAL_INT deduplicated")
    func gotos() {
        var (b, g) = bridge(origin: 250)
        var d = b.receive(
            g.long(.doReposition, to: 12, [3, 0, 0, .nan, 50.1002, 14.4003, 20]), from: "qgc", now: at(100))
        // COMMAND_LONG carries degrees as 32-bit floats: about 1 m of resolution at 50°.
        guard case .goto(let p, 300)? = meshCommands(d).first?.0 else {
            Issue.record("no goto at 3 m/s")
            return
        }
        #expect(
            abs(p.latitude - 50.1002) < 1e-5 && abs(p.longitude - 14.4003) < 1e-5 && p.altitudeMillimetres == 20_000)
        // NaN latitude and longitude: here, at the new altitude.
        d = b.receive(g.long(.doReposition, to: 12, [-1, 0, 0, .nan, .nan, .nan, 25]), from: "qgc", now: at(200))
        #expect(meshCommands(d).first?.0 == .goto(GeoPoint(latitude: 50.1, longitude: 14.4, altitude: 25), speedCmS: 0))
        d = b.receive(
            g.bytes(
                CommandInt(
                    targetSystem: 12, targetComponent: 1, frame: .global, command: .doReposition,
                    param1: -1, param4: .nan, x: 501_001_000, y: 144_002_000, z: 270)), from: "qgc", now: at(300))
        #expect(
            meshCommands(d).first?.0
                == .goto(
                    GeoPoint(latitudeE7: 501_001_000, longitudeE7: 144_002_000, altitudeMillimetres: 20_000),
                    speedCmS: 0))
        let target = SetPositionTargetGlobalInt(
            targetSystem: 12, targetComponent: 1, coordinateFrame: .globalRelativeAltInt,
            typeMask: [.vxIgnore, .vyIgnore, .vzIgnore, .axIgnore, .ayIgnore, .azIgnore, .yawIgnore, .yawRateIgnore],
            latInt: 501_000_500, lonInt: 144_000_000, alt: 11)
        d = b.receive(g.bytes(target), from: "qgc", now: at(400))
        let sent = meshCommands(d)
        #expect(
            sent.first?.0
                == .goto(
                    GeoPoint(latitudeE7: 501_000_500, longitudeE7: 144_000_000, altitudeMillimetres: 11_000),
                    speedCmS: 0))
        #expect(b.receive(g.bytes(target), from: "qgc", now: at(500)).isEmpty)
        // Not acknowledged in MAVLink: a refusal is a STATUSTEXT.
        d = b.onAnswer(ticket: sent[0].2, .rejected(.vehicle("not airborne")), now: at(600))
        #expect(acks(d).isEmpty && texts(d).joined() == "goto 50.10005 14.4 11 rejected: not airborne")
        // Velocity-only targets are not supported.
        var vel = target
        vel.typeMask = [.xIgnore, .yIgnore, .zIgnore]
        #expect(texts(b.receive(g.bytes(vel), from: "qgc", now: at(700))) == ["only position targets are supported"])
    }

    @Test("MANUAL_CONTROL: z from 0…1000 (500 = centre) to −1000…1000; unknown targets get one STATUSTEXT")
    func manual() {
        var (b, g) = bridge()
        let d = b.receive(
            g.bytes(MAVLink.ManualControl(target: 12, x: 500, y: -300, z: 750, r: 10, buttons: 3)), from: "qgc",
            now: at(100))
        #expect(d == [.manualControl(Coordinator.ManualControl(x: 500, y: -300, z: 500, r: 10, buttons: 3), uav: 12)])
        let unknown = b.receive(g.bytes(MAVLink.ManualControl(target: 99, z: 500)), from: "qgc", now: at(200))
        #expect(texts(unknown) == ["UAV 99 is not in the mesh"])
        #expect(b.receive(g.bytes(MAVLink.ManualControl(target: 99, z: 500)), from: "qgc", now: at(300)).isEmpty)
    }

    @Test("modes: DO_SET_MODE and SET_MODE with the activity codes; SET_MODE is acknowledged as command 11")
    func modes() {
        var (b, g) = bridge()
        var d = b.receive(g.long(.doSetMode, to: 12, [1, 7]), from: "qgc", now: at(100))
        #expect(meshCommands(d).first?.0 == .returnToLaunch)
        d = b.receive(
            g.bytes(SetMode(targetSystem: 12, baseMode: MAVMode(rawValue: 1), customMode: 2)), from: "qgc", now: at(200)
        )
        let t = meshCommands(d)
        #expect(t.first?.0 == .hover)
        d = b.onAnswer(ticket: t[0].2, .accepted, now: at(210))
        #expect(acks(d).first?.ack.command.rawValue == 11 && acks(d).first?.ack.result == .accepted)
        d = b.receive(g.long(.doSetMode, to: 12, [1, 3]), from: "qgc", now: at(300))
        #expect(meshCommands(d).isEmpty && acks(d).map(\.ack.result) == [.denied])
    }

    @Test(
        "local answers: arming, unsupported commands, broadcast and out-of-range targets, parameters, missions, capabilities"
    )
    func localAnswers() {
        var (b, g) = bridge()
        var d = b.receive(g.long(.componentArmDisarm, to: 7, [1]), from: "qgc", now: at(100))
        #expect(acks(d).map(\.ack.result) == [.denied] && texts(d).first?.contains("arms as part of takeoff") == true)
        d = b.receive(g.long(.componentArmDisarm, to: 12, [1]), from: "qgc", now: at(100))
        #expect(acks(d).map(\.ack.result) == [.accepted])
        d = b.receive(g.long(.doFlighttermination, to: 12, [1]), from: "qgc", now: at(100))
        #expect(acks(d).map(\.ack.result) == [.unsupported] && meshCommands(d).isEmpty)
        d = b.receive(g.long(.navLand, to: 0), from: "qgc", now: at(100))
        #expect(acks(d).map(\.from) == [251] && acks(d).map(\.ack.result) == [.denied])
        d = b.receive(g.long(.navLand, to: 252), from: "qgc", now: at(100))
        #expect(acks(d).map(\.ack.result) == [.denied] && meshCommands(d).isEmpty)
        d = b.receive(g.bytes(ParamRequestList(targetSystem: 7, targetComponent: 1)), from: "qgc", now: at(100))
        if case .paramValue(let p)? = framesSent(d).first?.1.message {
            #expect(p.paramId == "FM_UAV_NUMBER" && p.paramValue == 7 && p.paramCount == 1)
        } else {
            Issue.record("no PARAM_VALUE")
        }
        d = b.receive(g.bytes(MissionRequestList(targetSystem: 7, targetComponent: 1)), from: "qgc", now: at(100))
        if case .missionCount(let c)? = framesSent(d).first?.1.message {
            #expect(c.count == 0)
        } else {
            Issue.record("no MISSION_COUNT")
        }
        d = b.receive(g.long(.requestMessage, to: 7, [Float(AutopilotVersion.id)]), from: "qgc", now: at(100))
        #expect(
            framesSent(d).contains {
                if case .autopilotVersion(let v) = $0.1.message {
                    return v.capabilities.contains(.mavlink2)
                } else {
                    return false
                }
            })
        _ = b.tick(vehicles: [.init(uavNumber: 7, state: state(), isStale: false)], originAltitude: 250, now: at(200))
        d = b.receive(g.long(.getHomePosition, to: 7), from: "qgc", now: at(300))
        #expect(
            framesSent(d).contains {
                if case .homePosition(let h) = $0.1.message {
                    return h.altitude == 250_000 && h.latitude == 501_000_000
                } else {
                    return false
                }
            })
    }

    @Test("a mission upload becomes a trajectory command; its MISSION_ACK follows the mesh's verdict")
    func missionUpload() {
        var (b, g) = bridge()
        var d = b.receive(
            g.bytes(MissionCount(targetSystem: 12, targetComponent: 1, count: 2)), from: "qgc", now: at(100))
        guard case .missionRequestInt(let r)? = framesSent(d).first?.1.message else {
            Issue.record("no request")
            return
        }
        #expect(r.seq == 0 && r.targetSystem == 255)
        d = b.receive(
            g.bytes(
                MissionItemInt(
                    targetSystem: 12, targetComponent: 1, seq: 0, frame: .globalRelativeAlt, command: .navWaypoint,
                    x: 501_001_000, y: 144_000_000, z: 10)), from: "qgc", now: at(110))
        guard case .missionRequestInt(let r1)? = framesSent(d).first?.1.message else {
            Issue.record("no request")
            return
        }
        #expect(r1.seq == 1)
        d = b.receive(
            g.bytes(
                MissionItemInt(
                    targetSystem: 12, targetComponent: 1, seq: 1, frame: .global, command: .navWaypoint,
                    x: 501_002_000, y: 144_000_000, z: 262)), from: "qgc", now: at(120))
        let cmd = try! #require(meshCommands(d).first)
        #expect(
            cmd.0
                == .trajectory([
                    GeoPoint(latitudeE7: 501_001_000, longitudeE7: 144_000_000, altitudeMillimetres: 10_000),
                    GeoPoint(latitudeE7: 501_002_000, longitudeE7: 144_000_000, altitudeMillimetres: 12_000),
                ]))
        d = b.onAnswer(
            ticket: cmd.2, .rejected(.vehicle("trajectory upload is not supported by the simulated vehicle")),
            now: at(130))
        #expect(
            framesSent(d).contains {
                if case .missionAck(let a) = $0.1.message { return a.type == .mavMissionDenied } else { return false }
            })
    }

    @Test("frames of our own vehicles coming back are ignored; long STATUSTEXTs are chunked")
    func echoesAndChunks() {
        var (b, _) = bridge()
        var echo = MAVLinkEncoder(systemID: 12, componentID: 1)
        #expect(
            b.receive(
                echo.encode(CommandLong(targetSystem: 7, command: .navLand), now: MAVLinkTimestamp(rawValue: 0)),
                from: "router", now: at(100)
            ).isEmpty)
        #expect(Bridge.chunks(String(repeating: "a", count: 120)).map(\.count) == [50, 50, 20])
        #expect(Bridge.chunks(String(repeating: "b", count: 100)).map(\.count) == [50, 50, 0])
        #expect(Bridge.chunks(String(repeating: "c", count: 50)).map(\.count) == [50])
    }
}

extension MAVLinkMessage {
    /// The MAVLink name of a decoded message (tests only).
    var name: String {
        switch self {
        case .heartbeat: return "HEARTBEAT"
        case .globalPositionInt: return "GLOBAL_POSITION_INT"
        case .attitude: return "ATTITUDE"
        case .sysStatus: return "SYS_STATUS"
        case .batteryStatus: return "BATTERY_STATUS"
        case .vfrHud: return "VFR_HUD"
        case .extendedSysState: return "EXTENDED_SYS_STATE"
        case .homePosition: return "HOME_POSITION"
        default: return "other"
        }
    }
}
