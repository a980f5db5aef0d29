import MeshTypes

/// What the core asks its shell to do. The shell carries them out in order.
public enum Directive: Hashable, Sendable {
    /// Send a message to a neighbour over its session (`reliability` picks the reliable-ordered or unreliable send).
    case send(CoordinatorMessage, to: NodeID, reliability: Reliability)
    /// Store this drone's UAV number so the next start passes it to `init`.
    case persistUAVNumber(UInt8)
    /// This drone's own number changed (announced to the mesh in its link-state advertisement).
    case uavNumberChanged(from: UInt8?, to: UInt8?, reason: NumberChangeReason)
    /// Another node's number changed as seen in its advertisement (for operator displays).
    case numberAnnounced(node: NodeID, number: UInt8?, previous: UInt8?)
    /// A numbering problem the core will not solve on its own. Report loudly.
    case numberConflict(NumberConflict)
    /// Drone: hand this target to the local vehicle.
    case applyTarget(Target, from: NodeID)
    /// Drone: ask the local vehicle to validate and start the command; answer with `onVehicleVerdict`, then `onVehicleCompletion`.
    case executeCommand(CommandID, Command)
    /// Drone: a scheduled command was accepted; call `onScheduledStart(id, now:)` at `start` (on this node's clock).
    /// If a newer command cancels it first, that call does nothing.
    case scheduleStart(CommandID, at: MeshInstant)
    /// Drone: hand this manual-control sample to the local vehicle.
    case applyManualControl(ManualControl, from: NodeID)
    /// Command origin: an answer to one of this node's commands (`accepted` first, then one final answer).
    case commandAnswer(CommandID, CommandAnswer)
    /// Drone: the control lease moved (nil: no station controls this drone).
    case leaseChanged(holder: NodeID?, name: String?)
    /// Station: this station no longer controls a drone: another station took it over (`to` is its name), or the
    /// lease lapsed while the drone could not hear this station (`to` is empty).
    case controlLost(uavNumber: UInt8, to: String)
    /// Drone: take this failsafe action now.
    case failsafe(FailsafeAction)
    /// Station: a drone reports what it did while it heard no station.
    case failsafeReported(FailsafeReport, from: NodeID)
    /// Station: a drone reports a new collision-avoidance decision.
    case avoidanceReported(AvoidanceReport, from: NodeID)
    /// The map origin this node agrees on changed (first known, or a better-ranked announcement arrived).
    case mapOriginChanged(MapOriginAnnouncement, announcedBy: NodeID)
    /// Two stations announce different origins; `kept` (larger epoch, ties to the lower NodeID) wins on every node.
    /// Reported once per pair of announcements.
    case mapOriginConflict(
        kept: MapOriginAnnouncement, keptBy: NodeID, ignored: MapOriginAnnouncement, ignoredBy: NodeID)
    /// The geofence in force on this node changed: a better-ranked announcement was heard or set here (`fence` nil: a
    /// station announced that there is none). The shell hands it to the vehicle and reports what it uses with
    /// `onGeofenceInUse`.
    case geofenceChanged(GeofenceAnnouncement)
    /// Station: a newer telemetry sample from this node is in the fleet picture (only while
    /// ``CoordinatorCore/reportsTelemetryArrivals`` is on: a live display pushes it on at once).
    case telemetryArrived(from: NodeID)
    /// An unreliable flood this node has already seen came again, from the neighbour `by`: every neighbour of `by` has
    /// it now. The node core drops a copy it still holds to forward once every neighbour it was to serve has it
    /// (``CoordinatorConfiguration/prunesRepeatedFloods``); a shell has nothing to do.
    case floodRepeated(origin: NodeID, sequence: UInt64, by: NodeID)
}

/// Why a drone's number changed.
public enum NumberChangeReason: Hashable, Sendable {
    /// First claim of a free number.
    case claimed
    /// Another drone kept the number in a clash (it flies, is pinned, or has the lower NodeID).
    case lostClash(to: NodeID)
    /// All 250 numbers are taken among reachable drones.
    case exhausted
}

/// A numbering problem reported to the operator.
public enum NumberConflict: Hashable, Sendable {
    /// Two or more reachable drones are pinned to the same number. Neither is renumbered; commands to it are refused.
    case pinnedClash(number: UInt8, nodes: [NodeID])
    /// No free number is left for this drone.
    case exhausted
}
