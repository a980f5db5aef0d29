import AutopilotEmulation
import Coordinator
import Flight
import Geodesy
import MeshTypes
import Testing

@testable import Vehicles

/// An `AutopilotVehicle` wired to an emulated autopilot: collision avoidance's adjustments reach the autopilot as
/// MAVLink and are undone when they end; a hover stops a PX4 that is repositioning.
@Suite struct AutopilotSteeringTests {
    /// The vehicle and its autopilot, frames carried both ways on every call.
    struct Rig {
        var vehicle: AutopilotVehicle
        var autopilot: AutopilotEmulator
        var now = MeshInstant.zero
        var answers: [VehicleEvent] = []
        var logs: [String] = []

        init(_ flavour: AutopilotEmulator.Flavour) {
            vehicle = AutopilotVehicle(linkName: "in-process", autopilotSystemID: nil)
            autopilot = AutopilotEmulator(configuration: .init(flavour: flavour))
        }

        mutating func take(_ events: [VehicleEvent]) {
            var queue = events[...]
            while let e = queue.popFirst() {
                if case .send(let bytes) = e {
                    for r in autopilot.receive(bytes, now: now.seconds) {
                        queue += vehicle.receive(r, endOfDatagram: true, now: now)
                    }
                } else if case .log(_, let text) = e {
                    logs.append(text)
                } else {
                    answers.append(e)
                }
            }
        }

        /// Runs 50 ms steps for `seconds`, or until `done`.
        mutating func run(_ seconds: Double, until done: (Rig) -> Bool = { _ in false }) {
            let end = now + .milliseconds(Int64(seconds * 1000))
            while now < end && !done(self) {
                now = now + .milliseconds(50)
                for f in autopilot.advance(to: now.seconds) { take(vehicle.receive(f, endOfDatagram: true, now: now)) }
                take(vehicle.advance(to: now))
            }
        }

        mutating func command(_ n: UInt64, _ c: Command) -> CommandID {
            let id = CommandID(origin: NodeID(high: 1, low: 1), originIncarnation: 1, counter: n)
            take(vehicle.execute(id, c, now: now))
            return id
        }

        /// A point `east` metres from the autopilot's home at `up` metres.
        func point(east: Double, up: Double) -> GeoPoint {
            let home = autopilot.configuration
            let g = TangentPlane(
                origin: GeodeticCoordinate(latitude: home.homeLatitude, longitude: home.homeLongitude, altitude: 0)
            ).geodetic(LocalPosition(east: east, north: 0, up: 0))
            return GeoPoint(latitude: g.latitude, longitude: g.longitude, altitude: up)
        }

        /// Connected, then airborne at 10 m.
        mutating func takeOff() throws {
            run(5) { $0.vehicle.telemetry != nil && $0.vehicle.frame != nil }
            let id = command(1, .takeoff(altitudeMillimetres: 10_000))
            run(30) { $0.answers.contains(.completed(id)) }
            guard answers.contains(.completed(id)) else { throw Failure("takeoff: \(answers)") }
        }

        /// Airborne, then flying a goto (command 2) to `east` metres at 10 m; returns the goto's ID.
        mutating func takeOffAndGo(east: Double) throws -> CommandID {
            try takeOff()
            return command(2, .goto(point(east: east, up: 10), speedCmS: 0))
        }
    }

    @Test(
        "a speed cap goes out as DO_CHANGE_SPEED and the autopilot's default comes back when it ends",
        arguments: AutopilotEmulator.Flavour.allCases)
    func speedCapIsUndone(flavour: AutopilotEmulator.Flavour) throws {
        var rig = Rig(flavour)
        let goto = try rig.takeOffAndGo(east: 200)
        rig.run(4)
        #expect(abs(rig.autopilot.velocity.x - 5) < 0.3, "cruise before the cap: \(rig.autopilot.velocity)")
        rig.take(rig.vehicle.adjust(NavigatorAdjustment(maxSpeed: 2), now: rig.now))
        rig.run(4)
        #expect(rig.autopilot.speed == 2 && abs(rig.autopilot.velocity.x - 2) < 0.3, "\(rig.autopilot.velocity)")
        rig.take(rig.vehicle.adjust(nil, now: rig.now))
        rig.run(4)
        #expect(rig.autopilot.speed == 5 && abs(rig.autopilot.velocity.x - 5) < 0.3, "\(rig.autopilot.velocity)")
        rig.run(60) { $0.answers.contains(.completed(goto)) }
        #expect(
            rig.answers.contains(.completed(goto))
                && !rig.answers.contains { if case .failed = $0 { true } else { false } })
    }

    /// A climb asked together with a speed cap is flown at the autopilot's climb rate, as the prediction says: on
    /// PX4 the cap is kept by a point moving ahead of the vehicle, and that point carries the new altitude at once
    /// (were it to climb along the straight line to the far steering point, a drone 200 m from it would climb at a
    /// few centimetres per second while its prediction showed it at the new altitude within seconds).
    @Test(
        "a climb with a speed cap reaches the new altitude when the prediction says it does",
        arguments: AutopilotEmulator.Flavour.allCases)
    func climbWithSpeedCapFollowsThePrediction(flavour: AutopilotEmulator.Flavour) throws {
        var rig = Rig(flavour)
        _ = try rig.takeOffAndGo(east: 200)
        rig.run(3)
        rig.take(rig.vehicle.adjust(NavigatorAdjustment(altitude: 18, maxSpeed: 2.8), now: rig.now))
        let prediction = try #require(rig.vehicle.prediction(avoiding: true, now: rig.now))
        let step = Double(prediction.stepMilliseconds) / 1000
        let reached = try #require(
            prediction.points.firstIndex { $0.altitude >= 17.5 }, "the prediction never climbs: \(prediction.points)")
        let predicted = Double(reached + 1) * step
        #expect(predicted < 6, "predicted at 17.5 m after \(predicted) s")
        rig.run(predicted + 1)
        #expect(
            rig.autopilot.position.z >= 17,
            "\(predicted + 1) s after the climb was asked (the prediction: 17.5 m after \(predicted) s) the autopilot is at \(rig.autopilot.position.z) m"
        )
        #expect(
            abs(rig.autopilot.velocity.horizontalLength - 2.8) < 0.4,
            "the cap still holds: \(rig.autopilot.velocity)")
    }

    @Test(
        "a hold adjustment stops the autopilot at the hold point; the goto still completes afterwards",
        arguments: AutopilotEmulator.Flavour.allCases)
    func holdThenResume(flavour: AutopilotEmulator.Flavour) throws {
        var rig = Rig(flavour)
        let goto = try rig.takeOffAndGo(east: 60)
        rig.run(3)
        let hold = Vector3(rig.autopilot.position.x + 6, 0, 13)
        let frame = try #require(rig.vehicle.frame)
        let local = Vector3(try frame.local(rig.autopilotCoordinate(hold)))
        rig.take(rig.vehicle.adjust(NavigatorAdjustment(hold: local), now: rig.now))
        rig.run(6)
        #expect((rig.autopilot.position - hold).length < 0.5, "held at \(rig.autopilot.position), asked \(hold)")
        #expect(!rig.answers.contains(.completed(goto)))
        rig.take(rig.vehicle.adjust(nil, now: rig.now))
        rig.run(40) { $0.answers.contains(.completed(goto)) }
        #expect(rig.answers.contains(.completed(goto)))
        #expect(abs(rig.autopilot.position.x - 60) < 1.5 && abs(rig.autopilot.position.z - 10) < 0.8)
    }

    @Test("PX4: hover stops a vehicle that is flying a goto (DO_REPOSITION to where it is)")
    func px4HoverStops() throws {
        var rig = Rig(.px4)
        _ = try rig.takeOffAndGo(east: 80)
        rig.run(3)
        let at = rig.autopilot.position
        let hover = rig.command(3, .hover)
        // It brakes (overshooting a little at the emulator's 1 m/s²), then comes back to hold where the hover found it.
        rig.run(20) { ($0.autopilot.position - at).horizontalLength < 0.3 && $0.autopilot.velocity.length < 0.1 }
        #expect(rig.answers.contains(.completed(hover)))
        // Without the reposition it would fly on to 80 m; stopped, it holds where the hover found it.
        #expect(
            rig.autopilot.velocity.length < 0.1 && (rig.autopilot.position - at).horizontalLength < 1,
            "at \(rig.autopilot.position) moving \(rig.autopilot.velocity); hover at \(at)")
    }
}

extension AutopilotSteeringTests.Rig {
    /// The geodetic coordinate of an emulator position (east, north, up from its home).
    func autopilotCoordinate(_ v: Vector3) -> GeodeticCoordinate {
        let home = autopilot.configuration
        let g = TangentPlane(
            origin: GeodeticCoordinate(latitude: home.homeLatitude, longitude: home.homeLongitude, altitude: 0)
        ).geodetic(LocalPosition(east: v.x, north: v.y, up: 0))
        return GeodeticCoordinate(latitude: g.latitude, longitude: g.longitude, altitude: v.z)
    }
}
