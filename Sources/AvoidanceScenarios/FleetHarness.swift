import AutopilotEmulation
import Avoidance
import Coordinator
import Flight
import Geodesy
import MeshTypes
import Vehicles

/// N drones of any mix — simulated, or on an in-process ArduPilot or PX4 (``AutopilotEmulator``) — each behind a
/// `VehiclePilot` as a drone node runs it, on one virtual clock. Pure: no sockets and no clock.
///
/// Every 50 ms each drone runs its control cycle (`VehiclePilot.cycle`) against the others' latest published
/// predictions, which travel as the mesh carries them (every 200 ms, latitude/longitude/altitude, with their age); an
/// autopilot drone's frames reach its emulator as MAVLink bytes and the emulator's frames come back the same way
/// (through ``transport`` when set, e.g. a real UDP socket in a benchmark). Positions for measuring separation are
/// the true ones (the emulator's and the simulator's), not what GPS reports.
public struct FleetHarness: Sendable {
    /// What a drone flies.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// Flight's simulator.
        case simulated
        /// An autopilot of this firmware, emulated in process.
        case autopilot(AutopilotEmulator.Flavour)

        public var description: String {
            switch self {
            case .simulated: return "simulated"
            case .autopilot(let f): return f.rawValue
            }
        }
    }

    /// How real the emulated autopilots are (the simulated drones are unaffected).
    public struct Realism: Sendable, Hashable {
        /// The airframe's velocity lag, seconds.
        public var responseTime: Double
        /// Frames from the companion take effect this much later, seconds.
        public var transportDelay: Double
        /// Steady wind, east-north-up m/s.
        public var wind: Vector3
        /// Gusts: standard deviation per horizontal axis, m/s.
        public var gustStrength: Double
        /// GPS error in reported positions, metres per horizontal axis.
        public var gpsNoise: Double
        /// Its correlation time, seconds.
        public var gpsNoiseCorrelationTime: Double

        public init(
            responseTime: Double = 0, transportDelay: Double = 0, wind: Vector3 = .zero, gustStrength: Double = 0,
            gpsNoise: Double = 0, gpsNoiseCorrelationTime: Double = 0
        ) {
            self.responseTime = responseTime
            self.transportDelay = transportDelay
            self.wind = wind
            self.gustStrength = gustStrength
            self.gpsNoise = gpsNoise
            self.gpsNoiseCorrelationTime = gpsNoiseCorrelationTime
        }

        /// An ideal autopilot: no lag, no delay, still air, exact GPS.
        public static let ideal = Realism()
        /// A real copter on a windy day: 0.4 s response, 50 ms link, 3 m/s wind from the west with 1 m/s gusts,
        /// 0.3 m GPS error (2 s correlation).
        public static let realistic = Realism(
            responseTime: 0.4, transportDelay: 0.05, wind: Vector3(3, 0, 0), gustStrength: 1, gpsNoise: 0.3,
            gpsNoiseCorrelationTime: 2)
    }

    /// One drone: its pilot, the emulated autopilot behind it (nil: the simulator), its UAV number and its latest
    /// published prediction.
    public struct Drone: Sendable {
        public var kind: Kind
        public var pilot: VehiclePilot
        public var autopilot: AutopilotEmulator?
        public var uavNumber: Int
        /// Where it took off from, in the scenario's frame.
        public var home: Vector3
        public var published: (prediction: TrajectoryPrediction, at: MeshInstant)?
        /// Verdicts, completions and failures, in order.
        public var answers: [VehicleEvent] = []
        /// The vehicle's log lines with their time (seconds), as the node would log them.
        public var logs: [(time: Double, text: String)] = []
        /// The node id the mesh knows it by.
        public var node: NodeID { NodeID(high: 9, low: UInt64(uavNumber)) }

        /// Whether the command has completed.
        public func completed(_ id: CommandID) -> Bool { answers.contains(.completed(id)) }
    }

    /// The scenario's frame: positions are metres east, north and up from here.
    public let origin: MapOrigin
    public private(set) var drones: [Drone]
    public private(set) var now = MeshInstant.zero
    /// The control cycle.
    public var cycle: Duration = .milliseconds(50)
    /// Carries a frame from a drone's pilot to its autopilot and returns the bytes as they arrive (nil: in process).
    public var transport: (@Sendable (_ drone: Int, _ bytes: [UInt8]) -> [UInt8])?
    private var commands: UInt64 = 0

    /// Drones of `kinds` on the ground at `homes` (east, north in metres from the origin; up ignored), numbered 1, 2 …
    /// in order. With `avoid`, each runs collision avoidance (`configuration`). Emulated autopilots get `realism`
    /// and each its own `faults` (by index) and seed.
    public init(
        kinds: [Kind], homes: [Vector3], avoid: Bool = true, configuration: AvoidanceConfiguration = .init(),
        realism: Realism = .ideal, faults: [Int: [AutopilotEmulator.Fault]] = [:], seed: UInt64 = 1,
        latitude: Double = 50.0755, longitude: Double = 14.4378
    ) throws {
        precondition(kinds.count == homes.count, "one home per drone")
        origin = try MapOrigin(latitude: latitude, longitude: longitude)
        let plan = avoid ? AvoidancePlan(configuration: configuration) : nil
        var drones: [Drone] = []
        for (i, (kind, home)) in zip(kinds, homes).enumerated() {
            switch kind {
            case .simulated:
                let sim = try SimulatedVehicle(latitude: latitude, longitude: longitude, offset: (home.x, home.y))
                drones.append(
                    Drone(
                        kind: kind,
                        pilot: try VehiclePilot(vehicle: sim, plan: plan, predictionInterval: .milliseconds(200)),
                        uavNumber: i + 1, home: Vector3(home.x, home.y, 0)))
            case .autopilot(let flavour):
                let g = origin.geodetic(LocalPosition(east: home.x, north: home.y, up: 0))
                var c = AutopilotEmulator.Configuration(flavour: flavour)
                c.homeLatitude = g.latitude
                c.homeLongitude = g.longitude
                c.responseTime = realism.responseTime
                c.transportDelay = realism.transportDelay
                c.wind = realism.wind
                c.gustStrength = realism.gustStrength
                c.gpsNoise = realism.gpsNoise
                c.gpsNoiseCorrelationTime = realism.gpsNoiseCorrelationTime
                c.seed = seed &* 1000 &+ UInt64(i)
                c.faults = faults[i] ?? []
                let vehicle = AutopilotVehicle(linkName: "in-process", autopilotSystemID: nil)
                drones.append(
                    Drone(
                        kind: kind,
                        pilot: try VehiclePilot(vehicle: vehicle, plan: plan, predictionInterval: .milliseconds(200)),
                        autopilot: AutopilotEmulator(configuration: c), uavNumber: i + 1,
                        home: Vector3(home.x, home.y, 0)))
            }
        }
        self.drones = drones
    }

    // MARK: - Running

    /// Carries a drone's events: frames to its autopilot (whose answers go back to the pilot at once), and keeps the
    /// answers.
    mutating func take(_ i: Int, _ events: [VehicleEvent]) {
        var queue = events[...]
        while let e = queue.popFirst() {
            switch e {
            case .send(let bytes):
                guard var ap = drones[i].autopilot else { continue }
                let arrived = transport.map { $0(i, bytes) } ?? bytes
                let replies = ap.receive(arrived, endOfDatagram: true, now: now.seconds)
                drones[i].autopilot = ap
                for r in replies { queue += drones[i].pilot.receive(r, endOfDatagram: true, now: now) }
            case .verdict, .completed, .failed, .flyingChanged:
                drones[i].answers.append(e)
            case .log(_, let text):
                drones[i].logs.append((now.seconds, text))
            }
        }
    }

    /// The autopilot's frames due by now go to drone `i`'s pilot (the link's side of a node, before its cycle).
    public mutating func deliverTelemetry(_ i: Int) {
        guard var ap = drones[i].autopilot else { return }
        let frames = ap.advance(to: now.seconds)
        drones[i].autopilot = ap
        for f in frames { take(i, drones[i].pilot.receive(f, endOfDatagram: true, now: now)) }
    }

    /// Drone `i`'s control cycle against what the others last published; returns whether avoidance replanned.
    @discardableResult
    public mutating func runCycle(_ i: Int) -> Bool {
        let airspace = drones.indices.compactMap { j -> AirspaceEntry? in
            guard j != i, let p = drones[j].published else { return nil }
            return AirspaceEntry(
                node: drones[j].node, uavNumber: UInt8(drones[j].uavNumber), prediction: p.prediction, age: now - p.at)
        }
        let d = drones[i]
        let result = drones[i].pilot.cycle(
            now: now, airspace: airspace, ownNode: d.node, uavNumber: UInt8(d.uavNumber),
            tiebreak: UInt64(d.uavNumber))
        take(i, result.events)
        if let p = result.prediction { drones[i].published = (p, now) }
        return result.replanned
    }

    /// The clock moves one cycle on (then call ``deliverTelemetry(_:)`` and ``runCycle(_:)`` for each drone).
    public mutating func startCycle() { now = now + cycle }

    /// The clock moves one cycle on; then every drone hears its autopilot and runs its cycle.
    public mutating func step() {
        startCycle()
        for i in drones.indices {
            deliverTelemetry(i)
            runCycle(i)
        }
    }

    /// Steps until `done` holds; false if `limit` came first.
    @discardableResult
    public mutating func run(for limit: Duration, until done: (FleetHarness) -> Bool) -> Bool {
        let end = now + limit
        while !done(self) {
            guard now < end else { return false }
            step()
        }
        return true
    }

    // MARK: - Commands

    /// A new command id, as from one station.
    public mutating func nextCommandID() -> CommandID {
        commands += 1
        return CommandID(origin: NodeID(high: 7, low: 7), originIncarnation: 1, counter: commands)
    }

    /// Sends `command` to drone `i` now; returns its id.
    @discardableResult
    public mutating func execute(_ i: Int, _ command: Command) -> CommandID {
        let id = nextCommandID()
        take(i, drones[i].pilot.execute(id, command, now: now))
        return id
    }

    /// Waits until every autopilot reports a position (and avoidance is on, where asked), then takes every drone off
    /// to `altitude` metres and waits for all to complete.
    public mutating func takeOff(altitude: Double = 10, within limit: Duration = .seconds(60)) throws {
        let ready = run(for: .seconds(10)) { h in
            h.drones.allSatisfy { $0.pilot.frame != nil && $0.pilot.telemetry != nil }
        }
        guard ready else { throw HarnessError("an autopilot never reported a position") }
        let ids = drones.indices.map { execute($0, .takeoff(altitudeMillimetres: Int32(altitude * 1000))) }
        let done = run(for: limit) { h in zip(h.drones, ids).allSatisfy { $0.completed($1) } }
        guard done else { throw HarnessError("takeoff did not complete: \(drones.map(\.answers))") }
    }

    /// Puts back drone `i`'s autopilot after changing it (a fault injected).
    public mutating func replaceAutopilot(_ i: Int, _ autopilot: AutopilotEmulator) {
        drones[i].autopilot = autopilot
    }

    /// A point `east`, `north` metres from the origin at `up` metres above home.
    public func geo(_ p: Vector3) -> GeoPoint {
        let g = origin.geodetic(LocalPosition(east: p.x, north: p.y, up: 0))
        return GeoPoint(latitude: g.latitude, longitude: g.longitude, altitude: p.z)
    }

    // MARK: - Measuring

    /// Drone `i`'s true position in the scenario's frame.
    public func position(_ i: Int) -> Vector3 {
        if let ap = drones[i].autopilot {
            let c = ap.coordinate
            let l =
                (try? origin.local(GeodeticCoordinate(latitude: c.latitude, longitude: c.longitude, altitude: 0)))
                ?? LocalPosition(east: .nan, north: .nan, up: 0)
            return Vector3(l.east, l.north, ap.position.z)
        }
        if let sim = drones[i].pilot.vehicle as? SimulatedVehicle { return sim.simulator.truePosition }
        return .zero
    }
}

/// A harness step that could not be done.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension MeshInstant {
    /// Seconds since the clock's zero (the emulators' time scale).
    var seconds: Double { Double(nanoseconds) / 1e9 }
}
