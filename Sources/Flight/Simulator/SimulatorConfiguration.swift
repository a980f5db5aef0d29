/// Settings of a simulated multirotor.
public struct SimulatorConfiguration: Sendable, Hashable, Codable {
    /// Performance limits.
    public var limits = VehicleLimits()
    /// Battery model.
    public var battery = BatteryModel()
    /// Standard deviation of the GPS position error per horizontal axis, metres (0 = perfect GPS).
    /// The error is a first-order Gauss–Markov process with ``gpsNoiseCorrelationTime``; vertical error is 1.5× this.
    public var gpsNoise: Double = 0
    /// Correlation time of the GPS error, seconds.
    public var gpsNoiseCorrelationTime: Double = 20
    /// Mean wind, ENU m/s. The position controller compensates the mean wind; it costs battery.
    public var wind: Vector3 = .zero
    /// Standard deviation of gusts per axis, m/s; the part the velocity loop does not reject (0.5 s time constant)
    /// pushes the vehicle off its path until the position loop pulls it back.
    public var gustStrength: Double = 0
    /// Seed of the noise and wind generator.
    public var seed: UInt64 = 1
    /// Battery percent at or below which an airborne vehicle returns home on its own.
    public var lowBatteryPercent: Double = 20
    /// Battery percent at or below which the vehicle lands where it is.
    public var criticalBatteryPercent: Double = 8
    /// Altitude above home for return home, metres.
    public var returnAltitude: Double = 20

    /// Defaults: perfect GPS, no wind, full default battery, RTL at 20 %, land at 8 %, return altitude 20 m.
    public init() {}
}

/// How fast the battery drains: a hover cost plus terms for speed, climbing and acceleration (effort).
public struct BatteryModel: Sendable, Hashable, Codable {
    /// Percent per second while hovering (default 100 % over 15 minutes).
    public var hoverDrainPerSecond: Double = 100.0 / (15 * 60)
    /// Percent per second while armed on the ground.
    public var armedIdleDrainPerSecond: Double = 0.01
    /// Extra drain per (m/s)² of airspeed, as a fraction of the hover drain.
    public var airspeedFactor: Double = 0.01
    /// Extra drain per m/s of climb, as a fraction of the hover drain.
    public var climbFactor: Double = 0.15
    /// Extra drain per m/s² of acceleration, as a fraction of the hover drain.
    public var accelerationFactor: Double = 0.05

    /// Default model (15 minutes of hover from full).
    public init() {}

    /// Percent per second for a vehicle in the given condition.
    public func drainPerSecond(armed: Bool, airborne: Bool, airspeed: Double, climbRate: Double, acceleration: Double)
        -> Double
    {
        guard armed else { return 0 }
        guard airborne else { return armedIdleDrainPerSecond }
        return hoverDrainPerSecond
            * (1 + airspeedFactor * airspeed * airspeed + climbFactor * max(0, climbRate)
                + accelerationFactor * acceleration)
    }
}
