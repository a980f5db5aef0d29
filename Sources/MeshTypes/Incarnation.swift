/// A number a node draws anew on every start, so that peers can tell a restarted node from the one they knew.
public typealias Incarnation = UInt64
