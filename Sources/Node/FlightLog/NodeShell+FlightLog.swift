import ControlProtocol
import Coordinator
import FlightLog
import Foundation
import MeshTypes

/// What the node hands its flight log (`FlightRecorderService` writes it): every telemetry sample it has — its own
/// vehicle's at each control cycle, the others' as they arrive — and every event.
extension NodeShell {
    /// Queues a vehicle's sample (nothing when recording is off).
    func recordTelemetry(_ node: NodeID, state: VehicleState, uavNumber: UInt8?) {
        guard let flightRecords else { return }
        let name = displayName(node)
        flightRecords.offer(
            .telemetry(
                TelemetryRecord(
                    timeMs: Self.wallClockMs(), node: node.hex, uavNumber: uavNumber.map(Int.init), name: name,
                    state: state)))
    }

    /// Queues the newest sample this node keeps of `node`.
    func recordFleetTelemetry(_ node: NodeID, now t: MeshInstant) {
        guard flightRecords != nil, let v = core.fleetVehicle(node, now: t) else { return }
        recordTelemetry(node, state: v.state, uavNumber: v.uavNumber)
    }

    /// A command this station sent: its UAV is remembered for its answers' events, and the flight log records it.
    func noteCommandSent(_ id: CommandID, _ summary: String, to uav: UInt8) {
        // A command whose final answer never came is forgotten with the rest past 4,096.
        if commandTargets.count >= 4_096 { commandTargets.removeAll() }
        commandTargets[id] = uav
        flightRecords?.offer(
            .event(
                EventRecord(
                    timeMs: Self.wallClockMs(), kind: "command", level: "info",
                    text: "command \(id) \(summary) to UAV \(uav)", uavNumber: Int(uav))))
    }

    static func wallClockMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// The recorder's figures, for `status`.
    func setFlightLogReport(_ report: FlightLogReport) { flightLogReport = report }

    /// The recorder cannot write (a text), or writes again (nil): an event and a log line.
    func flightLogProblem(_ text: String?) {
        if let text {
            event(.warning, "flightlog", "flight log: \(text)")
        } else {
            event(.notice, "flightlog", "flight log: recording again")
        }
    }
}
