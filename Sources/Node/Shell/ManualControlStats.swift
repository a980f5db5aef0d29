import ControlProtocol
import Foundation

/// A drone's record of the manual-control samples it obeyed: how many, how regularly, and how old they were on arrival
/// (from the sender's `sentAtMicros`, meaningful when the clocks agree, e.g. on one machine or with NTP).
struct ManualControlStats {
    private(set) var received = 0
    private var firstAt: Double?
    private var lastAt: Double?
    private var latenciesMs: [Double] = []
    private var gapsMs: [Double] = []
    static let keep = 20_000

    /// A sample arrived at `wallSeconds` (Unix time).
    mutating func record(sentAtMicros: UInt64, wallSeconds: Double) {
        received += 1
        if let last = lastAt { append(&gapsMs, (wallSeconds - last) * 1000) }
        if firstAt == nil { firstAt = wallSeconds }
        lastAt = wallSeconds
        if sentAtMicros > 0 { append(&latenciesMs, wallSeconds * 1000 - Double(sentAtMicros) / 1000) }
    }

    private func append(_ list: inout [Double], _ v: Double) {
        if list.count >= Self.keep { list.removeFirst(list.count - Self.keep + 1) }
        list.append(v)
    }

    var report: ManualControlReport? {
        guard received > 0, let first = firstAt, let last = lastAt else { return nil }
        func pct(_ xs: [Double], _ p: Double) -> Double? {
            guard !xs.isEmpty else { return nil }
            let s = xs.sorted()
            return s[min(s.count - 1, Int((p * Double(s.count - 1)).rounded()))]
        }
        return ManualControlReport(
            received: received,
            rateHz: last > first ? Double(received - 1) / (last - first) : nil,
            latencyP50Ms: pct(latenciesMs, 0.5), latencyP99Ms: pct(latenciesMs, 0.99),
            latencyMaxMs: latenciesMs.max(), gapP99Ms: pct(gapsMs, 0.99), gapMaxMs: gapsMs.max(),
            lastMsAgo: Int(((Date().timeIntervalSince1970 - last) * 1000).rounded()))
    }
}
