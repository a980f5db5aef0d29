import Synchronization

/// One live client's outbox: what is waiting for its WebSocket writer. Bounded whatever the client's speed: the newest
/// periodic frame (a newer one replaces it, but a frame without vehicles never replaces a full one), each vehicle's
/// newest update, the newest 256 events and the newest 16 notes. A slow client skips ahead; it never slows the node.
final class LiveClient: Sendable {
    static let maximumEvents = 256
    static let maximumNotes = 16

    private struct Outbox {
        var frame: (text: String, full: Bool)?
        var vehicles: [String: String] = [:]
        var vehicleOrder: [String] = []
        var events: [String] = []
        var notes: [String] = []
        /// Everything a full outbox dropped (for the status the client is sent with its next batch).
        var skipped = 0
    }

    let id: Int
    private let outbox = Mutex(Outbox())
    private let wake: AsyncStream<Void>.Continuation
    /// Yields whenever something is waiting (at most one signal is kept).
    let signals: AsyncStream<Void>

    init(id: Int) {
        self.id = id
        (signals, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// A periodic frame (`full`: it carries every vehicle).
    func post(frame text: String, full: Bool) {
        outbox.withLock { box in
            if let waiting = box.frame {
                if waiting.full && !full { return }
                box.skipped += 1
            }
            box.frame = (text, full)
        }
        wake.yield()
    }

    /// A vehicle's update, already encoded; replaces that vehicle's waiting one.
    func post(vehicle node: String, update text: String) {
        outbox.withLock { box in
            if box.vehicles.updateValue(text, forKey: node) == nil {
                box.vehicleOrder.append(node)
            } else {
                box.skipped += 1
            }
        }
        wake.yield()
    }

    /// Events (encoded), oldest first; beyond the bound the oldest are dropped.
    func post(events: [String]) {
        guard !events.isEmpty else { return }
        outbox.withLock { box in
            box.events += events
            let over = box.events.count - Self.maximumEvents
            if over > 0 {
                box.events.removeFirst(over)
                box.skipped += over
            }
        }
        wake.yield()
    }

    /// A message for this client alone (an error, an acknowledgement).
    func post(note text: String) {
        outbox.withLock { box in
            box.notes.append(text)
            if box.notes.count > Self.maximumNotes { box.notes.removeFirst() }
        }
        wake.yield()
    }

    /// Everything waiting, as WebSocket text messages in the order they go: notes, the frame, events, then one
    /// message with every vehicle update.
    func take() -> [String] {
        outbox.withLock { box in
            var out = box.notes
            if let frame = box.frame { out.append(frame.text) }
            if !box.events.isEmpty {
                out.append(#"{"type":"events","events":["# + box.events.joined(separator: ",") + "]}")
            }
            if !box.vehicleOrder.isEmpty {
                let updates = box.vehicleOrder.compactMap { box.vehicles[$0] }.joined(separator: ",")
                out.append(#"{"type":"vehicles","updates":["# + updates + "]}")
            }
            box = Outbox(skipped: box.skipped)
            return out
        }
    }

    /// Messages dropped or replaced before this client could take them.
    var skipped: Int { outbox.withLock { $0.skipped } }

    /// Ends the writer's stream of signals.
    func finish() { wake.finish() }
}
