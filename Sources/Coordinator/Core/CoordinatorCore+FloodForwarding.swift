import MeshTypes

/// Which unreliable floods go on from this node: only a flood relay's, and a prediction only within its reach, at a
/// rate falling with the distance (PROTOCOL.md §7.2).
extension CoordinatorCore {
    /// Whether this node forwards the unreliable floods it receives (`FloodRelays`); every node does with
    /// `selectsFloodRelays` off.
    mutating func relaysFloods() -> Bool {
        guard configuration.selectsFloodRelays else { return true }
        if let known = relaysFloodsCache { return known }
        let relaying = FloodRelays.isRelay(me: nodeID, ownNeighbours: neighbours, database: database)
        relaysFloodsCache = relaying
        return relaying
    }

    /// Whether a flood's payload is still worth forwarding from here: a prediction only within `predictionReach` of
    /// its path, and beyond `predictionFullRateReach` only every second or fourth by its index (PROTOCOL.md §7.2);
    /// everything else, and everything at a node that does not know its position, is.
    func worthForwarding(_ payload: MeshPayload) -> Bool {
        guard case .prediction(_, let prediction) = payload, configuration.predictionReach > 0,
            let here = localState?.position
        else { return true }
        let distance = prediction.horizontalDistance(to: here)
        guard distance <= configuration.predictionReach else { return false }
        let full = configuration.predictionFullRateReach
        guard full > 0, distance > full else { return true }
        return prediction.index % (distance > 2 * full ? 4 : 2) == 0
    }
}
