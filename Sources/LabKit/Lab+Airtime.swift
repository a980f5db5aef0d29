import Foundation

extension Lab {
    /// What the lab's hosts put on the shared segment: the sum of every host's `eth0` transmit counters.
    public struct Transmitted: Sendable {
        /// Bytes, Ethernet headers included.
        public var bytes: Double
        /// Frames.
        public var packets: Double
    }

    /// The sum of hosts 1…`hosts`' transmit counters now (each read in its own namespace's `/proc/net/dev`; sysfs
    /// would show the machine's own links).
    public func transmitted(hosts: Int) throws -> Transmitted {
        var total = Transmitted(bytes: 0, packets: 0)
        for h in 1...hosts {
            let (status, output) = try shell(onHost(h, ["cat", "/proc/net/dev"]))
            let line = output.split(separator: "\n").first {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("eth0:")
            }
            let fields = line.map { $0.split(separator: ":", maxSplits: 1)[1].split(whereSeparator: \.isWhitespace) }
            guard status == 0, let fields, fields.count >= 10, let b = Double(fields[8]), let p = Double(fields[9])
            else { throw LabError("host \(h): no eth0 counters in /proc/net/dev: \(output)") }
            total.bytes += b
            total.packets += p
        }
        return total
    }

    /// Bytes and frames per second that hosts 1…`hosts` transmitted together over `seconds` (a measurement window).
    public func transmissionRate(hosts: Int, seconds: Double) async throws -> Transmitted {
        let clock = ContinuousClock()
        let t0 = clock.now
        let before = try transmitted(hosts: hosts)
        try await Task.sleep(for: .seconds(seconds))
        let after = try transmitted(hosts: hosts)
        let wall = Double((clock.now - t0).components.seconds) + Double((clock.now - t0).components.attoseconds) / 1e18
        return Transmitted(bytes: (after.bytes - before.bytes) / wall, packets: (after.packets - before.packets) / wall)
    }
}
