import Flight
import Foundation

/// Keeps an autopilot drone's predictions honest: it remembers what two models predicted (the mirrored plan, and
/// the measured velocity extrapolated), compares each with where the drone then really was, and says which model to
/// publish and how uncertain it is.
///
/// Pure: predictions come in through ``record(plan:extrapolation:)``, positions through
/// ``observe(_:at:)``, with the vehicle's time. An autopilot that flies its plan keeps the plan trusted and the
/// uncertainty at the position noise; one that is slower than commanded, drifts in wind or ignores a setpoint makes
/// the plan's error grow, and once the plan goes wrong faster than ``distrustGrowth`` (and the extrapolation does
/// better) the measured state is published instead, with the rate at which it went wrong as growth.
public struct PredictionMonitor: Sendable {
    /// A model's error rate (metres per second of prediction age) above which the plan is not published …
    public var distrustGrowth = 1.5
    /// … if the extrapolation's is below this share of it (a manoeuvre fools the extrapolation more than the plan).
    public var betterShare = 0.5
    /// The plan is trusted again once its error rate falls below this.
    public var trustGrowth = 0.5
    /// Position noise, metres: errors below it are noise (GPS, the telemetry's 10 Hz sampling).
    public var noiseRadius = 0.5
    /// How fast an error rate is forgotten once the model does better, seconds (time constant).
    public var memory = 3.0

    /// Predictions are compared once they are this old, seconds (younger ones measure mostly noise) …
    static let minimumAge = 0.8
    /// … and until this old.
    static let maximumAge = 3.0
    /// At most one pair of predictions is kept per this many seconds.
    static let recordInterval = 0.4

    private var plans: [PredictedTrajectory] = []
    private var extrapolations: [PredictedTrajectory] = []
    private var lastObserved: Double?
    /// The plan's recent error rate, m/s.
    public private(set) var planGrowth = 0.0
    /// The extrapolation's recent error rate, m/s.
    public private(set) var extrapolationGrowth = 0.0
    /// How far the drone recently was from what the model in use predicted 0.3–1 s before, metres (its tracking
    /// error: response lag, gusts, GPS error); taken at once when larger, forgotten over `trackingMemory`.
    public private(set) var trackingError = 0.0
    /// How fast a tracking error is forgotten, seconds (time constant).
    public var trackingMemory = 10.0
    /// Predictions this young give the tracking error, seconds.
    static let youngAges = 0.3...1.0
    /// Whether the plan is published (false: the measured state extrapolated).
    public private(set) var trustsPlan = true

    public init() {}

    /// Whether a new pair of predictions is due at `now`.
    public func wantsRecord(at now: Double) -> Bool {
        guard let last = plans.last ?? extrapolations.last else { return true }
        return now - last.time >= Self.recordInterval || now < last.time
    }

    /// What the two models predict now (`plan` nil: the node does not know what the autopilot flies).
    public mutating func record(plan: PredictedTrajectory?, extrapolation: PredictedTrajectory) {
        if let plan { Self.keep(plan, in: &plans) }
        Self.keep(extrapolation, in: &extrapolations)
    }

    /// Where the drone was at `time`; updates the error rates and which model is trusted.
    public mutating func observe(_ position: Vector3, at time: Double) {
        let dt = lastObserved.map { max(0, time - $0) } ?? 0
        lastObserved = time
        planGrowth = update(planGrowth, Self.rate(of: plans, position, time, noise: noiseRadius), dt)
        extrapolationGrowth = update(
            extrapolationGrowth, Self.rate(of: extrapolations, position, time, noise: noiseRadius), dt)
        let young = Self.youngError(of: trustsPlan ? plans : extrapolations, position, time)
        if let young, young >= trackingError {
            trackingError = young
        } else {
            trackingError = (young ?? 0) + (trackingError - (young ?? 0)) * Self.decay(dt, trackingMemory)
        }
        if trustsPlan, planGrowth > distrustGrowth, extrapolationGrowth < betterShare * planGrowth {
            trustsPlan = false
        } else if !trustsPlan, planGrowth < trustGrowth || planGrowth <= extrapolationGrowth {
            trustsPlan = true
        }
    }

    /// The plan is new (another command): its predictions so far say nothing about it.
    public mutating func planChanged() {
        plans = []
        planGrowth = 0
        trustsPlan = true
    }

    /// Avoidance changed how the plan is flown: the plan's earlier predictions are of another path (its error rate
    /// stays, and fades as the new path is flown as predicted).
    public mutating func planAdjusted() {
        plans = []
    }

    /// The uncertainty to publish with the model in use: its tracking error as the radius (at most 3 m), its recent
    /// error rate as growth.
    public var uncertainty: PredictionUncertainty {
        PredictionUncertainty(
            radius: min(3, trackingError), growth: trustsPlan ? planGrowth : extrapolationGrowth)
    }

    // MARK: - Helpers

    /// Rises at once to a worse rate; falls toward a better one with the `memory` time constant.
    private func update(_ current: Double, _ measured: Double?, _ dt: Double) -> Double {
        guard let measured else { return current * Self.decay(dt, memory) }
        if measured >= current { return measured }
        return measured + (current - measured) * Self.decay(dt, memory)
    }

    static func decay(_ dt: Double, _ tau: Double) -> Double { tau > 0 ? exp(-dt / tau) : 0 }

    /// The worst error rate of the kept predictions that are old enough, against `position` at `time`.
    static func rate(of list: [PredictedTrajectory], _ position: Vector3, _ time: Double, noise: Double) -> Double? {
        var worst: Double?
        for p in list {
            let age = time - p.time
            guard age >= minimumAge, age <= maximumAge, let last = p.points.last, age <= last.offset else { continue }
            let error = (p.position(atOffset: age) - position).length
            let r = max(0, error - noise) / age
            worst = max(worst ?? 0, r)
        }
        return worst
    }

    /// The largest error of the kept predictions 0.3–1 s old against `position` at `time`.
    static func youngError(of list: [PredictedTrajectory], _ position: Vector3, _ time: Double) -> Double? {
        var worst: Double?
        for p in list where youngAges.contains(time - p.time) {
            worst = max(worst ?? 0, (p.position(atOffset: time - p.time) - position).length)
        }
        return worst
    }

    static func keep(_ p: PredictedTrajectory, in list: inout [PredictedTrajectory]) {
        list.removeAll { p.time - $0.time > maximumAge || $0.time > p.time }
        list.append(p)
    }
}
