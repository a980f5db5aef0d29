import Geodesy

@testable import Flight

/// A simulated drone and its navigator on a virtual clock (the drone node's control loop, faster than real time).
struct Harness {
    static let origin = try! MapOrigin(latitude: 59.9, longitude: 10.7, altitude: 100)
    var sim: MultirotorSimulator
    var navigator: Navigator
    var now = 0.0
    let dt = 0.02

    init(
        configuration: SimulatorConfiguration = SimulatorConfiguration(),
        navigatorConfiguration: NavigatorConfiguration = NavigatorConfiguration(),
        battery: Double = 100, home: Vector3 = .zero
    ) {
        sim = MultirotorSimulator(
            origin: Self.origin, home: home, configuration: configuration, batteryPercent: battery)
        navigator = Navigator(origin: Self.origin, configuration: navigatorConfiguration)
    }

    mutating func command(_ c: FlightCommand) throws(CommandRejection) {
        try navigator.handle(c, state: sim.state, now: now)
    }

    /// Runs the loop for `seconds`, calling `each` after every tick.
    mutating func run(_ seconds: Double, each: (inout Harness) -> Void = { _ in }) {
        let steps = Int((seconds / dt).rounded())
        for _ in 0..<steps {
            sim.setpoint = navigator.setpoint(state: sim.state, now: now)
            sim.step(dt: dt)
            now += dt
            each(&self)
        }
    }

    /// Runs until `condition` holds or `limit` seconds pass; returns whether it held.
    mutating func run(until condition: (Harness) -> Bool, limit: Double) -> Bool {
        let end = now + limit
        while now < end {
            if condition(self) { return true }
            run(dt)
        }
        return condition(self)
    }

    /// Takes off to `altitude` and waits until hovering.
    mutating func takeOff(_ altitude: Double = 10) throws {
        try command(.takeoff(altitude: altitude))
        _ = run(until: { $0.sim.state.activity == .hovering }, limit: 30)
    }

    /// Hovering at 10 m, in a simulator with this GPS noise, gust strength and seed.
    static func hovering(gpsNoise: Double, gusts: Double = 0, seed: UInt64 = 1) throws -> Harness {
        var config = SimulatorConfiguration()
        config.gpsNoise = gpsNoise
        config.gustStrength = gusts
        config.seed = seed
        var h = Harness(configuration: config)
        try h.takeOff(10)
        return h
    }
}
