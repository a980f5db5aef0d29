/// One thing that happened at a node, as `fleetmesh events --json` prints it. Field names are a stable API.
public struct EventReport: Codable, Sendable, Hashable {
    /// Numbered from 1 in the order they happened at this node.
    public var seq: Int
    /// Wall-clock milliseconds since the epoch at this node.
    public var timeMs: Int64
    /// `peer`, `number`, `lease`, `failsafe`, `origin`, `command`, and on stations `autopilot`, `separation` and
    /// `avoidance`.
    public var kind: String
    /// `info`, `notice`, `warning` or `error`.
    public var level: String
    /// What happened, in words (as the node's log says it).
    public var text: String
    /// The other node it is about (NodeID, 32 hex digits), if any.
    public var node: String?
    /// That node's (or this drone's) UAV number, if known.
    public var uavNumber: Int?

    public init(
        seq: Int, timeMs: Int64, kind: String, level: String, text: String, node: String? = nil, uavNumber: Int? = nil
    ) {
        self.seq = seq
        self.timeMs = timeMs
        self.kind = kind
        self.level = level
        self.text = text
        self.node = node
        self.uavNumber = uavNumber
    }
}

/// The answer to `events`: the events asked for, and the number to ask after next time.
public struct EventsReport: Codable, Sendable, Hashable {
    public var events: [EventReport]
    /// The newest event's number at this node (ask `after` it for what comes next).
    public var latest: Int
    /// Events numbered at or below this were dropped (the node keeps the last 1,000).
    public var droppedThrough: Int

    public init(events: [EventReport], latest: Int, droppedThrough: Int) {
        self.events = events
        self.latest = latest
        self.droppedThrough = droppedThrough
    }
}
