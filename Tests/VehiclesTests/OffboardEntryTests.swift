import AutopilotEmulation
import Coordinator
import Flight
import Geodesy
import MAVLink
import MAVLinkBridge
import MeshTypes
import Testing

@testable import Vehicles

/// PX4 enters OFFBOARD only with the setpoint stream already running (the emulator denies the switch without 0.5 s
/// of it, as real PX4 does): the session streams for `offboardPrestream` first, for following and for avoidance's
/// steering during a goto or a hover. With no prestream the same switch is refused. By default the goal point streams
/// at 4 Hz while nothing steers (the warm stream), and steering switches at once.
@Suite struct OffboardEntryTests {
    /// An `AutopilotSession` on an emulated PX4, frames carried both ways on every call.
    struct Rig {
        var session: AutopilotSession
        var autopilot = AutopilotEmulator(configuration: .init(flavour: .px4))
        var now = MeshInstant.zero
        var directives: [AutopilotSession.Directive] = []
        /// When each frame the autopilot received arrived (seconds) and what it was.
        var received: [(time: Double, message: MAVLinkMessage)] = []

        /// `warm`: the warm stream of the goal while nothing steers (the default configuration's 250 ms; nil: none,
        /// so that the prestream is what is measured).
        init(prestream: Duration, warm: Duration? = nil) {
            var c = AutopilotSession.Configuration()
            c.offboardPrestream = prestream
            c.warmStreamInterval = warm
            session = AutopilotSession(configuration: c)
        }

        mutating func take(_ out: [AutopilotSession.Directive]) {
            var queue = out[...]
            while let d = queue.popFirst() {
                guard case .send(let bytes) = d else {
                    directives.append(d)
                    continue
                }
                var parser = MAVLinkParser()
                for case .frame(let f) in parser.feed(bytes) { received.append((now.seconds, f.message)) }
                for r in autopilot.receive(bytes, endOfDatagram: true, now: now.seconds) {
                    queue += session.receive(r, endOfDatagram: true, now: now)
                }
            }
        }

        mutating func run(_ seconds: Double, until done: (Rig) -> Bool = { _ in false }) {
            let end = now + .milliseconds(Int64(seconds * 1000))
            while now < end && !done(self) {
                now = now + .milliseconds(50)
                for f in autopilot.advance(to: now.seconds) { take(session.receive(f, endOfDatagram: true, now: now)) }
                take(session.tick(now: now))
            }
        }

        mutating func command(_ n: UInt64, _ c: Command) -> CommandID {
            let id = CommandID(origin: NodeID(high: 1, low: 1), originIncarnation: 1, counter: n)
            take(session.execute(id, c, now: now))
            return id
        }

        func point(east: Double, north: Double = 0, up: Double) -> GeoPoint {
            let home = autopilot.configuration
            let g = TangentPlane(
                origin: GeodeticCoordinate(latitude: home.homeLatitude, longitude: home.homeLongitude, altitude: 0)
            ).geodetic(LocalPosition(east: east, north: north, up: 0))
            return GeoPoint(latitude: g.latitude, longitude: g.longitude, altitude: up)
        }

        mutating func takeOff() throws {
            run(5) { $0.session.vehicleState != nil }
            let id = command(1, .takeoff(altitudeMillimetres: 10_000))
            run(30) { $0.directives.contains(.completion(id, .completed)) }
            guard directives.contains(.completion(id, .completed)) else { throw Failure("takeoff: \(directives)") }
        }

        func verdict(_ id: CommandID) -> VehicleVerdict? {
            for d in directives { if case .verdict(id, let v) = d { return v } }
            return nil
        }

        /// The first DO_SET_MODE to OFFBOARD the autopilot received since `since`, and the position targets before it
        /// (since `since`).
        func offboardEntry(since: Double) -> (at: Double, setpointsBefore: [Double])? {
            let after = received.filter { $0.time >= since }
            guard
                let mode = after.first(where: {
                    if case .commandLong(let c) = $0.message { return c.command == .doSetMode && c.param2 == 6 }
                    return false
                })
            else { return nil }
            let before = after.filter {
                if case .setPositionTargetGlobalInt = $0.message { return $0.time <= mode.time }
                return false
            }
            return (mode.time, before.map(\.time))
        }
    }

    static let offboard: UInt32 = 6 << 16

    @Test("following: 0.6 s of 10 Hz setpoints, then OFFBOARD, accepted; the stream goes on")
    func follow() throws {
        var rig = Rig(prestream: .milliseconds(600))
        try rig.takeOff()
        rig.take(rig.session.applyTarget(rig.point(east: 20, up: 10), now: rig.now))
        let start = rig.now.seconds
        let id = rig.command(2, .followTarget(true))
        rig.run(2) { $0.verdict(id) != nil }
        #expect(rig.verdict(id) == .accepted)
        #expect(rig.autopilot.customMode == Self.offboard)
        let entry = try #require(rig.offboardEntry(since: start))
        #expect(entry.at - start >= 0.6 - 1e-6 && entry.at - start < 0.7, "\(entry.at - start)")
        #expect(entry.setpointsBefore.count >= 6 && (entry.setpointsBefore.first ?? .infinity) - start < 0.01)
        rig.run(8)
        #expect(rig.autopilot.customMode == Self.offboard && abs(rig.autopilot.position.x - 20) < 1)
    }

    @Test("following with no prestream: the emulated PX4 denies OFFBOARD and the command is refused")
    func followWithoutPrestream() throws {
        var rig = Rig(prestream: .zero)
        try rig.takeOff()
        rig.take(rig.session.applyTarget(rig.point(east: 20, up: 10), now: rig.now))
        let id = rig.command(2, .followTarget(true))
        rig.run(2) { $0.verdict(id) != nil }
        #expect(rig.verdict(id) == .rejected("autopilot refused MAV_CMD_DO_SET_MODE: MAV_RESULT_DENIED"))
        #expect(rig.autopilot.customMode != Self.offboard)
    }

    @Test(
        "avoidance's steering during a goto or a hover: the stream runs 0.6 s, then OFFBOARD, and the point is flown",
        arguments: [false, true])
    func steering(hovering: Bool) throws {
        var rig = Rig(prestream: .milliseconds(600))
        try rig.takeOff()
        let goto = rig.command(2, hovering ? .hover : .goto(rig.point(east: 60, up: 10), speedCmS: 0))
        rig.run(2)
        #expect(rig.verdict(goto) == .accepted)
        let start = rig.now.seconds
        let aside = rig.point(east: rig.autopilot.position.x, north: 15, up: 10)
        rig.take(rig.session.steer(to: aside, speed: nil, now: rig.now))
        rig.run(1) { $0.autopilot.customMode == Self.offboard }
        #expect(rig.autopilot.customMode == Self.offboard)
        let entry = try #require(rig.offboardEntry(since: start))
        #expect(entry.at - start >= 0.6 - 1e-6 && entry.at - start < 0.7, "\(entry.at - start)")
        #expect(entry.setpointsBefore.count >= 6)
        rig.run(10)
        #expect(abs(rig.autopilot.position.y - 15) < 1, "\(rig.autopilot)")
        #expect(!rig.directives.contains { if case .released = $0 { true } else { false } })
    }

    @Test(
        "with the goal's warm stream running (the default), steering switches to OFFBOARD at once, no prestream wait",
        arguments: [false, true])
    func steeringWarm(hovering: Bool) throws {
        var rig = Rig(prestream: .milliseconds(600), warm: AutopilotSession.Configuration().warmStreamInterval)
        try rig.takeOff()
        let goto = rig.command(2, hovering ? .hover : .goto(rig.point(east: 60, up: 10), speedCmS: 0))
        rig.run(2)
        #expect(rig.verdict(goto) == .accepted)
        // Outside OFFBOARD the goal point streams at 4 Hz (PX4 ignores it there).
        let warm = rig.received.filter {
            if case .setPositionTargetGlobalInt = $0.message {
                return $0.time > rig.now.seconds - 1
            } else {
                return false
            }
        }
        #expect((3...5).contains(warm.count), "\(warm.count) warm targets in the last second")
        let start = rig.now.seconds
        rig.take(
            rig.session.steer(
                to: rig.point(east: rig.autopilot.position.x, north: 15, up: 10), speed: nil, now: rig.now))
        rig.run(1) { $0.autopilot.customMode == Self.offboard }
        let entry = try #require(rig.offboardEntry(since: start))
        #expect(entry.at - start < 0.01, "\(entry.at - start)")
        #expect(rig.autopilot.customMode == Self.offboard)
        rig.run(10)
        #expect(abs(rig.autopilot.position.y - 15) < 1, "\(rig.autopilot)")
        #expect(!rig.directives.contains { if case .released = $0 { true } else { false } })
    }

    @Test(
        "a steering that ends and starts again at once: the HEARTBEAT's switch to AUTO.LOITER (the end's DO_REPOSITION) does not let the drone go"
    )
    func steeringAgain() throws {
        var rig = Rig(prestream: .milliseconds(600))
        try rig.takeOff()
        _ = rig.command(2, .goto(rig.point(east: 60, up: 10), speedCmS: 0))
        rig.run(1)
        rig.take(rig.session.steer(to: rig.point(east: 0, north: 15, up: 10), speed: nil, now: rig.now))
        rig.run(3) { $0.session.modeName == "OFFBOARD" }
        #expect(rig.session.modeName == "OFFBOARD")
        // Avoidance lets go (the goal is sent again: DO_REPOSITION, so PX4 goes to AUTO.LOITER) and 0.1 s later
        // steers again, before the HEARTBEAT shows AUTO.LOITER.
        rig.take(rig.session.steer(to: nil, speed: nil, now: rig.now))
        rig.run(0.1)
        rig.take(rig.session.steer(to: rig.point(east: 0, north: -15, up: 10), speed: nil, now: rig.now))
        rig.run(4)
        #expect(!rig.directives.contains { if case .released = $0 { true } else { false } }, "\(rig.directives)")
        #expect(rig.session.modeName == "OFFBOARD" && rig.autopilot.velocity.y < -1, "\(rig.autopilot)")
    }

    @Test("steering with no prestream: OFFBOARD is denied and the node lets the drone go")
    func steeringWithoutPrestream() throws {
        var rig = Rig(prestream: .zero)
        try rig.takeOff()
        _ = rig.command(2, .goto(rig.point(east: 60, up: 10), speedCmS: 0))
        rig.run(2)
        rig.take(rig.session.steer(to: rig.point(east: 0, north: 15, up: 10), speed: nil, now: rig.now))
        rig.run(1)
        let released = rig.directives.compactMap { if case .released(let why) = $0 { why } else { nil } }
        #expect(released == ["the autopilot refused OFFBOARD for avoidance's steering (MAV_RESULT_DENIED)"])
        #expect(rig.autopilot.customMode != Self.offboard)
    }
}
