extension ContinuousClock {
    /// Runs `tick` every `interval` after `start` on absolute deadlines (a slow tick does not shift the ones after
    /// it), until cancelled.
    func every(_ interval: Duration, from start: Instant, _ tick: @Sendable () async -> Void) async {
        var next = start
        while !Task.isCancelled {
            next = next.advanced(by: interval)
            try? await sleep(until: next)
            await tick()
        }
    }
}
