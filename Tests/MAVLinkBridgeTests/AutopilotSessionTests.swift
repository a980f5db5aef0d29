import Coordinator
import MAVLink
import MeshTypes
import Testing

@testable import MAVLinkBridge

@Suite("Autopilot session (drone side)")
struct AutopilotSessionTests {
    @Test(
        "commands before any HEARTBEAT are refused; the bridge heartbeats as a GCS and asks for streams once connected")
    func connecting() {
        var s = AutopilotSession()
        #expect(
            s.execute(testID, .takeoff(altitudeMillimetres: 5000), now: at(0)) == [
                .verdict(testID, .rejected("autopilot not connected (no HEARTBEAT yet)"))
            ])
        let first = s.tick(now: at(0))
        let hb = sentFrames(first)
        #expect(hb.count == 1 && hb[0].systemID == 255 && hb[0].componentID == 190)
        if case .heartbeat(let h) = hb[0].message {
            #expect(h.type == .gcs && h.autopilot == .invalid)
        } else {
            Issue.record("not a heartbeat")
        }

        var ap = FakeAutopilot(systemID: 7, flavour: .px4)
        let d = s.receive(
            ap.heartbeat(mode: AutopilotFlavour.px4CustomMode(main: 4, sub: 3)), endOfDatagram: true, now: at(10))
        #expect(d.contains(.connected(.init(systemID: 7, componentID: 1, flavour: .px4, type: .quadrotor))))
        #expect(d.contains(.modeChanged("AUTO.LOITER")))
        // No position yet: refused with that reason.
        #expect(
            s.execute(testID, .takeoff(altitudeMillimetres: 5000), now: at(20)) == [
                .verdict(testID, .rejected("no position from the autopilot yet"))
            ])
        let requests = commands(s.tick(now: at(30)))
        let intervals = requests.filter { $0.command == .setMessageInterval }.map { UInt32($0.param1) }
        #expect(Set(intervals).isSuperset(of: [GlobalPositionInt.id, Attitude.id, SysStatus.id, ExtendedSysState.id]))
        #expect(requests.allSatisfy { $0.targetSystem == 7 })
        #expect(requests.contains { $0.command == .requestMessage && UInt32($0.param1) == HomePosition.id })
        // The bridge's own heartbeat: once a second, not every tick.
        #expect(sentMessages(s.tick(now: at(500))).isEmpty)
        #expect(sentMessages(s.tick(now: at(1000))).count == 1)
    }

    @Test("telemetry: position, velocity, heading, battery, armed, link quality, activity")
    func telemetry() {
        var (ap, s) = flying()
        _ = s.receive(
            ap.position(lat: 50.2, lon: 14.5, rel: 12.5, vn: 150, ve: -30, vd: -20, hdg: 27_000), endOfDatagram: true,
            now: at(200))
        _ = s.receive(ap.bytes(SysStatus(batteryRemaining: 63)), endOfDatagram: true, now: at(210))
        let v = try! #require(s.vehicleState)
        #expect(v.position == GeoPoint(latitude: 50.2, longitude: 14.5, altitude: 12.5))
        #expect(v.velocityNorthCmS == 150 && v.velocityEastCmS == -30 && v.velocityDownCmS == -20)
        #expect(v.headingCentidegrees == 27_000 && v.batteryPercent == 63 && v.armed)
        #expect(v.activity == .hovering && v.linkQuality == 100)
        // Two frames lost (sequence numbers skipped): link quality drops.
        ap.encoder.sequence &+= 2
        _ = s.receive(ap.heartbeat(mode: 4, armed: true), endOfDatagram: true, now: at(300))
        #expect(s.linkQuality < 100 && s.linkQuality > 50)
        // Heading unknown in GLOBAL_POSITION_INT: ATTITUDE's yaw is used.
        _ = s.receive(ap.bytes(Attitude(yaw: -.pi / 2)), endOfDatagram: true, now: at(310))
        _ = s.receive(ap.position(rel: 12.5, hdg: UInt16.max), endOfDatagram: true, now: at(320))
        #expect(s.vehicleState?.headingCentidegrees == 27_000)
    }

    @Test(
        "ArduPilot takeoff: GUIDED, arm, NAV_TAKEOFF to the altitude above home; accepted after the last ACK, completed at altitude"
    )
    func arduTakeoff() {
        var ap = FakeAutopilot()
        var s = connected(&ap, mode: 5)
        var d = s.execute(testID, .takeoff(altitudeMillimetres: 10_000), now: at(200))
        var c = commands(d)
        #expect(
            c.count == 1 && c[0].command == .doSetMode && c[0].param1 == 1 && c[0].param2 == 4 && c[0].targetSystem == 1
        )
        #expect(reports(d).isEmpty)
        d = s.receive(ap.ack(.doSetMode), endOfDatagram: true, now: at(210))
        c = commands(d)
        #expect(c.count == 1 && c[0].command == .componentArmDisarm && c[0].param1 == 1)
        d = s.receive(ap.ack(.componentArmDisarm), endOfDatagram: true, now: at(220))
        c = commands(d)
        #expect(c.count == 1 && c[0].command == .navTakeoff && c[0].param7 == 10)
        d = s.receive(ap.ack(.navTakeoff), endOfDatagram: true, now: at(230))
        #expect(reports(d) == [.verdict(testID, .accepted)])
        _ = s.receive(ap.heartbeat(mode: 4, armed: true), endOfDatagram: true, now: at(240))
        d = s.receive(ap.landed(.takeoff), endOfDatagram: true, now: at(250))
        #expect(d.contains(.flyingChanged(true)))
        #expect(s.vehicleState?.activity == .takingOff)
        d = s.receive(ap.landed(.inAir), endOfDatagram: true, now: at(300))
        #expect(!d.contains(.flyingChanged(true)))
        d = s.receive(ap.position(rel: 5), endOfDatagram: true, now: at(400))
        #expect(!d.contains(.completion(testID, .completed)))
        #expect(s.vehicleState?.activity == .takingOff)
        d = s.receive(ap.position(rel: 9.6), endOfDatagram: true, now: at(500))
        #expect(d.contains(.completion(testID, .completed)))
        #expect(s.vehicleState?.activity == .hovering)
    }

    @Test("PX4 takeoff: arm, then NAV_TAKEOFF with the altitude above mean sea level (home AMSL + altitude)")
    func px4Takeoff() {
        var ap = FakeAutopilot(flavour: .px4)
        var s = connected(&ap, mode: AutopilotFlavour.px4CustomMode(main: 4, sub: 3))
        var d = s.execute(testID, .takeoff(altitudeMillimetres: 10_000), now: at(200))
        #expect(commands(d).map(\.command) == [.componentArmDisarm])
        d = s.receive(ap.ack(.componentArmDisarm), endOfDatagram: true, now: at(210))
        let t = try! #require(commands(d).first)
        #expect(t.command == .navTakeoff && t.param7 == 310 && t.param5.isNaN && t.param6.isNaN)
        // HOME_POSITION, once heard, is the reference.
        _ = s.receive(
            ap.bytes(HomePosition(latitude: 0, longitude: 0, altitude: 280_000)), endOfDatagram: true, now: at(220))
        #expect(s.telemetry.homeAMSLMillimetres == 280_000)
    }

    @Test("an unacknowledged COMMAND_LONG is sent again with confirmation 1, 2, then refused")
    func retries() {
        var (ap, s) = flying()
        var d = s.execute(testID, .land, now: at(1000))
        #expect(commands(d).map(\.confirmation) == [0])
        #expect(commands(s.tick(now: at(1900))).filter { $0.command == .doSetMode }.isEmpty)
        d = s.tick(now: at(2000))
        #expect(commands(d).filter { $0.command == .doSetMode }.map(\.confirmation) == [1])
        d = s.tick(now: at(3000))
        #expect(commands(d).filter { $0.command == .doSetMode }.map(\.confirmation) == [2])
        _ = s.receive(ap.heartbeat(mode: 4, armed: true), endOfDatagram: true, now: at(3500))
        d = s.tick(now: at(4000))
        #expect(reports(d).contains(.verdict(testID, .rejected("autopilot did not acknowledge MAV_CMD_DO_SET_MODE"))))
    }

    @Test("an ACK that is acknowledged after a retry still completes the plan; IN_PROGRESS waits without resending")
    func lateAckAndInProgress() {
        var (ap, s) = flying()
        _ = s.execute(testID, .land, now: at(1000))
        _ = s.tick(now: at(2000))
        var d = s.receive(ap.ack(.doSetMode), endOfDatagram: true, now: at(2100))
        #expect(reports(d) == [.verdict(testID, .accepted)])
        let id2 = commandID(2)
        _ = s.execute(id2, .returnToLaunch, now: at(2200))
        d = s.receive(ap.ack(.doSetMode, .inProgress), endOfDatagram: true, now: at(2300))
        #expect(reports(d).isEmpty)
        _ = s.receive(ap.heartbeat(mode: 9, armed: true), endOfDatagram: true, now: at(4000))
        #expect(commands(s.tick(now: at(5000))).filter { $0.command == .doSetMode }.isEmpty)
        d = s.receive(ap.ack(.doSetMode), endOfDatagram: true, now: at(6000))
        #expect(reports(d).contains(.verdict(id2, .accepted)))
        #expect(reports(d).contains(.completion(testID, .failed("superseded by rtl"))))
    }

    @Test("a refusing ACK refuses the command with the command's and the result's names")
    func refusal() {
        var ap = FakeAutopilot()
        var s = connected(&ap, mode: 4)
        _ = s.execute(testID, .takeoff(altitudeMillimetres: 5000), now: at(200))
        let d = s.receive(ap.ack(.componentArmDisarm, .temporarilyRejected), endOfDatagram: true, now: at(210))
        #expect(
            reports(d) == [
                .verdict(
                    testID, .rejected("autopilot refused MAV_CMD_COMPONENT_ARM_DISARM: MAV_RESULT_TEMPORARILY_REJECTED")
                )
            ])
        // An ACK for another command does not count.
        var s2 = connected(&ap, mode: 4)
        _ = s2.execute(testID, .takeoff(altitudeMillimetres: 5000), now: at(200))
        #expect(reports(s2.receive(ap.ack(.navTakeoff), endOfDatagram: true, now: at(210))).isEmpty)
    }

    @Test("state checks: takeoff while airborne, land on the ground")
    func stateChecks() {
        var ap = FakeAutopilot()
        var flying = connected(&ap, mode: 4, armed: true, flying: true)
        #expect(
            flying.execute(testID, .takeoff(altitudeMillimetres: 5000), now: at(200)) == [
                .verdict(testID, .rejected("already airborne"))
            ])
        var ground = connected(&ap, mode: 4)
        #expect(ground.execute(testID, .land, now: at(200)) == [.verdict(testID, .rejected("not airborne"))])
        #expect(
            ground.execute(testID, .goto(GeoPoint(latitude: 50, longitude: 14, altitude: 5), speedCmS: 0), now: at(200))
                == [.verdict(testID, .rejected("not airborne"))])
    }

    @Test(
        "silence: reported after 3 s without HEARTBEAT, running commands fail, new ones are refused, recovery on the next HEARTBEAT"
    )
    func silence() {
        var (ap, s) = flying()
        _ = s.execute(
            testID, .goto(GeoPoint(latitude: 50.1001, longitude: 14.4, altitude: 10), speedCmS: 0), now: at(200))
        #expect(s.vehicleState?.activity == .flyingToTarget)
        #expect(reports(s.tick(now: at(3000))).isEmpty)
        let d = s.tick(now: at(3100))
        #expect(d.contains(.silent(.milliseconds(3100))))
        #expect(d.contains(.completion(testID, .failed("autopilot silent"))))
        #expect(s.vehicleState?.linkQuality == 0)
        #expect(
            s.execute(commandID(2), .hover, now: at(3300)) == [
                .verdict(commandID(2), .rejected("autopilot silent (no HEARTBEAT for 3.3 s)"))
            ])
        let back = s.receive(ap.heartbeat(mode: 4, armed: true), endOfDatagram: true, now: at(4000))
        #expect(back.contains { if case .connected = $0 { return true } else { return false } })
        #expect(s.vehicleState!.linkQuality > 0)
    }

    @Test(
        "ArduPilot goto: SET_POSITION_TARGET_GLOBAL_INT (position only, relative altitude), completed on arrival; a mode change fails it"
    )
    func arduGoto() {
        var (ap, s) = flying()
        let dest = GeoPoint(latitude: 50.1002, longitude: 14.4, altitude: 15)
        var d = s.execute(testID, .goto(dest, speedCmS: 300), now: at(200))
        #expect(commands(d).map(\.command) == [.doChangeSpeed])
        #expect(commands(d).first?.param2 == 3)
        d = s.receive(ap.ack(.doChangeSpeed), endOfDatagram: true, now: at(210))
        let targets = positionTargets(d)
        #expect(targets.count == 1)
        #expect(
            targets.first?.coordinateFrame == .globalRelativeAltInt && targets.first?.alt == 15
                && targets.first?.latInt == dest.latitudeE7 && targets.first?.typeMask.rawValue == 3576)
        #expect(reports(d) == [.verdict(testID, .accepted)])
        d = s.receive(ap.position(lat: 50.10018, rel: 14.8), endOfDatagram: true, now: at(1000))
        #expect(!d.contains(.completion(testID, .completed)))
        d = s.receive(ap.position(lat: 50.100195, rel: 14.8), endOfDatagram: true, now: at(2000))
        #expect(d.contains(.completion(testID, .completed)))

        // A goto without a speed after one with a speed restores the autopilot's default (−2), not the last one.
        let id2 = commandID(2)
        d = s.execute(id2, .goto(GeoPoint(latitude: 50.11, longitude: 14.4, altitude: 15), speedCmS: 0), now: at(6000))
        #expect(commands(d).map(\.command) == [.doChangeSpeed] && commands(d).first?.param2 == -2)
        d = s.receive(ap.ack(.doChangeSpeed), endOfDatagram: true, now: at(6010))
        #expect(reports(d) == [.verdict(id2, .accepted)])
        d = s.receive(ap.heartbeat(mode: 5, armed: true), endOfDatagram: true, now: at(6100))
        #expect(d.contains(.completion(id2, .failed("autopilot switched to LOITER"))))
    }

    @Test("PX4 goto: DO_REPOSITION as COMMAND_INT, AMSL altitude, speed, change-mode flag")
    func px4Goto() {
        var (ap, s) = flying(.px4)
        let dest = GeoPoint(latitude: 50.1002, longitude: 14.4001, altitude: 20)
        let d = s.execute(testID, .goto(dest, speedCmS: 250), now: at(200))
        let ints = sentMessages(d).compactMap { if case .commandInt(let c) = $0 { return c } else { return nil } }
        #expect(ints.count == 1)
        let c = ints[0]
        #expect(c.command == .doReposition && c.frame == .global && c.x == dest.latitudeE7 && c.y == dest.longitudeE7)
        #expect(c.z == 320 && c.param1 == 2.5 && c.param2 == 1)
        #expect(
            reports(s.receive(ap.ack(.doReposition), endOfDatagram: true, now: at(210))) == [
                .verdict(testID, .accepted)
            ])
    }

    @Test("PX4 follow: the setpoint stream runs 0.6 s at 10 Hz before OFFBOARD, and carries the latest target")
    func px4Follow() {
        var (ap, s) = flying(.px4)
        #expect(
            s.execute(testID, .followTarget(true), now: at(150)) == [.verdict(testID, .rejected("no target to follow"))]
        )
        let first0 = GeoPoint(latitude: 50.1001, longitude: 14.4, altitude: 11)
        _ = s.applyTarget(first0, now: at(160))
        _ = s.receive(ap.ack(.doReposition), endOfDatagram: true, now: at(170))
        var d = s.execute(testID, .followTarget(true), now: at(200))
        let first = sentMessages(d)
        if case .setPositionTargetGlobalInt(let m)? = first.first { #expect(m.latInt == first0.latitudeE7) }
        #expect(first.count == 1, "the stream first, alone")
        // The stream runs for `offboardPrestream` (0.6 s) before OFFBOARD is asked for.
        var prestream: [MAVLinkMessage] = []
        for t in stride(from: 210, through: 790, by: 10) { prestream += sentMessages(s.tick(now: at(t))) }
        let early = prestream.filter { if case .commandLong = $0 { return true } else { return false } }
        #expect(early.isEmpty, "no command during the prestream: \(early)")
        #expect(positionTargetCount(prestream) == 5)  // 300, 400 … 700 ms
        let switching = sentMessages(s.tick(now: at(800)))
        #expect(positionTargetCount(switching) == 1)
        let modes = switching.compactMap { if case .commandLong(let c) = $0 { return c } else { return nil } }
        #expect(modes.count == 1 && modes.first?.command == .doSetMode && modes.first?.param2 == 6)
        d = s.receive(ap.ack(.doSetMode), endOfDatagram: true, now: at(810))
        // The goto the first target started (DO_REPOSITION) gives way to following.
        #expect(
            reports(d) == [
                .verdict(testID, .accepted), .note("a target ended: superseded by follow on"),
                .completion(testID, .completed),
            ])
        _ = s.receive(
            ap.heartbeat(mode: AutopilotFlavour.px4CustomMode(main: 6), armed: true), endOfDatagram: true, now: at(820))
        #expect(s.vehicleState?.activity == .following)
        let target = GeoPoint(latitude: 50.1003, longitude: 14.4, altitude: 12)
        #expect(s.applyTarget(target, now: at(850)).isEmpty)
        var streamed: [SetPositionTargetGlobalInt] = []
        for t in stride(from: 900, through: 1890, by: 10) {
            streamed += positionTargets(s.tick(now: at(t)))
        }
        #expect(streamed.count == 10)
        #expect(streamed.allSatisfy { $0.latInt == target.latitudeE7 && $0.alt == 12 })
        // Another command ends the stream of targets; what goes on is the warm stream of the hold point at 4 Hz (PX4
        // ignores it outside OFFBOARD; it lets avoidance's steering switch to OFFBOARD at once).
        _ = s.execute(commandID(2), .hover, now: at(1900))
        _ = s.receive(ap.ack(.doSetMode), endOfDatagram: true, now: at(1910))
        let after = (1920...2600).flatMap { positionTargets(s.tick(now: at($0))) }
        #expect((2...3).contains(after.count), "\(after.count) targets in 680 ms")
        #expect(!after.contains { $0.latInt == target.latitudeE7 }, "the followed target is no longer streamed")
    }

    /// How many SET_POSITION_TARGET_GLOBAL_INT are among `messages`.
    func positionTargetCount(_ messages: [MAVLinkMessage]) -> Int {
        messages.filter { if case .setPositionTargetGlobalInt = $0 { return true } else { return false } }.count
    }

    @Test(
        "ArduPilot follow and targets: GUIDED, then each target is a position target; not following, a target flies there"
    )
    func arduTargets() {
        var (ap, s) = flying()
        let target = GeoPoint(latitude: 50.1003, longitude: 14.4, altitude: 12)
        var d = s.applyTarget(target, now: at(200))
        #expect(positionTargets(d).contains { $0.latInt == target.latitudeE7 })
        #expect(s.vehicleState?.activity == .flyingToTarget)
        d = s.execute(testID, .followTarget(true), now: at(300))
        #expect(
            reports(d) == [
                .verdict(testID, .accepted), .note("a target ended: superseded by follow on"),
                .completion(testID, .completed),
            ])
        // Following starts at the latest target.
        #expect(positionTargets(d).contains { $0.latInt == target.latitudeE7 })
        d = s.applyTarget(GeoPoint(latitude: 50.1004, longitude: 14.4, altitude: 12), now: at(400))
        #expect(sentMessages(d).count == 1)
        #expect(s.vehicleState?.activity == .following)
    }

    @Test(
        "land and return: ArduPilot LAND / RTL modes, PX4 NAV_LAND / NAV_RETURN_TO_LAUNCH; completed when disarmed on the ground"
    )
    func landing() {
        var (ap, s) = flying()
        var d = s.execute(testID, .land, now: at(200))
        #expect(commands(d).first?.command == .doSetMode && commands(d).first?.param2 == 9)
        #expect(
            reports(s.receive(ap.ack(.doSetMode), endOfDatagram: true, now: at(210))) == [.verdict(testID, .accepted)])
        _ = s.receive(ap.heartbeat(mode: 9, armed: true), endOfDatagram: true, now: at(220))
        #expect(s.vehicleState?.activity == .landing)
        _ = s.receive(ap.landed(.onGround), endOfDatagram: true, now: at(3000))
        d = s.receive(ap.heartbeat(mode: 9, armed: false), endOfDatagram: true, now: at(3100))
        #expect(d.contains(.completion(testID, .completed)))

        var px = FakeAutopilot(flavour: .px4)
        var p = connected(&px, mode: AutopilotFlavour.px4CustomMode(main: 4, sub: 3), armed: true, flying: true)
        #expect(commands(p.execute(testID, .land, now: at(200))).first?.command == .navLand)
        #expect(commands(p.execute(commandID(2), .returnToLaunch, now: at(300))).first?.command == .navReturnToLaunch)
        // The land plan was still waiting for its ACK: superseded, so refused (it never ran).
        var q = connected(&px, mode: AutopilotFlavour.px4CustomMode(main: 4, sub: 3), armed: true, flying: true)
        _ = q.execute(testID, .land, now: at(200))
        #expect(
            reports(q.execute(commandID(2), .returnToLaunch, now: at(300))) == [
                .verdict(testID, .rejected("superseded by rtl"))
            ])
    }

    @Test("trajectory: mission upload (ArduPilot: home item 0), then AUTO; completed on the last MISSION_ITEM_REACHED")
    func mission() {
        var (ap, s) = flying()
        let points = [
            GeoPoint(latitude: 50.1001, longitude: 14.4, altitude: 10),
            GeoPoint(latitude: 50.1002, longitude: 14.4, altitude: 12),
        ]
        var d = s.execute(testID, .trajectory(points), now: at(200))
        guard case .missionCount(let count)? = sentMessages(d).first else {
            Issue.record("no MISSION_COUNT")
            return
        }
        #expect(count.count == 3 && count.targetSystem == 1)
        var items: [MissionItemInt] = []
        for seq in 0..<3 {
            d = s.receive(
                ap.bytes(MissionRequestInt(targetSystem: 255, targetComponent: 190, seq: UInt16(seq))),
                endOfDatagram: true, now: at(210 + seq))
            items += sentMessages(d).compactMap { if case .missionItemInt(let m) = $0 { return m } else { return nil } }
        }
        #expect(items.map(\.seq) == [0, 1, 2])
        #expect(items[1].frame == .globalRelativeAlt && items[1].x == points[0].latitudeE7 && items[2].z == 12)
        d = s.receive(
            ap.bytes(MissionAck(targetSystem: 255, targetComponent: 190, type: .mavMissionAccepted)),
            endOfDatagram: true, now: at(300))
        let after = sentMessages(d)
        #expect(after.contains { if case .missionSetCurrent(let m) = $0 { return m.seq == 1 } else { return false } })
        #expect(commands(d).first?.command == .doSetMode && commands(d).first?.param2 == 3)
        #expect(
            reports(s.receive(ap.ack(.doSetMode), endOfDatagram: true, now: at(310))) == [.verdict(testID, .accepted)])
        _ = s.receive(ap.heartbeat(mode: 3, armed: true), endOfDatagram: true, now: at(320))
        #expect(s.vehicleState?.activity == .followingTrajectory)
        #expect(reports(s.receive(ap.bytes(MissionItemReached(seq: 1)), endOfDatagram: true, now: at(400))).isEmpty)
        #expect(
            reports(s.receive(ap.bytes(MissionItemReached(seq: 2)), endOfDatagram: true, now: at(500))) == [
                .completion(testID, .completed)
            ])
    }

    @Test("trajectory stops: the waypoint's mission item holds (param 1) and faces the heading (param 4); others NaN")
    func missionStops() {
        var (ap, s) = flying(.px4)
        let points = [
            GeoPoint(latitude: 50.1001, longitude: 14.4, altitude: 10),
            GeoPoint(latitude: 50.1002, longitude: 14.4, altitude: 12),
        ]
        var d = s.execute(
            testID,
            .trajectory(points, stops: [TrajectoryStop(index: 1, headingCentidegrees: 9050, holdDeciseconds: 25)]),
            now: at(200))
        var items: [MissionItemInt] = []
        for seq in 0..<2 {
            d = s.receive(
                ap.bytes(MissionRequestInt(targetSystem: 255, targetComponent: 190, seq: UInt16(seq))),
                endOfDatagram: true, now: at(210 + seq))
            items += sentMessages(d).compactMap { if case .missionItemInt(let m) = $0 { return m } else { return nil } }
        }
        #expect(items.count == 2)
        #expect(items[0].param1 == 0 && items[0].param4.isNaN)
        #expect(items[1].param1 == 2.5 && items[1].param4 == 90.5)
    }

    @Test("a refused mission refuses the trajectory")
    func missionRefused() {
        var (ap, s) = flying(.px4)
        _ = s.execute(testID, .trajectory([GeoPoint(latitude: 50.1001, longitude: 14.4, altitude: 10)]), now: at(200))
        let d = s.receive(
            ap.bytes(MissionAck(targetSystem: 255, targetComponent: 190, type: .mavMissionNoSpace)),
            endOfDatagram: true, now: at(300))
        #expect(reports(d) == [.verdict(testID, .rejected("autopilot refused the mission: MAV_MISSION_NO_SPACE"))])
    }

    @Test("manual control: MANUAL_CONTROL to the autopilot with z on 0…1000, after one switch to the stick mode")
    func manual() {
        var (ap, s) = flying()
        _ = s.execute(
            testID, .goto(GeoPoint(latitude: 50.11, longitude: 14.4, altitude: 10), speedCmS: 0), now: at(100))
        var d = s.applyManualControl(Coordinator.ManualControl(x: 300, y: -200, z: 400, r: 0), now: at(200))
        let m = sentMessages(d)
        guard case .manualControl(let mc)? = m.first else {
            Issue.record("MANUAL_CONTROL first")
            return
        }
        #expect(mc.target == 1 && mc.x == 300 && mc.y == -200 && mc.z == 700)
        #expect(commands(d).first?.param2 == 5)
        d = s.receive(ap.ack(.doSetMode), endOfDatagram: true, now: at(210))
        #expect(d.contains(.completion(testID, .failed("superseded by manual control"))))
        _ = s.receive(ap.heartbeat(mode: 5, armed: true), endOfDatagram: true, now: at(220))
        d = s.applyManualControl(Coordinator.ManualControl(x: 0, y: 0, z: 0, r: 0), now: at(300))
        #expect(commands(d).isEmpty)
        #expect(sentMessages(d).count == 1)
        // On the ground: ignored.
        var g = connected(&ap, mode: 4)
        #expect(g.applyManualControl(Coordinator.ManualControl(x: 300, y: 0, z: 0, r: 0), now: at(200)).isEmpty)
    }

    @Test("failsafe actions become hold, return or land (nothing on the ground)")
    func failsafe() {
        var (ap, s) = flying()
        _ = s.execute(
            testID, .goto(GeoPoint(latitude: 50.11, longitude: 14.4, altitude: 10), speedCmS: 0), now: at(100))
        var d = s.failsafe(.returnHome, now: at(200))
        #expect(commands(d).first?.param2 == 6)
        d = s.receive(ap.ack(.doSetMode), endOfDatagram: true, now: at(210))
        #expect(reports(d).contains(.completion(testID, .failed("failsafe: return home"))))
        var g = connected(&ap, mode: 4)
        #expect(g.failsafe(.hover, now: at(200)).isEmpty)
    }

    @Test("identity: a pinned system id ignores other autopilots; GCS heartbeats never count")
    func identity() {
        var config = AutopilotSession.Configuration()
        config.autopilotSystemID = 9
        var s = AutopilotSession(configuration: config)
        var other = FakeAutopilot(systemID: 3)
        #expect(reports(s.receive(other.heartbeat(), endOfDatagram: true, now: at(0))).isEmpty)
        var gcs = MAVLinkEncoder(systemID: 9, componentID: 1)
        let gcsBeat = gcs.encode(Heartbeat(type: .gcs, autopilot: .invalid), now: MAVLinkTimestamp(rawValue: 0))
        #expect(reports(s.receive(gcsBeat, endOfDatagram: true, now: at(10))).isEmpty)
        var mine = FakeAutopilot(systemID: 9)
        #expect(
            s.receive(mine.heartbeat(), endOfDatagram: true, now: at(20)).contains {
                if case .connected(let i) = $0 { return i.systemID == 9 } else { return false }
            })
        // Telemetry from another system is ignored.
        _ = s.receive(other.position(rel: 30), endOfDatagram: true, now: at(30))
        #expect(s.vehicleState == nil)
    }

    @Test("the prediction extrapolates the velocity: 40 points 0.2 s apart")
    func prediction() {
        var (ap, s) = flying()
        _ = s.receive(ap.position(rel: 10, vn: 200, ve: 0, vd: -100), endOfDatagram: true, now: at(200))
        let p = try! #require(s.prediction())
        #expect(p.points.count == 40 && p.stepMilliseconds == 200)
        let last = p.points[39]
        #expect(abs(AutopilotSession.distance(s.telemetry.position!, last) - 16) < 0.05)
        #expect(abs(last.altitude - 18) < 0.01)
    }

    @Test("bytes split across serial reads are reassembled")
    func serialStream() {
        var ap = FakeAutopilot()
        var s = AutopilotSession()
        let bytes = ap.heartbeat(mode: 4) + ap.position(rel: 3)
        var all: [AutopilotSession.Directive] = []
        for b in bytes { all += s.receive([b], endOfDatagram: false, now: at(0)) }
        #expect(all.contains { if case .connected = $0 { return true } else { return false } })
        #expect(s.vehicleState?.position.altitudeMillimetres == 3000)
    }
}
