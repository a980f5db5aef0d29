import ControlProtocol

/// The node's recent events, numbered from 1, for `fleetmesh events` and the dashboard: the last `capacity` are kept.
struct NodeEventLog {
    let capacity: Int
    private var ring: [EventReport] = []
    private var start = 0
    /// The newest event's number (0: none yet).
    private(set) var latest = 0

    init(capacity: Int = 1000) { self.capacity = max(1, capacity) }

    /// Numbers at or below this were dropped to keep `capacity`.
    var droppedThrough: Int { latest - ring.count }

    /// Records one event.
    mutating func record(
        kind: String, level: String, text: String, node: String? = nil, uavNumber: Int? = nil, timeMs: Int64
    ) {
        latest += 1
        let event = EventReport(
            seq: latest, timeMs: timeMs, kind: kind, level: level, text: text, node: node, uavNumber: uavNumber)
        if ring.count < capacity {
            ring.append(event)
        } else {
            ring[start] = event
            start = (start + 1) % capacity
        }
    }

    /// The events numbered above `after`, oldest first, at most `limit`.
    func page(after: Int, limit: Int) -> EventsReport {
        let first = max(after + 1, droppedThrough + 1)
        let count = max(0, min(limit, latest - first + 1))
        let events = (0..<count).map { ring[(start + (first - droppedThrough - 1) + $0) % ring.count] }
        return EventsReport(events: events, latest: latest, droppedThrough: droppedThrough)
    }
}
