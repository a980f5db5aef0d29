import ControlProtocol
import Coordinator
import Foundation
import MeshTypes

/// Telemetry pushed to live displays as it arrives (the dashboard's WebSocket clients see a sample within
/// milliseconds instead of at the next periodic picture).
extension NodeShell {
    /// Each newer telemetry sample this station keeps, as a `VehicleReport`, from now until the stream is dropped.
    /// The stream keeps the newest 1,024 reports if its reader falls behind.
    public func observeVehicles() -> AsyncStream<VehicleReport> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: VehicleReport.self, bufferingPolicy: .bufferingNewest(1024))
        nextVehicleObserver += 1
        let id = nextVehicleObserver
        vehicleObservers[id] = continuation
        continuation.onTermination = { _ in Task { await self.stopObserving(id) } }
        coordinate(now: now) {
            $0.reportsTelemetryArrivals = true
            return []
        }
        return stream
    }

    private func stopObserving(_ id: Int) {
        vehicleObservers.removeValue(forKey: id)
        if vehicleObservers.isEmpty, flightRecords == nil {
            coordinate(now: now) {
                $0.reportsTelemetryArrivals = false
                return []
            }
        }
    }

    /// Hands the node's newest sample to every observer.
    func pushVehicle(_ node: NodeID, now t: MeshInstant) {
        guard !vehicleObservers.isEmpty, let vehicle = core.fleetVehicle(node, now: t) else { return }
        let report = report(vehicle)
        for continuation in vehicleObservers.values { continuation.yield(report) }
    }
}

extension NodeShell {
    /// One manual-control sample from a live display (a browser gamepad): sent like `fleetmesh manual`'s, stamped
    /// now. Nil when it went out; otherwise why not. The drone obeys it only if this station holds (or, with
    /// `takeover`, takes) its control lease, and holds position when the samples stop.
    public func manualSample(toUAV uav: Int, axes: [Int], takeover: Bool) -> String? {
        guard (1...250).contains(uav), axes.count == 4, axes.allSatisfy({ (-1000...1000).contains($0) }) else {
            return "manual: uav must be 1–250 and axes four integers −1000…1000"
        }
        let micros = UInt64((Date().timeIntervalSince1970 * 1e6).rounded())
        let sample = ManualControl(
            x: Int16(axes[0]), y: Int16(axes[1]), z: Int16(axes[2]), r: Int16(axes[3]), sentAtMicros: micros)
        guard sendManualControl(sample, toUAV: UInt8(uav), takeover: takeover) else {
            return "UAV \(uav): no reachable drone holds this number"
        }
        return nil
    }
}
