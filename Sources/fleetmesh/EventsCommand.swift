import ArgumentParser
import ControlProtocol
import Foundation

struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Show the node's recent events: peers joining and lost, UAV numbers, leases, failsafes, commands.")

    @OptionGroup var target: NodeOption
    @Option(help: "Only events numbered above this (the SEQ column).")
    var after = 0
    @Option(help: "At most this many (1-1000).")
    var limit = 200
    @Flag(help: "Print JSON (a stable format for scripts).")
    var json = false

    func run() throws {
        guard let report = try target.ask(ControlRequest.events(.init(after: after, limit: limit))).events else {
            throw failure("error: empty answer", code: 1)
        }
        if json { return try printJSON(report) }
        if report.events.isEmpty { return print("no events after \(after) (latest: \(report.latest))") }
        let time = DateFormatter()
        time.dateFormat = "HH:mm:ss.SSS"
        let rows = report.events.map { e in
            [
                String(e.seq), time.string(from: Date(timeIntervalSince1970: Double(e.timeMs) / 1000)), e.kind,
                e.level, e.text,
            ]
        }
        print(renderTable(["SEQ", "TIME", "KIND", "LEVEL", "EVENT"], rows))
        if report.droppedThrough >= max(after, 1) {
            print("(events up to \(report.droppedThrough) are no longer kept)")
        }
    }
}
