import MeshTypes

/// How to reach a node: the neighbour to hand messages to and the distance in hops.
public struct Route: Hashable, Sendable {
    /// The neighbour on a shortest path.
    public var nextHop: NodeID
    /// Hops to the destination (1 for a neighbour).
    public var hops: UInt8

    public init(nextHop: NodeID, hops: UInt8) {
        self.nextHop = nextHop
        self.hops = hops
    }
}

/// What a UAV number resolves to among reachable drones.
public enum UAVResolution: Hashable, Sendable {
    /// No reachable drone claims it.
    case unknown
    /// Exactly one drone claims it.
    case node(NodeID)
    /// Several drones claim it (sorted).
    case contested([NodeID])
}
