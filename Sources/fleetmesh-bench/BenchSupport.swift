import Foundation

/// Latency samples of one measured operation, with the percentiles the benchmark tables report.
struct Samples {
    private(set) var seconds: [Double] = []

    mutating func add(_ s: Double) { seconds.append(s) }
    mutating func add(_ d: Duration) { seconds.append(d.seconds) }

    var count: Int { seconds.count }

    /// The q-quantile (0…1) by nearest rank.
    func quantile(_ q: Double) -> Double {
        guard !seconds.isEmpty else { return .nan }
        let sorted = seconds.sorted()
        let rank = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[rank]
    }

    var p50: Double { quantile(0.50) }
    var p95: Double { quantile(0.95) }
    var p99: Double { quantile(0.99) }
}

extension Duration {
    /// This duration in seconds.
    var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }
}

/// Where benchmarks print their figures: one aligned line per figure, grouped under headings.
struct BenchOutput {
    func heading(_ title: String) {
        print("\n## \(title)")
    }

    /// A latency figure: p50/p95/p99 of the samples.
    func latency(_ name: String, _ s: Samples, unit: LatencyUnit = .milliseconds) {
        print(
            pad(name)
                + String(
                    format: "p50 %9.3f %@  p95 %9.3f %@  p99 %9.3f %@  (n=%d)",
                    unit.scale(s.p50), unit.label, unit.scale(s.p95), unit.label,
                    unit.scale(s.p99), unit.label, s.count))
    }

    /// A throughput figure: operations per second.
    func rate(_ name: String, perSecond: Double, note: String = "") {
        print(pad(name) + String(format: "%14.0f /s", perSecond) + (note.isEmpty ? "" : "  " + note))
    }

    /// A ratio against a baseline measured in the same run.
    func ratio(_ name: String, _ value: Double, against baseline: String) {
        print(pad(name) + String(format: "%10.2f x  vs %@", value, baseline))
    }

    /// Any other figure, already formatted.
    func line(_ name: String, _ value: String) {
        print(pad(name) + value)
    }

    private func pad(_ s: String) -> String {
        s.count >= 44 ? s + " " : s + String(repeating: " ", count: 44 - s.count)
    }
}

enum LatencyUnit {
    case milliseconds, microseconds, nanoseconds
    var label: String { self == .milliseconds ? "ms" : self == .microseconds ? "us" : "ns" }
    func scale(_ s: Double) -> Double {
        switch self {
        case .milliseconds: return s * 1e3
        case .microseconds: return s * 1e6
        case .nanoseconds: return s * 1e9
        }
    }
}

/// Runs `body` repeatedly for about `seconds` of wall time and returns operations per second.
func throughput(seconds: Double = 0.5, batch: Int = 1000, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    var ops = 0
    while true {
        for _ in 0..<batch { body() }
        ops += batch
        let elapsed = (clock.now - start).seconds
        if elapsed >= seconds { return Double(ops) / elapsed }
    }
}

/// Keeps the optimiser from deleting the work whose result is passed here.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
