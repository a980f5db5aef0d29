import Foundation

extension Lab {
    /// What the lab's hosts put on the shared segment: the sum of every host's `eth0` transmit counters.
    public struct Transmitted: Sendable {
        /// Bytes, Ethernet headers included.
        public var bytes: Double
        /// Frames.
        public var packets: Double
    }

    /// A fleet for measuring the air: `stations` stations on hosts 1…, then `drones` simulated drones on the hosts
    /// after them, homes on a grid 15 m apart (`columns` to a row) so that they take off without meeting; logging at
    /// `notice`, where peer losses are logged (`NodeProcess.peerLossesLogged`).
    public func startFleet(stations: Int, drones: Int, columns: Int, network: String = "") throws -> (
        stations: [NodeProcess], drones: [NodeProcess]
    ) {
        let s = try (0..<stations).map { i in
            try startNode(
                host: i + 1, name: stations == 1 ? "station" : "station-\(i + 1)", role: "station", network: network,
                logLevel: "notice")
        }
        let d = try (0..<drones).map { i in
            let lat = 50.0755 + Double(i / columns) * 15 / 111_200, lon = 14.4378 + Double(i % columns) * 15 / 71_400
            return try startNode(
                host: stations + i + 1, name: "drone-\(i + 1)", extra: "[drone]\nhome = [\(lat), \(lon)]",
                network: network, logLevel: "notice")
        }
        return (s, d)
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

extension NodeProcess {
    /// Peers this node has declared lost so far, by its log (logged at `notice`).
    public var peerLossesLogged: Int { log.components(separatedBy: "→ lost").count - 1 }
}
