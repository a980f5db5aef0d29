import MeshTypes

extension CoordinatorCore {
    /// Drone: hovers after `failsafeHoverAfter` without any reachable station while flying, then takes
    /// `failsafeAction` after `failsafeActionAfter` more; reports the steps to the stations once one is reachable.
    mutating func checkFailsafe(now: MeshInstant) -> [Directive] {
        guard role == .drone else { return [] }
        refreshRoutes()
        if stationReachable {
            stationHeardAt = max(stationHeardAt, now)
        }
        let silence = now - stationHeardAt
        if silence < configuration.failsafeHoverAfter {
            guard !failsafeSteps.isEmpty else { return [] }
            let report = FailsafeReport(
                uavNumber: uavNumber ?? 0, steps: failsafeSteps,
                silenceMilliseconds: failsafeSilenceMilliseconds(now: now))
            failsafeSteps = []
            return sendRouted(.failsafeReport(report), to: .broadcast, now: now)
        }
        guard isFlying else { return [] }
        if failsafeSteps.isEmpty {
            failsafeSteps.append(FailsafeStep(action: .hover, afterSilenceMilliseconds: silence.clampedMilliseconds))
            failsafeSilenceStart = stationHeardAt
            return [.failsafe(.hover)]
        }
        if failsafeSteps.count == 1, configuration.failsafeAction != .hover,
            silence >= configuration.failsafeHoverAfter + configuration.failsafeActionAfter
        {
            failsafeSteps.append(
                FailsafeStep(
                    action: configuration.failsafeAction, afterSilenceMilliseconds: silence.clampedMilliseconds))
            return [.failsafe(configuration.failsafeAction)]
        }
        return []
    }

    private func failsafeSilenceMilliseconds(now: MeshInstant) -> UInt32 {
        (now - failsafeSilenceStart).clampedMilliseconds
    }
}
