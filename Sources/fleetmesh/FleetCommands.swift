import ArgumentParser
import ControlProtocol
import Foundation
import Node

extension NodeOption {
    /// Sends one request to the node; an error answer or an unusable socket becomes a message and an exit code.
    func ask(_ request: ControlRequest, timeout: Duration = .seconds(5)) throws -> ControlResponse {
        do {
            let path = try ControlClient.socketPath(node: node)
            let response = try ControlClient.request(request, socket: path, timeout: timeout)
            if let error = response.error { throw failure("error: \(error)", code: 1) }
            return response
        } catch let error as ControlClientError {
            throw failure("error: \(error)", code: 69)
        }
    }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Prints `items` as JSON, or `none` when there are none, or a table of `header` and one `row` per item.
func printListing<T: Encodable>(
    _ items: [T], json: Bool, none: String, header: [String], row: (T) -> [String]
) throws {
    if json { return try printJSON(items) }
    guard !items.isEmpty else { return print(none) }
    print(renderTable(header, items.map(row)))
}

func renderTable(_ header: [String], _ rows: [[String]]) -> String {
    let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max()! }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
    }
    return ([line(header)] + rows.map(line)).joined(separator: "\n")
}

struct VehiclesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vehicles", abstract: "Show the fleet picture: every drone the node hears.")

    @OptionGroup var target: NodeOption
    @Flag(help: "Print JSON (a stable format for scripts).")
    var json = false

    func run() throws {
        let vehicles = try target.ask(ControlRequest.vehicles).vehicles ?? []
        try printListing(
            vehicles, json: json, none: "no vehicles yet",
            header: ["UAV", "NAME", "ROLE", "POSITION", "ALT", "ACTIVITY", "SPEED", "BATTERY", "CONTROL", "AGE"]
        ) { v in
            [
                v.uavNumber.map(String.init) ?? "-", v.name, v.role,
                String(format: "%.6f %.6f", v.latitude, v.longitude),
                String(format: "%.1f m", v.altitude), v.activity, String(format: "%.1f m/s", v.speed),
                "\(v.batteryPercent) %",
                v.controller.map { $0 + (v.controlledHere == true ? " (this node)" : "") } ?? "-",
                formatMs(v.ageMs) + (v.stale ? " STALE" : ""),
            ]
        }
    }
}

struct AirspaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airspace", abstract: "Show every drone's predicted trajectory.")

    @OptionGroup var target: NodeOption
    @Flag(help: "Print JSON (every point).")
    var json = false

    func run() throws {
        let entries = try target.ask(ControlRequest.airspace).airspace ?? []
        try printListing(
            entries, json: json, none: "no predictions yet",
            header: ["UAV", "NAME", "POINTS", "STEP", "LAST POINT", "AGE"]
        ) { e in
            [
                e.uavNumber.map(String.init) ?? "-", e.name, String(e.points.count), "\(e.stepMs) ms",
                e.points.last.map { String(format: "%.6f %.6f %.1f m", $0[0], $0[1], $0[2]) } ?? "-", formatMs(e.ageMs),
            ]
        }
    }
}

/// UAV numbers as the CLI takes them: `4`, or `1,2,4`.
struct UAVList: ExpressibleByArgument {
    var numbers: [Int]

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !numbers.isEmpty, numbers.count == parts.count else { return nil }
        self.numbers = numbers
    }
}

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Send a command to a drone (or, with --together, to several at one moment).",
        discussion: """
            Commands: takeoff ALT, land, hover, goto LAT LON ALT [SPEED], rtl, follow on|off, \
            trajectory LAT,LON,ALT[,HEADING[,HOLD]] … (metres above home, degrees, m/s; at a waypoint with HEADING the \
            drone turns to face it, HEADING - keeps its heading, and holds HOLD seconds). A trajectory's waypoints can \
            also come from a file: `trajectory @route.txt`, one waypoint per line (blank lines and # comments skipped; \
            `fleetmesh plan inspection` writes such files); the drone plans a path from where it is through every \
            waypoint and holds at the last. With --together, UAV is a \
            list (1,2,4): every drone starts the command at the same moment, --lead seconds after it is sent, each on \
            its own clock (accepted means scheduled). Exits 0 when the command was accepted and completed (by every \
            drone), 1 when it was rejected or failed, 2 when no final answer came within --timeout.
            """)

    @OptionGroup var target: NodeOption
    @Option(help: "Seconds to wait for the final answer (with --together: after the start).")
    var timeout: Double = 30
    @Flag(help: "Print JSON.")
    var json = false
    @Flag(help: "Take control of the drone even if another station holds it (it is told it lost control).")
    var takeover = false
    @Flag(help: "Start the command at the same moment on every drone listed (scheduled through the mesh's clocks).")
    var together = false
    @Option(help: "With --together: seconds from sending to the start (0.1-60).")
    var lead: Double = Double(ControlRequest.Group.defaultLeadMs) / 1000
    @Argument(help: "The drone's UAV number (1-250); with --together, a list: 1,2,4.")
    var uav: UAVList
    @Argument(parsing: .allUnrecognized, help: "The command and its arguments.")
    var command: [String] = []

    func run() throws {
        guard timeout > 0, timeout <= 600 else {
            throw failure("error: --timeout must be more than 0 and at most 600 seconds", code: 64)
        }
        let ms = Int(timeout * 1000)
        if together { return try runTogether(timeoutMs: ms) }
        guard uav.numbers.count == 1 else {
            throw failure(
                "error: several UAV numbers (\(uav.numbers.map(String.init).joined(separator: ","))) need --together",
                code: 64)
        }
        let request = ControlRequest.send(
            .init(uav: uav.numbers[0], args: try expandWaypointFiles(command), timeoutMs: ms, takeover: takeover))
        let response = try target.ask(request, timeout: .milliseconds(ms + 5000))
        guard let report = response.command else { throw failure("error: empty answer", code: 1) }
        if json {
            try printJSON(report)
        } else {
            for a in report.answers {
                print(
                    "UAV \(report.uavNumber) \(report.command): \(a.answer)\(a.reason.map { " (\($0))" } ?? "") after \(formatMs(a.afterMs))"
                )
            }
            if report.timedOut {
                print("UAV \(report.uavNumber) \(report.command): no final answer within \(timeout) s")
            }
        }
        if report.timedOut { throw ExitCode(2) }
        if !report.succeeded { throw ExitCode(1) }
    }

    /// `--together`: one `group` request; prints when the drones start, then each drone's answers.
    func runTogether(timeoutMs: Int) throws {
        let leadMs = Int((lead * 1000).rounded())
        guard ControlRequest.Group.leadRangeMs.contains(leadMs) else {
            throw failure("error: --lead must be 0.1-60 seconds, found \(lead)", code: 64)
        }
        let request = ControlRequest.group(
            .init(
                uavs: uav.numbers, args: try expandWaypointFiles(command), leadMs: leadMs, timeoutMs: timeoutMs,
                takeover: takeover))
        let response = try target.ask(request, timeout: .milliseconds(leadMs + timeoutMs + 5000))
        guard let group = response.group else { throw failure("error: empty answer", code: 1) }
        if json {
            try printJSON(group)
        } else {
            let numbers = group.commands.map { String($0.uavNumber) }.joined(separator: ", ")
            print(
                "\(group.command) to UAV \(numbers): starts at \(formatClock(group.startsAtMs)) (\(group.leadMs) ms after sending)"
            )
            for report in group.commands {
                for a in report.answers {
                    print(
                        "UAV \(report.uavNumber) \(report.command): \(a.answer)\(a.reason.map { " (\($0))" } ?? "")\(a.answer == "accepted" ? " (scheduled)" : "") after \(formatMs(a.afterMs))"
                    )
                }
                if report.timedOut {
                    print("UAV \(report.uavNumber) \(report.command): no final answer within \(timeout) s of the start")
                }
            }
        }
        if group.commands.contains(where: \.timedOut) { throw ExitCode(2) }
        if !group.succeeded { throw ExitCode(1) }
    }
}

/// `12:34:56.789 UTC` for wall-clock milliseconds since the epoch.
func formatClock(_ ms: Int64) -> String {
    let day = ms / 1000 % 86_400
    return String(format: "%02d:%02d:%02d.%03d UTC", day / 3600, day / 60 % 60, day % 60, ms % 1000)
}

struct TargetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "target",
        abstract: "Send a target position to one drone or all (with --follow, make them follow it).")

    @OptionGroup var target: NodeOption
    @Option(help: "The drone's UAV number.")
    var uav: Int?
    @Flag(help: "Address every drone.")
    var all = false
    @Flag(help: "Also tell the addressed drones to follow the target (they must be airborne).")
    var follow = false
    @Argument(parsing: .allUnrecognized, help: "LAT LON ALT (degrees, degrees, metres above home).")
    var position: [String] = []

    func run() throws {
        guard position.count == 3, let lat = Double(position[0]), let lon = Double(position[1]),
            let alt = Double(position[2])
        else {
            throw failure(
                "error: expected LAT LON ALT as three numbers, found \(position.isEmpty ? "nothing" : position.joined(separator: " "))",
                code: 64)
        }
        guard (uav != nil) != all else { throw failure("error: give exactly one of --uav N or --all", code: 64) }
        let request = ControlRequest.target(
            .init(
                latitude: lat, longitude: lon, altitude: alt, to: uav.map { .uav($0) } ?? .all,
                follow: follow))
        let response = try target.ask(request, timeout: .seconds(40))
        guard let report = response.target else { throw failure("error: empty answer", code: 1) }
        print("target \(report.latitude) \(report.longitude) \(report.altitude) m sent to \(report.address)")
        var ok = true
        for f in report.follow ?? [] {
            let answers = f.answers.map { $0.answer + ($0.reason.map { " (\($0))" } ?? "") }.joined(separator: ", ")
            print(
                "UAV \(f.uavNumber) follow: \(answers.isEmpty ? "no answer" : answers)\(f.timedOut ? " (timed out)" : "")"
            )
            ok = ok && f.succeeded
        }
        if !ok { throw ExitCode(1) }
    }
}

struct OriginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "origin",
        abstract: "Show the map origin the node agrees on (announced by a station) and its UTM offset.")

    @OptionGroup var target: NodeOption
    @Flag(help: "Print JSON (a stable format for scripts).")
    var json = false

    func run() throws {
        guard let o = try target.ask(ControlRequest.origin).origin else {
            throw failure("error: empty answer", code: 1)
        }
        if json { return try printJSON(o) }
        print(String(format: "origin     %.7f %.7f alt %.3f m", o.latitude, o.longitude, o.altitude))
        print(
            "UTM        \(o.zone)\(o.zoneForced ? " (forced)" : "") "
                + String(format: "%.3f E %.3f N", o.utmEasting, o.utmNorthing))
        print("announced  by \(o.announcedBy) (\(o.announcedByNode)), epoch \(o.epoch), heard \(formatMs(o.ageMs)) ago")
    }
}

/// Replaces every `@FILE` argument of a `trajectory` command with the waypoints in FILE (one LAT,LON,ALT per line;
/// blank lines and lines starting with # are skipped).
func expandWaypointFiles(_ words: [String]) throws -> [String] {
    guard words.first?.lowercased() == "trajectory" else { return words }
    var out = [words[0]]
    for word in words.dropFirst() {
        guard word.hasPrefix("@") else {
            out.append(word)
            continue
        }
        let path = String(word.dropFirst())
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw failure("error: cannot read waypoint file \(path)", code: 66)
        }
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
            guard (3...5).contains(fields.count) else {
                throw failure(
                    "error: \(path):\(i + 1): expected LAT,LON,ALT[,HEADING[,HOLD]], found '\(line)'", code: 65)
            }
            out.append(fields.joined(separator: ","))
        }
    }
    return out
}
