import Flight
import Foundation

extension AutopilotEmulator {
    /// How long the position controller takes to learn the wind (its integrator), seconds.
    static let windLearningTime = 1.0

    // MARK: - Response lag and wind

    /// What the airframe really does after the controller's step: its velocity follows the controller's through a
    /// first-order lag (``Configuration/responseTime``), and the wind and its gusts push it by what the controller
    /// does not cancel. Holding or flying to a position, the controller learns the wind (``windLearningTime``), so
    /// only changes (gusts) move the vehicle until the position loop pulls it back; flying a velocity alone (velocity
    /// targets, the sticks, braking), the learned part fades and the vehicle drifts with the air.
    mutating func respond(_ h: Double) {
        guard model.armed, !model.onGround else {
            flown = model.velocity
            drift = .zero
            windCompensation = .zero
            return
        }
        var correction = Vector3.zero
        if configuration.responseTime > 0 {
            flown += (model.velocity - flown) * min(1, h / configuration.responseTime)
            correction += (flown - model.velocity) * h
        } else {
            flown = model.velocity
        }
        if configuration.wind != .zero || configuration.gustStrength > 0 {
            if configuration.gustStrength > 0 {
                // As Flight's simulator: a zero-mean variation with ~2 s correlation.
                let a = min(1, h / 2)
                gust =
                    gust * (1 - a) + Vector3(random.gaussian(), random.gaussian(), 0)
                    * (configuration.gustStrength * (2 * a).squareRoot())
            }
            let air = Vector3(configuration.wind.x, configuration.wind.y, 0) + gust
            let learned = flyingVelocityOnly ? Vector3.zero : air
            windCompensation += (learned - windCompensation) * min(1, h / Self.windLearningTime)
            drift = air - windCompensation
            correction += drift * h
        }
        guard correction != .zero else { return }
        var state = model.state(batteryPercent: 100)
        state.position += correction
        state.position.z = max(state.position.z, state.home.z)
        model = MultirotorModel(state: state, limits: model.limits)
    }

    // MARK: - GPS

    /// The GPS error of a report at `now`: independent per report, or a first-order Gauss–Markov process with
    /// ``Configuration/gpsNoiseCorrelationTime`` (stationary standard deviation ``Configuration/gpsNoise``).
    mutating func gpsError(at now: Double) -> Vector3 {
        let sigma = configuration.gpsNoise
        guard sigma > 0 else { return .zero }
        let fresh = Vector3(random.gaussian(), random.gaussian(), 0.5 * random.gaussian()) * sigma
        let tau = configuration.gpsNoiseCorrelationTime
        if tau > 0, let last = lastGPSAt {
            let decay = exp(-max(0, now - last) / tau)
            gpsError = gpsError * decay + fresh * (1 - decay * decay).squareRoot()
        } else {
            gpsError = fresh
        }
        lastGPSAt = now
        return gpsError
    }
}
