import Determinism
import Flight
import Geodesy
import MAVLink

/// An in-process multirotor autopilot that speaks MAVLink 2: ArduPilot Copter (or PX4) as a companion computer sees it.
///
/// Pure and deterministic: no I/O and no clock. Bytes from the companion go in through ``receive(_:endOfDatagram:now:)``,
/// time moves on through ``advance(to:)``, and both return the frames the autopilot sends back (one `[UInt8]` per
/// frame). Flight uses `Flight.MultirotorModel` in a local east-north-up frame at home (a `Geodesy.TangentPlane`), so
/// positions in GLOBAL_POSITION_INT come from real geodesy.
///
/// Behaviour follows the lab tests' Python emulator (`Tests/mavlink/autopilot_emulator.py`): the firmware's custom
/// modes, COMMAND_LONG / COMMAND_INT with COMMAND_ACK (arming, mode changes, takeoff, land, return, reposition,
/// speed, message intervals), position targets in ArduPilot GUIDED / PX4 OFFBOARD, MANUAL_CONTROL in the stick
/// modes, mission upload and AUTO, and the telemetry streams.
public struct AutopilotEmulator: Sendable {
    /// The firmware emulated.
    public enum Flavour: String, Sendable, Hashable, CaseIterable {
        /// ArduPilot Copter: custom mode = mode number, takeoff only in GUIDED, streams only what is asked for.
        case ardupilot
        /// PX4: custom mode = main << 16 | sub << 24, OFFBOARD needs a setpoint stream, takeoff altitude AMSL.
        case px4
    }

    /// Identity, home, speeds and fault injection.
    public struct Configuration: Sendable, Hashable {
        /// The firmware emulated.
        public var flavour: Flavour
        /// The autopilot's system id (SYSID_THISMAV / MAV_SYS_ID).
        public var systemID: UInt8
        /// The autopilot's component id (MAV_COMP_ID_AUTOPILOT1).
        public var componentID: UInt8
        /// Home latitude, degrees.
        public var homeLatitude: Double
        /// Home longitude, degrees.
        public var homeLongitude: Double
        /// Home altitude above mean sea level, metres.
        public var homeAltitude: Double
        /// Horizontal speed of position targets, missions and returns until DO_CHANGE_SPEED (ArduPilot WPNAV_SPEED).
        public var cruiseSpeed: Double
        /// The vehicle's performance; `maxHorizontalSpeed` caps every speed (sticks, velocity targets, DO_CHANGE_SPEED).
        public var limits: VehicleLimits
        /// Return altitude above home, metres (ArduPilot RTL_ALT).
        public var returnAltitude: Double = 15
        /// Battery percentage reported in SYS_STATUS and BATTERY_STATUS.
        public var batteryPercent: Int8 = 87
        /// On the ground in LAND (or at the end of RTL) for this long, seconds: disarmed.
        public var landDisarmDelay = 0.5
        /// Armed on the ground without taking off for this long, seconds: disarmed (ArduPilot DISARM_DELAY); nil: never.
        public var autoDisarmDelay: Double?
        /// Stream telemetry at the default rates before any MAV_CMD_SET_MESSAGE_INTERVAL (PX4 does; ArduPilot on a new
        /// link sends only HEARTBEAT until asked).
        public var streamsByDefault: Bool
        /// Answer the first COMMAND_LONG / COMMAND_INT with this command with this result instead of executing it.
        public var refuseOnce: [MAVCmd: MAVResult] = [:]
        /// Do not answer the first transmission of these commands (the companion must retry).
        public var ignoreFirst: Set<MAVCmd> = []
        /// The airframe's response: its velocity follows the flight controller's through a first-order lag with this
        /// time constant, seconds (a real copter: 0.3–0.5 s); 0: at once.
        public var responseTime = 0.0
        /// Frames from the companion (commands, position targets, everything) take effect this long after they
        /// arrive, seconds; answers come after that. 0: at once.
        public var transportDelay = 0.0
        /// Steady wind, east-north-up m/s (horizontal only is flown). With a position to hold or fly to, the position
        /// controller learns it (about 1 s) and holds against it; flying a velocity alone (velocity targets, the
        /// sticks) the vehicle drifts with it.
        public var wind: Vector3 = .zero
        /// Gusts on top of the wind: standard deviation per horizontal axis, m/s, about 2 s correlation (seeded).
        public var gustStrength = 0.0
        /// Standard deviation of the GPS error in the reported GLOBAL_POSITION_INT, metres per horizontal axis
        /// (altitude 0.5×: the autopilot fuses the barometer); the true position is unaffected. 0: exact.
        public var gpsNoise = 0.0
        /// Correlation time of the GPS error, seconds (first-order Gauss–Markov); 0: independent in every report.
        public var gpsNoiseCorrelationTime = 0.0
        /// Seed of the gust and GPS noise generator.
        public var seed: UInt64 = 1
        /// Scripted faults, each at a time after boot (the first `advance` / `receive`).
        public var faults: [Fault] = []
        /// PX4: the switch to OFFBOARD is denied unless position targets have been streaming (at least 2 Hz) for this
        /// long, seconds, as real PX4 wants (COM_OF_LOSS_T, the offboard "prestream").
        public var offboardPrestream = 0.5

        /// ArduPilot-like limits: `VehicleLimits` defaults with a 10 m/s horizontal cap (above WPNAV_SPEED).
        public static var defaultLimits: VehicleLimits { VehicleLimits(maxHorizontalSpeed: 10) }

        /// A configuration; home defaults to the Python emulator's (50.0901, 14.4101, 300 m).
        public init(
            flavour: Flavour = .ardupilot, systemID: UInt8 = 1, componentID: UInt8 = 1, homeLatitude: Double = 50.0901,
            homeLongitude: Double = 14.4101, homeAltitude: Double = 300, cruiseSpeed: Double = 5,
            limits: VehicleLimits = Configuration.defaultLimits
        ) {
            self.flavour = flavour
            self.systemID = systemID
            self.componentID = componentID
            self.homeLatitude = homeLatitude
            self.homeLongitude = homeLongitude
            self.homeAltitude = homeAltitude
            self.cruiseSpeed = cruiseSpeed
            self.limits = limits
            self.streamsByDefault = flavour == .px4
        }
    }

    /// The configuration it was made with.
    public let configuration: Configuration
    let plane: TangentPlane
    var parser = MAVLinkParser()
    var encoder: MAVLinkEncoder
    var model: MultirotorModel

    /// Whether the motors are armed (as reported in HEARTBEAT).
    public internal(set) var armed = false
    /// The HEARTBEAT custom mode.
    public internal(set) var customMode: UInt32
    /// The horizontal speed of position targets now (cruise speed, or the latest DO_CHANGE_SPEED / DO_REPOSITION).
    public internal(set) var speed: Double
    /// The uploaded mission (ArduPilot: item 0 is home).
    public internal(set) var mission: [Waypoint] = []
    /// The mission item being flown to.
    public internal(set) var missionSequence = 0
    /// Everything received and done, in order.
    public internal(set) var log: [LogEntry] = []

    // Flight state.
    /// Where the vehicle holds or flies to (local ENU); nil: brake and hold where it stops.
    var target: Vector3?
    /// A velocity from the companion (position target feed-forward, or velocity only) and when it came.
    var targetVelocity: (velocity: Vector3, at: Double)?
    /// Heading asked for with a position target (degrees); nil: face the direction of travel.
    var desiredHeading: Double?
    /// Climbing to this altitude above home after NAV_TAKEOFF.
    var takeoffAltitude: Double?
    /// Descending to land (LAND, or the end of RTL).
    var landing = false
    var landedSince: Double?
    var armedOnGroundSince: Double?
    var manual: ManualInput?

    // Link state.
    var time: Double?
    var bootTime = 0.0
    var lastSetpointAt = -Double.infinity
    var streaming: Bool
    /// Intervals asked with SET_MESSAGE_INTERVAL, seconds; negative: disabled.
    var intervals: [UInt32: Double] = [:]
    var nextDue: [UInt32: Double] = [:]
    var lastSent: [UInt32: Double] = [:]
    var lastLandedState: MAVLandedState?
    var upload: MissionUpload?
    var refuse: [MAVCmd: MAVResult]
    var ignore: Set<MAVCmd>
    var heardFrom: Set<UInt16> = []
    /// When the current stream of position targets (no gap longer than 0.5 s) began.
    var setpointStreamStart = -Double.infinity
    /// Frames waiting out the transport delay, in arrival order.
    var pending: [(due: Double, frame: MAVLinkFrame)] = []
    /// The scripted faults: the configuration's and those injected since.
    public internal(set) var faults: [Fault]
    /// Indices of `faults` that have happened.
    var firedFaults: Set<Int> = []

    // Environment state.
    var random: SeededRandom
    var gust: Vector3 = .zero
    /// What the position controller has learned of the wind (it cancels this much).
    var windCompensation: Vector3 = .zero
    /// The wind's effect the controller does not cancel: flown on top of the model's velocity, m/s.
    public internal(set) var drift: Vector3 = .zero
    /// The velocity the airframe flies (the controller's, through the response lag), without the wind's drift.
    var flown: Vector3 = .zero
    /// The model is flying a velocity alone (no position to hold) this substep.
    var flyingVelocityOnly = false
    var gpsError: Vector3 = .zero
    var lastGPSAt: Double?
    /// SET_POSITION_TARGET_GLOBAL_INT messages addressed to the autopilot.
    public internal(set) var positionTargetCount = 0
    /// MANUAL_CONTROL messages addressed to the autopilot.
    public internal(set) var manualControlCount = 0
    /// Every valid frame received, counted by message name ("HEARTBEAT", "COMMAND_LONG"), whoever it was for.
    public internal(set) var messageCounts: [String: Int] = [:]

    /// An emulated vehicle on the ground at home, disarmed, in the firmware's initial mode (ArduPilot LOITER, PX4
    /// AUTO.LOITER).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        plane = TangentPlane(
            origin: GeodeticCoordinate(
                latitude: configuration.homeLatitude, longitude: configuration.homeLongitude,
                altitude: configuration.homeAltitude))
        encoder = MAVLinkEncoder(systemID: configuration.systemID, componentID: configuration.componentID)
        model = MultirotorModel(home: .zero, limits: configuration.limits)
        customMode = configuration.flavour.initialMode
        speed = configuration.cruiseSpeed
        streaming = configuration.streamsByDefault
        refuse = configuration.refuseOnce
        ignore = configuration.ignoreFirst
        random = SeededRandom(seed: configuration.seed)
        faults = configuration.faults
    }

    // MARK: - Inputs

    /// Bytes from the companion: a whole UDP datagram (`endOfDatagram`: a frame cut short there is dropped) or any
    /// chunk of a stream. The vehicle first flies on to `now`. Returns the frames to send back now (COMMAND_ACK,
    /// mission requests, STATUSTEXT, requested messages …); garbage is skipped.
    public mutating func receive(_ bytes: [UInt8], endOfDatagram: Bool = false, now: Double) -> [[UInt8]] {
        var out = simulate(to: now)
        var events = parser.feed(bytes)
        if endOfDatagram { events += parser.finish() }
        // Silent (a scripted fault): the link is dead both ways.
        guard !isSilent(at: now) else { return [] }
        for case .frame(let frame) in events {
            if configuration.transportDelay > 0 {
                pending.append((now + configuration.transportDelay, frame))
            } else {
                out += handle(frame, now: now)
            }
        }
        return out
    }

    /// Flies the vehicle on to `now` (seconds on any monotonic scale; substeps of at most 20 ms) and returns the
    /// frames due: what the flight produced (STATUSTEXT, MISSION_ITEM_REACHED), then the telemetry (HEARTBEAT at 1 Hz;
    /// GLOBAL_POSITION_INT, ATTITUDE, SYS_STATUS, EXTENDED_SYS_STATE, HOME_POSITION at their rates). At most one
    /// frame of each telemetry message per call: call it at least as often as the fastest rate.
    public mutating func advance(to now: Double) -> [[UInt8]] {
        var out = simulate(to: now)
        out += telemetry(now: now)
        return isSilent(at: now) ? [] : out
    }

    // MARK: - State for assertions

    /// Position in metres from home: x east, y north, z up (altitude above home).
    public var position: Vector3 { model.position }
    /// Velocity over the ground, m/s, east-north-up (the wind's drift included).
    public var velocity: Vector3 { flown + drift }
    /// Heading, degrees clockwise from north.
    public var heading: Double { model.heading }
    /// Latitude, longitude and altitude above mean sea level of the vehicle.
    public var coordinate: GeodeticCoordinate {
        let g = plane.geodetic(LocalPosition(east: position.x, north: position.y, up: 0))
        return GeodeticCoordinate(
            latitude: g.latitude, longitude: g.longitude, altitude: configuration.homeAltitude + position.z)
    }
    /// The flight mode's name ("GUIDED", "AUTO.LOITER").
    public var modeName: String { configuration.flavour.modeName(customMode) }
    /// On the ground (within 5 cm of home level and not taking off).
    public var onGround: Bool { model.position.z <= 0.05 && takeoffAltitude == nil }
    /// The landed state reported in EXTENDED_SYS_STATE.
    public var landedState: MAVLandedState {
        if onGround { return .onGround }
        if takeoffAltitude != nil { return .takeoff }
        return landing ? .landing : .inAir
    }
    /// Every COMMAND_LONG / COMMAND_INT received, in order, with the result sent (nil: ignored).
    public var commandsReceived: [ReceivedCommand] {
        log.compactMap { if case .command(let c) = $0.event { return c } else { return nil } }
    }
    /// The interval GLOBAL_POSITION_INT and the other streams are sent at now, seconds; nil: not sent.
    public func messageInterval(_ messageID: UInt32) -> Double? { streamInterval(messageID) }

    // MARK: - Helpers

    mutating func frame(_ message: some MAVLinkMessageType) -> [UInt8] {
        encoder.encode(message, now: MAVLinkTimestamp(rawValue: 0))
    }

    mutating func record(_ event: Event, at now: Double) {
        log.append(LogEntry(time: now, event: event))
    }

    var flavour: Flavour { configuration.flavour }
    var behaviour: Behaviour { flavour.behaviour(customMode) }

    /// Local ENU position of a latitude/longitude (degrees × 1e7) at `up` metres above home.
    func local(latitudeE7: Int32, longitudeE7: Int32, up: Double) -> Vector3 {
        let l = plane.local(
            GeodeticCoordinate(
                latitude: Double(latitudeE7) / 1e7, longitude: Double(longitudeE7) / 1e7,
                altitude: configuration.homeAltitude))
        return Vector3(l.east, l.north, up)
    }

    /// Metres above home of an altitude in `frame` (AMSL for the global frames, else relative).
    func relativeAltitude(_ altitude: Float, frame: MAVFrame) -> Double {
        frame == .global || frame == .globalInt ? Double(altitude) - configuration.homeAltitude : Double(altitude)
    }
}

/// A float parameter as a non-negative integer (message ids, mode numbers); nil for NaN, negative or huge values.
func wholeNumber(_ value: Float) -> UInt32? {
    guard value.isFinite, value >= 0, value < 16_777_216 else { return nil }
    return UInt32(value)
}

extension AutopilotEmulator: CustomStringConvertible {
    /// "ardupilot 1 GUIDED armed IN_AIR at (24.000, 32.000, 10.000)".
    public var description: String {
        "\(flavour.rawValue) \(configuration.systemID) \(modeName) \(armed ? "armed" : "disarmed") "
            + "\(landedState.entryName ?? "\(landedState.rawValue)") at \(position)"
    }
}
