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
    /// A goto's or trajectory's path is recorded too (planned vs flown).
    func noteCommandSent(_ id: CommandID, _ command: Command, to uav: UInt8, from source: String = "") {
        // A command whose final answer never came is forgotten with the rest past 4,096.
        if commandTargets.count >= 4_096 { commandTargets.removeAll() }
        commandTargets[id] = uav
        guard let flightRecords else { return }
        let t = Self.wallClockMs()
        flightRecords.offer(
            .event(
                EventRecord(
                    timeMs: t, kind: "command", level: "info",
                    text: "command \(id) \(command.summary) to UAV \(uav)\(source)", uavNumber: Int(uav))))
        func point(_ p: GeoPoint) -> [Double] { [p.latitude, p.longitude, Double(p.altitudeMillimetres) / 1000] }
        switch command {
        case .goto(let p, let speed):
            flightRecords.offer(
                .plan(
                    PlanRecord(
                        command: "\(id)", timeMs: t, uavNumber: Int(uav), kind: "goto",
                        speed: speed == 0 ? nil : Double(speed) / 100, waypoints: [point(p)])))
        case .trajectory(let points, _):
            flightRecords.offer(
                .plan(
                    PlanRecord(
                        command: "\(id)", timeMs: t, uavNumber: Int(uav), kind: "trajectory", speed: nil,
                        waypoints: points.map(point))))
        default: break
        }
    }

    /// A command's answer, for its recorded path (if it had one).
    func recordCommandAnswer(_ id: CommandID, _ answer: CommandAnswer) {
        guard let flightRecords, commandTargets[id] != nil else { return }
        let outcome: String
        switch answer {
        case .accepted: outcome = "accepted"
        case .completed: outcome = "completed"
        case .failed: outcome = "failed"
        case .rejected: outcome = "rejected"
        }
        flightRecords.offer(.planAnswer(command: "\(id)", outcome: outcome, timeMs: Self.wallClockMs()))
    }

    /// Once a second: every drone's predicted trajectory this node has fresh (under a second old), every 4th point.
    func recordPredictions(now t: MeshInstant) {
        guard let flightRecords, t >= nextPredictionRecordAt else { return }
        nextPredictionRecordAt = t + .seconds(1)
        let ms = Self.wallClockMs()
        for entry in core.airspace(now: t) where entry.age < .seconds(1) {
            let p = entry.prediction
            let points = stride(from: 0, to: p.points.count, by: 4).map { i in
                [p.points[i].latitude, p.points[i].longitude, Double(p.points[i].altitudeMillimetres) / 1000]
            }
            flightRecords.offer(
                .prediction(
                    PredictionRecord(
                        timeMs: ms, node: entry.node.hex, uavNumber: entry.uavNumber.map(Int.init),
                        stepMs: Int(p.stepMilliseconds) * 4, points: points, avoiding: p.avoiding)))
        }
    }

    static func wallClockMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// The recorder's figures, for `status`.
    func setFlightLogReport(_ report: FlightLogReport) { flightLogReport = report }

    /// The shipper's figures, for `status`.
    func setFlightShippingReport(_ report: FlightLogShippingReport) { flightShippingReport = report }

    /// Shipping to PostgreSQL stopped (a text) or works again (nil): an event and a log line.
    func flightShippingProblem(_ text: String?, target: String) {
        if let text {
            event(.warning, "flightlog", "flight log: \(text); records wait in the local log")
        } else {
            event(.notice, "flightlog", "flight log: shipping to \(target)")
        }
    }

    /// The recorder cannot write (a text), or writes again (nil): an event and a log line.
    func flightLogProblem(_ text: String?) {
        if let text {
            event(.warning, "flightlog", "flight log: \(text)")
        } else {
            event(.notice, "flightlog", "flight log: recording again")
        }
    }
}
