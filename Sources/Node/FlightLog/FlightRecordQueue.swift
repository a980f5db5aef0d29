import FlightLog
import NIOConcurrencyHelpers

/// Records on their way from the node's actor to its flight log: bounded, so a slow or failed disk never holds the
/// mesh up or grows the node's memory. A full queue refuses the record and counts it as dropped.
final class FlightRecordQueue: Sendable {
    private struct State {
        var records: [FlightRecord] = []
        var offered = 0
        var dropped = 0
    }

    /// At most this many records wait (at 10 Hz from 100 vehicles, 8 s of telemetry).
    let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int = 8192) { self.capacity = max(1, capacity) }

    /// Queues a record, or counts it dropped when the queue is full. Never blocks beyond the lock.
    func offer(_ record: FlightRecord) {
        state.withLockedValue {
            $0.offered += 1
            if $0.records.count < capacity { $0.records.append(record) } else { $0.dropped += 1 }
        }
    }

    /// Takes every waiting record, oldest first.
    func drain() -> [FlightRecord] {
        state.withLockedValue {
            let out = $0.records
            $0.records.removeAll(keepingCapacity: true)
            return out
        }
    }

    /// Adds records that were taken but could not be written to the dropped count.
    func countLost(_ n: Int) { state.withLockedValue { $0.dropped += n } }

    /// Records offered and dropped since the node started.
    var counts: (offered: Int, dropped: Int) { state.withLockedValue { ($0.offered, $0.dropped) } }
}
