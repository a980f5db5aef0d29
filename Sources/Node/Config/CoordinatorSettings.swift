import Coordinator

/// Rates and failsafe timing of a node's coordinator (`[coordinator]`; every key optional).
public struct CoordinatorSettings: Sendable, Equatable {
    /// Drones: telemetry published per second (`telemetry_hz`, 1–50, default 10).
    public var telemetryHz: Double = 10
    /// Drones: predicted trajectories published per second (`prediction_hz`, 1–20, default 5).
    public var predictionHz: Double = 5
    /// Drones: with no station reachable this long, a flying drone hovers (`failsafe_hover_after_ms`, default 5000,
    /// as ArduPilot's FS_GCS_TIMEOUT).
    public var failsafeHoverAfterMs: Int = 5000
    /// … and after this much longer takes `failsafeAction` (`failsafe_action_after_ms`, default 10000).
    public var failsafeActionAfterMs: Int = 10_000
    /// The second step: return home or land (`failsafe_action` = "return_home" or "land", default "return_home").
    public var failsafeAction: FailsafeAction = .returnHome
    /// The longest route in hops, also the TTL of routed messages and floods (`hop_limit`, 1–64, default 8): nodes
    /// further away are unreachable. Every node of a mesh should use the same value (numbers are kept unique, and
    /// routes exist, only within it).
    public var hopLimit: Int = 8

    public init() {}

    /// Applies the settings to a core configuration.
    public func apply(to c: inout CoordinatorConfiguration) {
        c.telemetryInterval = .nanoseconds(Int64((1e9 / telemetryHz).rounded()))
        c.predictionInterval = .nanoseconds(Int64((1e9 / predictionHz).rounded()))
        c.failsafeHoverAfter = .milliseconds(failsafeHoverAfterMs)
        c.failsafeActionAfter = .milliseconds(failsafeActionAfterMs)
        c.failsafeAction = failsafeAction
        c.hopLimit = UInt8(hopLimit)
    }

    /// How often the shell hands the core a fresh prediction.
    var predictionInterval: Duration { .nanoseconds(Int64((1e9 / predictionHz).rounded())) }
}
