import Coordinator
import MeshTypes

/// The frames the station's ground-control endpoint would send for recorded samples of one vehicle, sample after
/// sample: what the flight log's telemetry logs hold and `log replay` sends. A concrete wrapper so that the bridge's
/// generic code is specialised here, inside its module (called from the flight log for every sample of an hour's
/// export, the unspecialised generic path cost more than half the time; docs/BENCHMARKS.md §11.1).
public struct RecordedTelemetryFrames {
    var bridge: GroundControlBridge<Int>

    public init() {
        var configuration = GroundControlBridge<Int>.Configuration()
        // Every recorded sample becomes a position frame (the interval is shorter than any two samples are apart).
        configuration.positionInterval = .milliseconds(1)
        configuration.hudInterval = .milliseconds(200)
        bridge = GroundControlBridge<Int>(configuration: configuration, fixedDestinations: [0])
    }

    /// Hands `emit` each frame due for the sample `state` of `uavNumber`, taken `elapsed` into the recording.
    public mutating func frames(
        uavNumber: UInt8, state: Coordinator.VehicleState, homeAltitude: Double?, elapsed: MeshInstant,
        _ emit: ([UInt8]) -> Void
    ) {
        let vehicle = GroundControlBridge<Int>.Vehicle(uavNumber: uavNumber, state: state, isStale: false)
        for directive in bridge.tick(vehicles: [vehicle], originAltitude: homeAltitude, now: elapsed) {
            if case .send(let frame, _) = directive { emit(frame) }
        }
    }
}
