import SecureTransport

extension RejectionReason {
    /// A stable short name for counting rejections in `fleetmesh status --json`.
    public var category: String {
        switch self {
        case .unknownMessageType: "unknownMessageType"
        case .malformed: "malformed"
        case .unsupportedVersion: "unsupportedVersion"
        case .wrongMeshKey: "wrongMeshKey"
        case .replayedInitiation: "replayedInitiation"
        case .ownNodeID: "ownNodeID"
        case .nodeIDMismatch: "nodeIDMismatch"
        case .invalidEphemeralKey: "invalidEphemeralKey"
        case .unknownReceiverIndex: "unknownReceiverIndex"
        case .sessionExpired: "sessionExpired"
        case .replayedCounter: "replayedCounter"
        case .decryptionFailed: "decryptionFailed"
        }
    }
}
