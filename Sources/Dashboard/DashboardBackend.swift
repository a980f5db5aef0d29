import ControlProtocol

/// What the dashboard asks of its node: the same typed control requests the control socket answers, the node's
/// telemetry as it arrives, single manual-control samples, and its Prometheus metrics.
public struct DashboardBackend: Sendable {
    /// Answers one control request.
    public var answer: @Sendable (ControlRequest) async -> ControlResponse
    /// Each newer telemetry sample the node keeps, from the call on, until the stream is dropped.
    public var vehicleUpdates: @Sendable () async -> AsyncStream<VehicleReport>
    /// Sends one manual-control sample; nil when it went out, otherwise why not.
    public var manualSample: @Sendable (_ sample: ManualSample) async -> String?
    /// The node's metrics in Prometheus's text exposition format (version 0.0.4), for `GET /metrics`.
    public var metrics: @Sendable () async -> [UInt8]
    /// The node's flight log file (nil: it records none), read for `/api/v1/flights`.
    public var flightLogPath: String?

    /// One manual-control sample for the drone holding `uav` (axes −1000…1000).
    public struct ManualSample: Sendable, Equatable {
        public var uav: Int
        public var axes: [Int]
        public var takeover: Bool
    }

    /// A backend answering through `answer`; without `vehicleUpdates` the live stream carries only its periodic
    /// frames, without `manualSample` manual control is refused, without `metrics` `/metrics` is empty.
    public init(
        answer: @escaping @Sendable (ControlRequest) async -> ControlResponse,
        vehicleUpdates: @escaping @Sendable () async -> AsyncStream<VehicleReport> = { AsyncStream { $0.finish() } },
        manualSample: @escaping @Sendable (ManualSample) async -> String? = { _ in
            "this node takes no manual control"
        },
        metrics: @escaping @Sendable () async -> [UInt8] = { [] },
        flightLogPath: String? = nil
    ) {
        self.flightLogPath = flightLogPath
        self.answer = answer
        self.vehicleUpdates = vehicleUpdates
        self.manualSample = manualSample
        self.metrics = metrics
    }
}
