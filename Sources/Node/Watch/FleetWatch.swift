import Logging
import MeshTypes

/// A station's watch over the fleet picture, turned into node events (`fleetmesh events`, the dashboard): a drone's
/// link to its flight controller falling silent and coming back, and two drones' published predictions coming closer
/// than the separation minima for `raiseAfter` on end (a loss of separation ahead that avoidance has not resolved — a
/// drone that does not avoid, or a stale picture; avoiding drones publish a conflicting plan for a moment before the
/// one that gives way replans). Pure: the shell hands it what it sees, with the time.
struct FleetWatch {
    /// One drone as the watch sees it.
    struct Vehicle {
        var node: NodeID
        /// `UAV 12 (drone-2)`.
        var label: String
        /// Link quality to the flight controller, 0…100 (0: silent).
        var linkQuality: Int
        var stale: Bool
    }

    /// A predicted loss of separation between two drones.
    struct Conflict {
        var first: NodeID
        var second: NodeID
        /// `UAV 12 (drone-2) and UAV 14 (drone-4)`.
        var label: String
        /// Seconds from now to the first conflicting instant.
        var inSeconds: Double
        /// Closest horizontal distance while vertically too close, metres.
        var closest: Double
    }

    /// An event to record.
    struct Event: Equatable {
        var level: Logger.Level
        var kind: String
        var text: String
        var about: NodeID?
    }

    /// A conflict is reported once it has been seen without a break this long…
    var raiseAfter: Duration = .seconds(1)
    /// …and reported again only after it has been clear this long (predictions flicker as drones replan).
    var clearAfter: Duration = .seconds(2)

    private var silent: Set<NodeID> = []
    /// Conflicts seen in every check since this time, not reported yet.
    private var pending: [Pair: MeshInstant] = [:]
    /// Reported conflicts by pair, with when each was last seen.
    private var open: [Pair: MeshInstant] = [:]

    struct Pair: Hashable {
        var a: NodeID
        var b: NodeID
        init(_ x: NodeID, _ y: NodeID) { (a, b) = x < y ? (x, y) : (y, x) }
    }

    mutating func observe(vehicles: [Vehicle], conflicts: [Conflict], now: MeshInstant) -> [Event] {
        var out: [Event] = []
        for v in vehicles where !v.stale {
            if v.linkQuality == 0, !silent.contains(v.node) {
                silent.insert(v.node)
                out.append(
                    Event(
                        level: .warning, kind: "autopilot",
                        text: "\(v.label): its flight controller is silent (no MAVLink from the autopilot)",
                        about: v.node))
            } else if v.linkQuality > 0, silent.remove(v.node) != nil {
                out.append(
                    Event(
                        level: .info, kind: "autopilot", text: "\(v.label): flight controller heard again",
                        about: v.node))
            }
        }
        let seen = Set(conflicts.map { Pair($0.first, $0.second) })
        pending = pending.filter { seen.contains($0.key) }
        for c in conflicts {
            let pair = Pair(c.first, c.second)
            if open[pair] != nil {
                open[pair] = now
                continue
            }
            let since = pending[pair] ?? now
            pending[pair] = since
            if now - since >= raiseAfter {
                pending[pair] = nil
                open[pair] = now
                out.append(
                    Event(
                        level: .warning, kind: "separation",
                        text:
                            "\(c.label): predicted closer than the separation in \(Self.format(c.inSeconds)) s (closest \(Self.format(c.closest)) m)",
                        about: c.first))
            }
        }
        for (pair, seen) in open where now - seen >= clearAfter {
            open[pair] = nil
            out.append(
                Event(
                    level: .info, kind: "separation",
                    text: "\(Self.name(pair.a, vehicles)) and \(Self.name(pair.b, vehicles)): separated again",
                    about: pair.a))
        }
        return out
    }

    private static func name(_ node: NodeID, _ vehicles: [Vehicle]) -> String {
        vehicles.first { $0.node == node }?.label ?? node.short
    }

    private static func format(_ x: Double) -> String {
        let tenths = (x * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
