import AutopilotEmulation
import Coordinator
import Flight
import Foundation
import MAVLink
import MeshTypes
import Testing

@testable import Vehicles

/// When the pilot (or the firmware) takes an autopilot drone the node did not give up, the node lets go: no more
/// position targets or mode requests, no goal for avoidance (the drone then publishes that it does not avoid, and the
/// others keep away from it), until the next command from the mesh.
@Suite struct AutopilotTakeoverTests {
    typealias Rig = AutopilotSteeringTests.Rig

    /// Avoidance asks the vehicle to hold `east` metres ahead of the autopilot at 12 m.
    static func holdAhead(_ rig: inout Rig, east: Double) throws {
        let hold = Vector3(rig.autopilot.position.x + east, 0, 12)
        let frame = try #require(rig.vehicle.frame)
        let local = Vector3(try frame.local(rig.autopilotCoordinate(hold)))
        rig.take(rig.vehicle.adjust(NavigatorAdjustment(hold: local), now: rig.now))
    }

    @Test(
        "the pilot's switch to position hold ends the node's command of a hovering drone; a new command takes it back",
        arguments: AutopilotEmulator.Flavour.allCases)
    func pilotTakesAHoveringDrone(flavour: AutopilotEmulator.Flavour) throws {
        var rig = Rig(flavour)
        try rig.takeOff()
        _ = rig.command(3, .hover)
        rig.run(2)
        #expect(rig.vehicle.session.goal != nil)
        let pilotMode = flavour == .px4 ? "POSCTL" : "LOITER"

        rig.autopilot.pilotTakesOver(now: rig.now.seconds)
        rig.run(1)
        #expect(rig.vehicle.session.goal == nil)
        #expect(
            rig.logs.contains { $0.contains("switched to \(pilotMode), which the node did not ask for") },
            "\(rig.logs.suffix(5))")
        // Avoidance's adjustments no longer reach the autopilot: no position targets, no mode request.
        let targets = rig.autopilot.positionTargetCount
        try Self.holdAhead(&rig, east: 8)
        rig.run(3)
        #expect(rig.autopilot.positionTargetCount == targets)
        #expect(rig.vehicle.session.modeName == pilotMode)

        // The next command from the mesh takes the drone back (avoidance, deciding again, drops its hold).
        rig.take(rig.vehicle.adjust(nil, now: rig.now))
        let back = rig.command(4, .goto(rig.point(east: 15, up: 10), speedCmS: 0))
        rig.run(30) { $0.answers.contains(.completed(back)) }
        #expect(rig.answers.contains(.completed(back)), "\(rig.answers.suffix(3))")
        #expect(rig.vehicle.session.modeName != pilotMode)
    }

    @Test(
        "the pilot's switch during a goto that avoidance does not steer fails the goto and lets the drone go",
        arguments: AutopilotEmulator.Flavour.allCases)
    func pilotTakesADroneFlyingAGoto(flavour: AutopilotEmulator.Flavour) throws {
        var rig = Rig(flavour)
        let goto = try rig.takeOffAndGo(east: 40)
        rig.run(2)
        #expect(rig.vehicle.session.goal != nil && rig.vehicle.session.steering == nil)
        rig.autopilot.pilotTakesOver(now: rig.now.seconds)
        rig.run(1)
        // Failing the goto drops its goal; the takeover is still seen and said (before, it was hidden by that).
        #expect(rig.answers.contains { if case .failed(goto, _) = $0 { true } else { false } }, "\(rig.answers)")
        #expect(
            rig.logs.contains { $0.contains("the node stops commanding the autopilot and this drone does not avoid") },
            "\(rig.logs.suffix(5))")
        #expect(rig.vehicle.session.goal == nil && rig.vehicle.session.plannedFlight == nil)
        let targets = rig.autopilot.positionTargetCount
        try Self.holdAhead(&rig, east: 8)
        rig.run(3)
        #expect(rig.autopilot.positionTargetCount == targets)
    }

    @Test(
        "a switch away from GUIDED or OFFBOARD while avoidance steers ends the steering, its setpoints and the goto",
        arguments: AutopilotEmulator.Flavour.allCases)
    func pilotTakesASteeredDrone(flavour: AutopilotEmulator.Flavour) throws {
        var rig = Rig(flavour)
        let goto = try rig.takeOffAndGo(east: 60)
        rig.run(2)
        try Self.holdAhead(&rig, east: 6)
        rig.run(1)
        #expect(rig.vehicle.session.steering != nil)
        let streaming = rig.autopilot.positionTargetCount
        rig.run(1)
        #expect(rig.autopilot.positionTargetCount > streaming, "the steering streams position targets")

        rig.autopilot.pilotTakesOver(now: rig.now.seconds)
        rig.run(1)
        let after = rig.autopilot.positionTargetCount
        rig.run(3)
        #expect(rig.autopilot.positionTargetCount == after, "position targets after the pilot took over")
        #expect(rig.vehicle.session.steering == nil && rig.vehicle.session.goal == nil)
        #expect(
            rig.answers.contains { if case .failed(goto, let why) = $0 { why.contains("switched to") } else { false } },
            "\(rig.answers.suffix(3))")
        #expect(rig.logs.contains { $0.contains("while avoidance steered it") }, "\(rig.logs.suffix(4))")
    }

    @Test("PX4 refusing OFFBOARD for avoidance's steering lets the drone go instead of steering it blind")
    func refusedSteeringModeLetsGo() throws {
        var rig = Rig(.px4)
        // The first DO_SET_MODE of this flight is the steering's (takeoff and goto need none on PX4).
        var configuration = AutopilotEmulator.Configuration(flavour: .px4)
        configuration.refuseOnce = [.doSetMode: .denied]
        rig.autopilot = AutopilotEmulator(configuration: configuration)
        let goto = try rig.takeOffAndGo(east: 60)
        rig.run(2)
        try Self.holdAhead(&rig, east: 6)
        rig.run(1)
        #expect(rig.vehicle.session.steering == nil && rig.vehicle.session.goal == nil)
        #expect(
            rig.answers.contains { if case .failed(goto, _) = $0 { true } else { false } }, "\(rig.answers.suffix(3))")
        #expect(
            rig.logs.contains { $0.contains("refused OFFBOARD for avoidance's steering (MAV_RESULT_DENIED)") },
            "\(rig.logs.suffix(4))")
        let targets = rig.autopilot.positionTargetCount
        rig.run(2)
        #expect(rig.autopilot.positionTargetCount == targets)
    }

    @Test("an autopilot that falls silent is let go: no goal, so the drone says it does not avoid")
    func silenceLetsGo() throws {
        var rig = Rig(.ardupilot)
        try rig.takeOff()
        _ = rig.command(3, .hover)
        rig.run(1)
        #expect(rig.vehicle.session.goal != nil)
        // The autopilot says nothing more (its frames are not carried) for longer than the silence timeout.
        for _ in 0..<80 {
            rig.now = rig.now + .milliseconds(50)
            rig.take(rig.vehicle.advance(to: rig.now))
        }
        #expect(rig.vehicle.session.goal == nil)
        #expect(
            rig.logs.contains { $0.contains("the autopilot fell silent: the node stops commanding") },
            "\(rig.logs.suffix(4))")
    }

    @Test(
        "the prediction of a goto at the autopilot's own speed runs at that speed (5 m/s), as the autopilot flies it",
        arguments: AutopilotEmulator.Flavour.allCases)
    func predictionKeepsTheAutopilotsCruise(flavour: AutopilotEmulator.Flavour) throws {
        var rig = Rig(flavour)
        _ = try rig.takeOffAndGo(east: 300)
        rig.run(8)
        #expect(abs(rig.autopilot.velocity.x - 5) < 0.3, "cruise: \(rig.autopilot.velocity)")
        let p = try #require(rig.vehicle.prediction(avoiding: true, now: rig.now))
        let frame = try #require(rig.vehicle.frame)
        let points = try p.points.map { try frame.local($0.geodetic) }
        // 2 s ahead (10 steps of 0.2 s): 10 m at the autopilot's 5 m/s (8 m if predicted at 4 m/s).
        let ahead = hypot(points[10].east - points[0].east, points[10].north - points[0].north)
        #expect(abs(ahead - 10) < 0.8, "predicted \(ahead) m in 2 s")
        // And it agrees with where the autopilot is 2 s later.
        let predicted = points[10]
        rig.run(2)
        let actual = try frame.local(rig.autopilotCoordinate(rig.autopilot.position))
        #expect(hypot(predicted.east - actual.east, predicted.north - actual.north) < 1.5)
    }
}

/// Avoidance's new steering point reaches the autopilot in the same cycle, not at the stream's next slot.
@Suite struct AutopilotSteeringLatencyTests {
    @Test("a moved steering point goes out at once; an unmoved one waits for the 10 Hz stream")
    func movedPointGoesAtOnce() throws {
        var rig = AutopilotSteeringTests.Rig(.ardupilot)
        _ = try rig.takeOffAndGo(east: 80)
        rig.run(2)
        let frame = try #require(rig.vehicle.frame)
        func hold(_ v: Vector3) throws -> NavigatorAdjustment {
            NavigatorAdjustment(hold: Vector3(try frame.local(rig.autopilotCoordinate(v))))
        }
        let point = Vector3(rig.autopilot.position.x + 10, 0, 12)
        rig.take(rig.vehicle.adjust(try hold(point), now: rig.now))
        rig.run(0.5)
        // The same point again: nothing new at once.
        let before = rig.autopilot.positionTargetCount
        rig.take(rig.vehicle.adjust(try hold(point), now: rig.now))
        let unchanged = rig.autopilot.positionTargetCount
        #expect(unchanged == before)
        // 3 m higher (an altitude layer): one position target now, before any time passes.
        rig.take(rig.vehicle.adjust(try hold(point + Vector3(0, 0, 3)), now: rig.now))
        #expect(rig.autopilot.positionTargetCount == unchanged + 1, "before \(before), unchanged \(unchanged)")
    }
}
