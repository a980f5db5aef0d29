import ArgumentParser
import ControlProtocol
import Foundation
import Node

struct SourcesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources", abstract: "Show the target sources (loc-broadcaster) the node subscribes to.")

    @OptionGroup var target: NodeOption
    @Flag(help: "Print JSON (a stable format for scripts).")
    var json = false

    func run() throws {
        guard let report = try target.ask(ControlRequest.sources).sources else {
            throw failure("error: empty answer", code: 1)
        }
        if json { return try printJSON(report) }
        guard report.subscribing else {
            return print("not subscribing to target sources ([targets] subscribe = false, no sources configured)")
        }
        if report.sources.isEmpty {
            print("no target sources found yet")
        } else {
            let rows = report.sources.map { s in
                [
                    s.name, s.addresses.joined(separator: " "), String(s.targets), s.lastAddress ?? "-",
                    s.lastLatitude.map {
                        String(format: "%.7f %.7f %.1f m", $0, s.lastLongitude ?? 0, s.lastAltitude ?? 0)
                    } ?? "-",
                    s.lastTargetMsAgo.map(formatMs) ?? "-",
                ]
            }
            print(renderTable(["SOURCE", "ADDRESS", "TARGETS", "FOR", "LAST TARGET", "AGE"], rows))
        }
        if !report.rejected.isEmpty {
            print(
                "refused datagrams: "
                    + report.rejected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            )
        }
    }
}
