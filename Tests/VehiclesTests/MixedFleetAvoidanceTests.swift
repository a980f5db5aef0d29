import AutopilotEmulation
import Avoidance
import Coordinator
import Flight
import Geodesy
import MeshTypes
import Testing

@testable import Vehicles

/// A simulated drone and a drone on an (emulated, in-process) ArduPilot autopilot, both behind the vehicle protocol,
/// sent head-on at the same altitude: with avoidance above each, they keep the separation minima and both arrive;
/// without it, the same scenario is a collision. Predictions travel between them as the mesh carries them (every
/// 200 ms, latitude/longitude/altitude), and the autopilot drone's commands reach the autopilot as MAVLink frames.
@Suite struct MixedFleetAvoidanceTests {
    static let origin = try! MapOrigin(latitude: 50.0755, longitude: 14.4378)

    /// One drone of the scenario: its pilot, the emulated autopilot behind it (nil: the simulator), its latest
    /// published prediction and when it was published.
    struct Drone {
        var pilot: VehiclePilot
        var autopilot: AutopilotEmulator?
        var uavNumber: Int
        var published: (prediction: TrajectoryPrediction, at: MeshInstant)?
        var answers: [VehicleEvent] = []
        var node: NodeID { NodeID(high: 9, low: UInt64(uavNumber)) }

        /// Carries frames between the vehicle and its autopilot, and keeps the answers.
        mutating func take(_ events: [VehicleEvent], now: MeshInstant) {
            var queue = events[...]
            while let e = queue.popFirst() {
                switch e {
                case .send(let bytes):
                    guard var ap = autopilot else { continue }
                    let replies = ap.receive(bytes, now: now.seconds)
                    autopilot = ap
                    for r in replies { queue += pilot.receive(r, endOfDatagram: true, now: now) }
                case .verdict, .completed, .failed, .flyingChanged:
                    answers.append(e)
                case .log:
                    break
                }
            }
        }

        /// One 50 ms control cycle as the node runs it (`VehiclePilot.cycle`), against what `other` last published
        /// (as the airspace picture holds it); what this drone publishes is kept for the other.
        mutating func step(to now: MeshInstant, seeing other: Drone) {
            if var ap = autopilot {
                let frames = ap.advance(to: now.seconds)
                autopilot = ap
                for f in frames { take(pilot.receive(f, endOfDatagram: true, now: now), now: now) }
            }
            let airspace =
                other.published.map {
                    [
                        AirspaceEntry(
                            node: other.node, uavNumber: UInt8(other.uavNumber), prediction: $0.prediction,
                            age: now - $0.at)
                    ]
                } ?? []
            let cycle = pilot.cycle(
                now: now, airspace: airspace, ownNode: node, uavNumber: UInt8(uavNumber), tiebreak: UInt64(uavNumber))
            take(cycle.events, now: now)
            if let p = cycle.prediction { published = (p, now) }
        }

        /// True position in the scenario's frame.
        var position: Vector3 {
            let s = pilot.telemetry!
            let g = GeodeticCoordinate(
                latitude: s.position.latitude, longitude: s.position.longitude, altitude: s.position.altitude)
            return Vector3(try! MixedFleetAvoidanceTests.origin.local(g))
        }

        func completed(_ id: CommandID) -> Bool { answers.contains(.completed(id)) }
    }

    static func geo(_ east: Double, _ north: Double, _ up: Double) -> GeoPoint {
        let g = origin.geodetic(LocalPosition(east: east, north: north, up: 0))
        return GeoPoint(latitude: g.latitude, longitude: g.longitude, altitude: up)
    }

    static func id(_ n: UInt64) -> CommandID {
        CommandID(origin: NodeID(high: 7, low: 7), originIncarnation: 1, counter: n)
    }

    /// A simulated drone at (−40, 0) and an autopilot drone at (+40, 0), both taken off to 10 m.
    static func airborne(
        avoid: Bool, simulatedNumber: Int, autopilotNumber: Int, flavour: AutopilotEmulator.Flavour
    ) throws -> (Drone, Drone, MeshInstant) {
        let plan = avoid ? AvoidancePlan(configuration: AvoidanceConfiguration()) : nil
        let sim = try SimulatedVehicle(latitude: 50.0755, longitude: 14.4378, offset: (east: -40, north: 0))
        var a = Drone(
            pilot: try VehiclePilot(vehicle: sim, plan: plan, predictionInterval: .milliseconds(200)),
            uavNumber: simulatedNumber)
        let home = origin.geodetic(LocalPosition(east: 40, north: 0, up: 0))
        var emulator = AutopilotEmulator.Configuration(flavour: flavour)
        emulator.homeLatitude = home.latitude
        emulator.homeLongitude = home.longitude
        let autopilot = AutopilotVehicle(linkName: "in-process", autopilotSystemID: nil)
        var b = Drone(
            pilot: try VehiclePilot(vehicle: autopilot, plan: plan, predictionInterval: .milliseconds(200)),
            autopilot: AutopilotEmulator(configuration: emulator), uavNumber: autopilotNumber)
        var now = MeshInstant.zero
        // The autopilot is heard and reports a position; then its frame is known and avoidance starts by itself.
        #expect(b.pilot.avoidance == nil)
        while b.pilot.frame == nil || b.pilot.telemetry == nil || (avoid && b.pilot.avoidance == nil) {
            now = now + .milliseconds(50)
            a.step(to: now, seeing: b)
            b.step(to: now, seeing: a)
            guard now < MeshInstant.zero + .seconds(10) else {
                throw Failure("the autopilot never reported a position")
            }
        }
        a.take(a.pilot.execute(id(1), .takeoff(altitudeMillimetres: 10_000), now: now), now: now)
        b.take(b.pilot.execute(id(2), .takeoff(altitudeMillimetres: 10_000), now: now), now: now)
        while !(a.completed(id(1)) && b.completed(id(2))) {
            now = now + .milliseconds(50)
            a.step(to: now, seeing: b)
            b.step(to: now, seeing: a)
            guard now < MeshInstant.zero + .seconds(40) else {
                throw Failure("takeoff did not complete: \(a.answers) / \(b.answers)")
            }
        }
        return (a, b, now)
    }

    struct Outcome {
        var closestHorizontal = Double.infinity
        var lossSeconds = 0.0
        var arrived = (simulated: false, autopilot: false)
        var maneuvered = (simulated: false, autopilot: false)
        var finalPositions = (simulated: Vector3.zero, autopilot: Vector3.zero)
    }

    /// Sends both drones to the other's start, head-on at 10 m, and flies until both arrive or 90 s pass.
    static func flyHeadOn(
        avoid: Bool, simulatedNumber: Int = 1, autopilotNumber: Int = 2, flavour: AutopilotEmulator.Flavour = .ardupilot
    ) throws -> Outcome {
        var (a, b, now) = try airborne(
            avoid: avoid, simulatedNumber: simulatedNumber, autopilotNumber: autopilotNumber, flavour: flavour)
        let goalA = geo(40, 0, 10), goalB = geo(-40, 0, 10)
        a.take(a.pilot.execute(id(3), .goto(goalA, speedCmS: 400), now: now), now: now)
        b.take(b.pilot.execute(id(4), .goto(goalB, speedCmS: 400), now: now), now: now)
        var outcome = Outcome()
        let end = now + .seconds(90)
        while now < end && !(a.completed(id(3)) && b.completed(id(4))) {
            now = now + .milliseconds(50)
            a.step(to: now, seeing: b)
            b.step(to: now, seeing: a)
            outcome.maneuvered.simulated = outcome.maneuvered.simulated || maneuvers(a.pilot.decision)
            outcome.maneuvered.autopilot = outcome.maneuvered.autopilot || maneuvers(b.pilot.decision)
            let pa = a.position, pb = b.position
            let dh = (pa - pb).horizontalLength
            if abs(pa.z - pb.z) < 2.9 {
                outcome.closestHorizontal = min(outcome.closestHorizontal, dh)
                if dh < 5 { outcome.lossSeconds += 0.05 }
            }
        }
        outcome.arrived = (a.completed(id(3)), b.completed(id(4)))
        outcome.finalPositions = (a.position, b.position)
        return outcome
    }

    /// Whether a decision changes the mission's own plan.
    static func maneuvers(_ d: AvoidanceDecision) -> Bool {
        switch d.maneuver {
        case .notAvoiding, .nominal: return false
        default: return true
        }
    }

    @Test("without avoidance the head-on scenario is a collision")
    func withoutAvoidanceTheyCollide() throws {
        let o = try Self.flyHeadOn(avoid: false)
        print("no avoidance: closest \(o.closestHorizontal) m, \(o.lossSeconds) s inside the minima")
        #expect(o.closestHorizontal < 1)
        #expect(o.lossSeconds > 0.5)
    }

    @Test(
        "a simulated and an autopilot drone both avoid through the vehicle protocol, whichever gives way",
        arguments: [
            (1, 2, AutopilotEmulator.Flavour.ardupilot), (2, 1, .ardupilot), (1, 2, .px4), (2, 1, .px4),
        ])
    func bothKindsResolveTheConflict(numbers: (simulated: Int, autopilot: Int, flavour: AutopilotEmulator.Flavour))
        throws
    {
        let o = try Self.flyHeadOn(
            avoid: true, simulatedNumber: numbers.simulated, autopilotNumber: numbers.autopilot,
            flavour: numbers.flavour)
        print(
            "UAV \(numbers.simulated) simulated, UAV \(numbers.autopilot) \(numbers.flavour): closest \(o.closestHorizontal) m, \(o.lossSeconds) s inside the minima, maneuvered \(o.maneuvered)"
        )
        #expect(o.lossSeconds == 0, "separation lost: closest \(o.closestHorizontal) m")
        #expect(o.arrived.simulated && o.arrived.autopilot, "arrived \(o.arrived)")
        #expect((o.finalPositions.simulated - Vector3(40, 0, 10)).length < 1.5)
        #expect((o.finalPositions.autopilot - Vector3(-40, 0, 10)).length < 1.5)
        // The drone with the higher number gives way; the protocol lets either kind be that drone.
        if numbers.autopilot > numbers.simulated {
            #expect(o.maneuvered.autopilot)
        } else {
            #expect(o.maneuvered.simulated)
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
