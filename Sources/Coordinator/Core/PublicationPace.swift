import MeshTypes

/// How fast a node publishes what it sends unasked — a drone its telemetry and predictions, every node the changes of
/// its neighbours in its link-state advertisement — given how far behind the node itself is.
///
/// A node short of CPU handles datagrams and timers late (its own lateness, `OwnDelay` in the mesh layer). Sending
/// less is then better than sending everything late: each datagram costs every receiver CPU too, and a fleet whose
/// nodes are all behind (many nodes on one machine, a busy companion computer) sinks deeper with every message. So
/// the pace steps down — telemetry 10 → 5 Hz, predictions 5 → 3.3 → 2.5 Hz, neighbour changes at most every 200 →
/// 400 ms → 1 s at the default intervals — when the node is late by ``reduceAt`` or ``minimalAt``, and steps back up
/// one level after ``recoverAfter`` with the node on time (lateness below ``calmBelow`` throughout). Loss detection
/// is not slowed: the mesh layer's heartbeats and suspicion limits do not change, and its own lateness is already
/// allowed for there. A prediction of a changed plan still goes out at once (`onLocalPrediction(publishNow:)`), and
/// so does a change of the node's own state in its advertisement, whatever the pace.
///
/// Pure: the lateness comes in with the time (``onLateness(_:now:)``), on every coordinator tick.
public struct PublicationPace: Sendable, Hashable {
    /// The pace, full first.
    public enum Level: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        case full = 0, reduced, minimal

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        /// Telemetry's interval is multiplied by this (at most 2: a station counts a drone whose telemetry is 1 s old
        /// as stale, and at 2.5 Hz two lost samples did that; a fleet of 30 on two cores, which loses many, was then
        /// seldom all live at once).
        public var telemetryFactor: Int { [1, 2, 2][rawValue] }
        /// Predictions' interval is multiplied by this (at most 2: a prediction 0.4 s apart is still fresh for
        /// avoidance, which treats one older than 1 s as stale).
        public var predictionFactor: Double { [1, 1.5, 2][rawValue] }
        /// The shortest interval between advertisements whose neighbours changed is multiplied by this (every node:
        /// a forming mesh's neighbours come up one by one, and each change goes reliably to every neighbour).
        public var linkStateFactor: Int { [1, 2, 5][rawValue] }

        public var description: String { ["full", "reduced", "minimal"][rawValue] }
    }

    /// Lateness at or above which the pace is at most `reduced`.
    public static let reduceAt: Duration = .milliseconds(150)
    /// Lateness at or above which the pace is `minimal`.
    public static let minimalAt: Duration = .milliseconds(500)
    /// Lateness below which the node counts as on time.
    public static let calmBelow: Duration = .milliseconds(50)
    /// On time this long, the pace steps up one level.
    public static let recoverAfter: Duration = .seconds(10)

    /// The pace now.
    public private(set) var level: Level = .full
    /// The largest lateness seen since the pace last changed.
    private var worst: Duration = .zero
    /// Since when the node has been on time (nil: it is late now).
    private var calmSince: MeshInstant?

    /// Full pace.
    public init() {}

    /// A change of pace, for the log.
    public struct Change: Sendable, Hashable {
        public var from: Level
        public var to: Level
        /// The lateness that caused a step down, or the largest seen at the level left (a step up).
        public var lateness: Duration
    }

    /// The node's lateness at `now` (the largest delay of the last second or so); returns the change of pace, if any.
    public mutating func onLateness(_ lateness: Duration, now: MeshInstant) -> Change? {
        worst = max(worst, lateness)
        let wanted: Level = lateness >= Self.minimalAt ? .minimal : lateness >= Self.reduceAt ? .reduced : .full
        if wanted > level {
            let change = Change(from: level, to: wanted, lateness: lateness)
            level = wanted
            calmSince = nil
            worst = lateness
            return change
        }
        guard lateness < Self.calmBelow else {
            calmSince = nil
            return nil
        }
        guard level > .full else { return nil }
        guard let since = calmSince else {
            calmSince = now
            return nil
        }
        guard now - since >= Self.recoverAfter else { return nil }
        let change = Change(from: level, to: Level(rawValue: level.rawValue - 1)!, lateness: worst)
        level = change.to
        calmSince = now
        worst = .zero
        return change
    }
}

extension PublicationPace.Change {
    /// `publishing telemetry at 5 Hz, predictions at 3.3 Hz, neighbour changes at most every 400 ms (pace reduced):
    /// this node is 320 ms behind, …`, or `publishing … again (pace full): …`, for the default intervals; without
    /// `telemetry` and `prediction` (a station) only the neighbour changes.
    public func text(telemetry: Duration?, prediction: Duration?, linkState: Duration) -> String {
        let ms = Int((lateness.secondsDouble * 1000).rounded())
        func hz(_ d: Duration, _ f: Double) -> String {
            guard d > .zero else { return "–" }
            let v = 1 / (d.secondsDouble * f)
            return v == v.rounded() ? "\(Int(v)) Hz" : "\((v * 10).rounded() / 10) Hz"
        }
        let every = linkState * to.linkStateFactor
        let interval =
            every >= .seconds(1) && every.components.attoseconds == 0
            ? "\(every.components.seconds) s" : "\(Int((every.secondsDouble * 1000).rounded())) ms"
        var parts: [String] = []
        if let telemetry { parts.append("telemetry at \(hz(telemetry, Double(to.telemetryFactor)))") }
        if let prediction { parts.append("predictions at \(hz(prediction, to.predictionFactor))") }
        parts.append("neighbour changes at most every \(interval)")
        let rates = parts.joined(separator: ", ")
        if to > from {
            return
                "publishing \(rates) (pace \(to)): this node is \(ms) ms behind, short of CPU; fewer messages spare its peers and itself"
        }
        return
            "publishing \(rates) again (pace \(to)): this node has been on time for \(Int(PublicationPace.recoverAfter.components.seconds)) s (at worst \(ms) ms behind before)"
    }
}
