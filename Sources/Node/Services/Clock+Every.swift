extension Clock where Duration == Swift.Duration {
    /// Runs `tick` every `interval` after `start` on absolute deadlines (a slow tick does not shift the ones after
    /// it), until cancelled.
    func every(_ interval: Duration, from start: Instant, _ tick: @Sendable () async -> Void) async {
        await every(interval, from: start) { (_: Instant) in await tick() }
    }

    /// The same, telling `tick` the instant it was due (so it can tell how late it runs).
    ///
    /// Deadlines that passed while a tick ran late are skipped, not made up: the next tick waits for the next deadline
    /// still ahead. Making them up ran the missed ticks back to back, and a node short of CPU (seen in CI: ten nodes on
    /// two busy cores) fell further behind with every one, 20 to 35 s late within a minute; its peers' silence was
    /// then judged against a clock that had stopped for it. Each tick runs with the deadline it was due.
    func every(_ interval: Duration, from start: Instant, _ tick: @Sendable (Instant) async -> Void) async {
        var next = start.advanced(by: interval)
        while !Task.isCancelled {
            try? await sleep(until: next, tolerance: nil)
            if Task.isCancelled { return }
            await tick(next)
            next = next.advanced(by: interval)
            let behind = next.duration(to: now)
            if behind > .zero {
                next = next.advanced(by: interval * Int((behind / interval).rounded(.up)))
            }
        }
    }
}
