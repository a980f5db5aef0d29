import Determinism
import Geodesy

/// The default vehicle: a simulated multirotor stepped by its caller.
///
/// A ``MultirotorModel`` (kinematics and autopilot modes) plus a draining battery with low-battery return and
/// critical-battery landing, seeded GPS noise and wind gusts. A pure value type: the caller sets ``setpoint`` and calls
/// ``step(dt:)`` — in real time inside a drone node, or as fast as it likes in tests and offline scenarios.
public struct MultirotorSimulator: Sendable {
    /// Settings.
    public let configuration: SimulatorConfiguration
    /// The map origin that local positions are relative to.
    public let origin: MapOrigin
    /// The noiseless vehicle.
    public private(set) var model: MultirotorModel
    /// Battery remaining, percent.
    public private(set) var batteryPercent: Double
    /// Simulation time, seconds since creation.
    public private(set) var time: Double = 0
    /// Distance flown so far (true path), metres.
    public private(set) var distanceFlown: Double = 0
    /// Time spent airborne, seconds.
    public private(set) var airborneTime: Double = 0
    /// What the vehicle is asked to do; set by the navigator (or the test) before each step.
    public var setpoint: Setpoint = .idle
    /// Set once the battery fell to the low threshold in the air; the vehicle then returns home whatever the setpoint.
    public private(set) var failsafe: Failsafe?

    private var random: SeededRandom
    private var gpsError: Vector3 = .zero
    private var gust: Vector3 = .zero
    private var gustVelocity: Vector3 = .zero

    /// Battery failsafes, which override the navigator's setpoints.
    public enum Failsafe: String, Sendable, Hashable, Codable {
        /// Low battery: return home.
        case returnHome
        /// Critical battery: land where it is.
        case land
    }

    /// A landed, disarmed vehicle at `home` (local ENU; z is ground level) with a full battery unless told otherwise.
    public init(
        origin: MapOrigin, home: Vector3 = .zero, configuration: SimulatorConfiguration = SimulatorConfiguration(),
        batteryPercent: Double = 100, heading: Double = 0
    ) {
        self.configuration = configuration
        self.origin = origin
        self.model = MultirotorModel(home: home, limits: configuration.limits, heading: heading)
        self.batteryPercent = min(100, max(0, batteryPercent))
        self.random = SeededRandom(seed: configuration.seed)
        if configuration.gpsNoise > 0 {
            gpsError = Vector3(random.gaussian(), random.gaussian(), 1.5 * random.gaussian()) * configuration.gpsNoise
        }
    }

    /// A vehicle already hovering `altitude` metres above `home` (armed, at rest), for simulations that start in the
    /// air; its setpoint holds that point until the caller sets another.
    public init(
        origin: MapOrigin, home: Vector3, hoveringAt altitude: Double,
        configuration: SimulatorConfiguration = SimulatorConfiguration(),
        batteryPercent: Double = 100, heading: Double = 0
    ) {
        self.init(
            origin: origin, home: home, configuration: configuration, batteryPercent: batteryPercent, heading: heading)
        let p = Vector3(home.x, home.y, home.z + max(0, altitude))
        model = MultirotorModel(
            state: VehicleState(
                position: p, heading: heading, armed: true, activity: .hovering,
                batteryPercent: self.batteryPercent, home: home), limits: configuration.limits)
        setpoint = .hold(p)
    }

    /// The setpoint actually flown: the caller's, unless a battery failsafe overrides it.
    public var effectiveSetpoint: Setpoint {
        switch failsafe {
        case .returnHome?: return .returnHome(altitude: configuration.returnAltitude)
        case .land?: return .land
        case nil: return setpoint
        }
    }

    /// Advances the simulation by `dt` seconds (subdivided into steps of at most 0.02 s).
    public mutating func step(dt: Double) {
        guard dt > 0, dt.isFinite else { return }
        let n = Int((dt / MultirotorModel.maxSubstep).rounded(.up))
        let h = dt / Double(n)
        for _ in 0..<n { substep(h) }
    }

    private mutating func substep(_ dt: Double) {
        updateFailsafe()
        let before = model.position, vBefore = model.velocity
        model.step(dt: dt, setpoint: effectiveSetpoint)
        if model.armed && !model.onGround {
            // Gusts: a zero-mean wind variation with ~2 s correlation. The velocity loop rejects it with a 0.5 s time
            // constant, so only the unrejected part (the high-passed gust) moves the vehicle off its path; the position
            // loop then pulls it back.
            if configuration.gustStrength > 0 {
                let a = min(1, dt / 2)
                let previous = gust
                gust =
                    gust * (1 - a) + Vector3(random.gaussian(), random.gaussian(), 0.3 * random.gaussian())
                    * (configuration.gustStrength * (2 * a).squareRoot())
                gustVelocity = gustVelocity * max(0, 1 - dt / 0.5) + (gust - previous)
                model.position += gustVelocity * dt
            }
            airborneTime += dt
        }
        let moved = model.position - before
        distanceFlown += moved.length
        let accel = (model.velocity - vBefore).length / dt
        let airspeed = (model.velocity - configuration.wind - gust).length
        batteryPercent = max(
            0,
            batteryPercent - dt
                * configuration.battery.drainPerSecond(
                    armed: model.armed, airborne: !model.onGround, airspeed: airspeed, climbRate: model.velocity.z,
                    acceleration: accel))
        if configuration.gpsNoise > 0 {
            let a = min(1, dt / configuration.gpsNoiseCorrelationTime)
            let s = configuration.gpsNoise * (2 * a).squareRoot()
            gpsError =
                gpsError * (1 - a) + Vector3(random.gaussian() * s, random.gaussian() * s, 1.5 * random.gaussian() * s)
        }
        time += dt
        if !model.armed && failsafe != nil && model.onGround { failsafe = nil }
    }

    private mutating func updateFailsafe() {
        guard model.armed, !model.onGround else { return }
        if batteryPercent <= configuration.criticalBatteryPercent {
            failsafe = .land
        } else if batteryPercent <= configuration.lowBatteryPercent && failsafe == nil {
            failsafe = .returnHome
        }
    }

    /// Ground-truth position (local ENU).
    public var truePosition: Vector3 { model.position }

    /// The navigator's view: local position with GPS error, velocity, heading, armed, activity, battery.
    public var state: VehicleState {
        var s = model.state(batteryPercent: batteryPercent)
        s.position += gpsError
        if model.onGround { s.position.z = model.position.z }
        return s
    }

    /// A telemetry snapshot (position with GPS error).
    public var telemetry: Telemetry {
        let s = state
        return Telemetry(time: time, position: origin.geodetic(s.position.localPosition), state: s)
    }
}
