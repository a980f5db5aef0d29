import FlightLog
import Testing

@testable import Node

private func parse(_ text: String) throws(ConfigError) -> NodeConfiguration {
    try NodeConfiguration.parse(text, file: "/etc/fm/node.toml", baseDirectory: "/etc/fm")
}

private let node = "[node]\nname = \"n\"\nrole = \"drone\"\nkey_file = \"k\"\nstate_dir = \"/var/lib/fm\"\n"

/// `[log]`'s flight-log keys: on by default in the state directory; bad values named.
@Suite struct FlightLogConfigTests {
    @Test func onByDefaultInTheStateDirectory() throws {
        let c = try parse(node)
        #expect(c.flightLog.enabled)
        #expect(c.flightLog.file(stateDirectory: c.stateDirectory) == "/var/lib/fm/flight-log.sqlite")
        #expect(c.digest.count == 64)
        #expect(try parse(node + "\n").digest != c.digest)
    }

    @Test func keysAreRead() throws {
        let c = try parse(
            node
                + "[log]\nflight_log = true\nflight_log_path = \"logs/fl.sqlite\"\nretention_days = 7\nmax_megabytes = 200"
        )
        #expect(c.flightLog.file(stateDirectory: c.stateDirectory) == "/etc/fm/logs/fl.sqlite")
        #expect(c.flightLog.retentionDays == 7 && c.flightLog.maxMegabytes == 200)
        #expect(try parse(node + "[log]\nflight_log = false").flightLog.enabled == false)
    }

    @Test(arguments: [
        ("retention_days = 0", "[log] retention_days: must be more than 0 and at most 3650 days, found 0.0"),
        ("max_megabytes = 0.5", "[log] max_megabytes: must be 1 to 1048576 (1 TB), found 0.5"),
        ("flight_log_path = \"\"", "[log] flight_log_path: must not be empty"),
        ("flight_log = \"yes\"", "[log] flight_log:"),
        ("flightlog = true", "flightlog"),
    ])
    func badValuesAreNamed(line: String, message: String) {
        #expect {
            try parse(node + "[log]\n" + line)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    /// The queue between the node's actor and the writer is bounded: beyond its capacity a record is refused and
    /// counted, never waited for.
    @Test func theRecordQueueIsBoundedAndCountsDrops() {
        let queue = FlightRecordQueue(capacity: 3)
        let e = FlightRecord.event(EventRecord(timeMs: 0, kind: "k", level: "info", text: "t"))
        for _ in 0..<5 { queue.offer(e) }
        #expect(queue.counts.offered == 5 && queue.counts.dropped == 2)
        #expect(queue.drain().count == 3)
        #expect(queue.drain().isEmpty)
        queue.offer(e)
        queue.countLost(1)
        #expect(queue.counts.dropped == 3)
    }
}
