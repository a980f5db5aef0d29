extension ContinuousClock {
    /// Runs `tick` every `interval` after `start` on absolute deadlines (a slow tick does not shift the ones after
    /// it), until cancelled.
    func every(_ interval: Duration, from start: Instant, _ tick: @Sendable () async -> Void) async {
        await every(interval, from: start) { (_: Instant) in await tick() }
    }

    /// The same, telling `tick` the instant it was due (so it can tell how late it runs).
    func every(_ interval: Duration, from start: Instant, _ tick: @Sendable (Instant) async -> Void) async {
        var next = start
        while !Task.isCancelled {
            next = next.advanced(by: interval)
            try? await sleep(until: next)
            await tick(next)
        }
    }
}
