/// Message type numbers carried next to each payload by the transport.
public enum CoordinatorMessageType {
    /// Link-state advertisement.
    public static let linkState: UInt16 = 0x4C01
    /// Link-state database summary (to a neighbour whose session came up).
    public static let linkStateSummary: UInt16 = 0x4C02
    /// Link-state request (the advertisements a summary listed newer or unknown).
    public static let linkStateRequest: UInt16 = 0x4C03
    /// Link-state refresh (an unchanged advertisement's new sequence number, without its contents).
    public static let linkStateRefresh: UInt16 = 0x4C04
    /// Routed telemetry (envelope, then body; likewise below).
    public static let telemetry: UInt16 = 0x5201
    /// Routed trajectory prediction.
    public static let prediction: UInt16 = 0x5202
    /// Routed target.
    public static let target: UInt16 = 0x5203
    /// Routed command.
    public static let command: UInt16 = 0x5204
    /// Routed command answer.
    public static let commandAnswer: UInt16 = 0x5205
    /// Routed manual-control sample.
    public static let manualControl: UInt16 = 0x5206
    /// Routed failsafe report.
    public static let failsafeReport: UInt16 = 0x5207
    /// Routed lease revocation.
    public static let leaseRevoked: UInt16 = 0x5208
    /// Routed lease renewal or release.
    public static let leaseUpdate: UInt16 = 0x5209
    /// Routed map origin announcement.
    public static let mapOrigin: UInt16 = 0x520A
    /// Routed avoidance report.
    public static let avoidanceReport: UInt16 = 0x520B
    /// Routed geofence announcement.
    public static let geofence: UInt16 = 0x520C
}

/// Limits the decoder enforces.
enum WireLimits {
    static let maxNeighbours = 1024
    static let maxTrajectoryPoints = 1024
    static let maxUAVNumber: UInt8 = 250
}
