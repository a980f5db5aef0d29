import ArgumentParser
import ControlProtocol
import Foundation
import Node

struct ManualCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manual", abstract: "Stream manual control (joystick axes) to drones from a station.",
        discussion: """
            Sends one MANUAL_CONTROL-style sample (axes -1000…1000: x forward, y right, z up, r yaw) to each UAV number \
            at --rate samples per second for --seconds. Samples are unreliable and unanswered; a drone obeys them when \
            this station holds its control lease (or takes it with --takeover). On a drone, `fleetmesh status --json` \
            shows what arrived (manualControl: rate, latency, gaps).
            """)

    @OptionGroup var target: NodeOption
    @Option(help: "Samples per second per drone (1-1000).")
    var rate: Double = 100
    @Option(help: "How long to stream, seconds (at most 600).")
    var seconds: Double = 5
    @Option(help: "Forward axis, -1000…1000.") var x: Int = 0
    @Option(help: "Right axis, -1000…1000.") var y: Int = 0
    @Option(help: "Up axis, -1000…1000.") var z: Int = 0
    @Option(help: "Yaw axis, -1000…1000.") var r: Int = 0
    @Flag(help: "Take the drones' control leases even if another station holds them.")
    var takeover = false
    @Flag(help: "Print JSON.")
    var json = false
    @Argument(help: "UAV numbers (1-250).")
    var uavs: [Int]

    func run() throws {
        guard seconds > 0, seconds <= 600 else {
            throw failure("error: --seconds must be more than 0 and at most 600", code: 64)
        }
        let request = ControlRequest.manual(
            .init(
                uavs: uavs, rateHz: rate, durationMs: Int((seconds * 1000).rounded()),
                axes: [x, y, z, r], takeover: takeover))
        guard let report = try target.ask(request, timeout: .milliseconds(Int(seconds * 1000) + 5000)).manual else {
            throw failure("error: empty answer", code: 1)
        }
        if json { return try printJSON(report) }
        print(
            "sent \(report.samplesPerUAV) samples to UAV \(report.uavs.map(String.init).joined(separator: ", ")) at "
                + String(format: "%.1f", report.sentRateHz) + " Hz over \(formatMs(report.durationMs))")
        if !report.unreachable.isEmpty {
            print(
                "unreachable (unknown or contested): UAV \(report.unreachable.map(String.init).joined(separator: ", "))"
            )
            throw ExitCode(1)
        }
    }
}
