import MeshTypes

/// A node's description of itself, flooded to every node (link-state routing with sequence numbers).
/// It also carries what the numbering needs (role, UAV number, pin and flying flags) and the geofence the node uses.
public struct LinkStateAdvertisement: Hashable, Sendable {
    /// The node described.
    public var origin: NodeID
    /// The origin's incarnation when it made this advertisement.
    public var incarnation: Incarnation
    /// Newer advertisements carry larger numbers; a node that hears a copy of its own with a number ≥ its current one jumps past it.
    public var sequence: UInt64
    /// Station or drone.
    public var role: NodeRole
    /// Human-readable name (station name shown in "controlled by …"), at most 255 UTF-8 bytes.
    public var name: String
    /// The drone's UAV number, nil for stations and drones without one.
    public var uavNumber: UInt8?
    /// Whether the number is pinned in the drone's configuration.
    public var numberPinned: Bool
    /// Whether the drone is flying.
    public var flying: Bool
    /// The origin's neighbours (direct sessions), sorted.
    public var neighbours: [NodeID]
    /// The station's geofence announcement the origin uses (nil: none heard; a drone flies its configured fence).
    public var geofence: GeofenceStamp?
    /// Drones: the station holding the drone's control lease (nil: none). It changes seldom (a first command, a
    /// takeover, a lapse), so it rides here, flooded on change, rather than in every telemetry sample.
    public var controller: NodeID?

    /// An advertisement from its fields.
    public init(
        origin: NodeID, incarnation: Incarnation, sequence: UInt64, role: NodeRole, name: String,
        uavNumber: UInt8?, numberPinned: Bool, flying: Bool, neighbours: [NodeID], geofence: GeofenceStamp? = nil,
        controller: NodeID? = nil
    ) {
        self.controller = controller
        self.origin = origin
        self.incarnation = incarnation
        self.sequence = sequence
        self.role = role
        self.name = name
        self.uavNumber = uavNumber
        self.numberPinned = numberPinned
        self.flying = flying
        self.neighbours = neighbours
        self.geofence = geofence
    }

    /// Whether this advertisement supersedes `other` (same origin): larger sequence, ties broken by larger incarnation.
    public func isNewer(than other: LinkStateAdvertisement) -> Bool {
        LinkStateSummary.Entry(self).supersedes(LinkStateSummary.Entry(other))
    }
}

/// Where a routed message goes.
public enum Destination: Hashable, Sendable {
    /// One node, forwarded hop by hop along the routing table.
    case node(NodeID)
    /// Every reachable node, flooded with duplicate suppression.
    case broadcast
    /// Several nodes (2…``Destination/maxNodes``, ascending, no repeats): one copy as far as their routes share next
    /// hops; each node on the way delivers it if listed and passes the rest on, split by next hop (a drone's
    /// telemetry for several stations).
    case nodes([NodeID])

    /// The most nodes one ``nodes(_:)`` destination lists.
    public static let maxNodes = 16

    /// Whether a message for this destination is for `node` (a broadcast is for everyone).
    public func includes(_ node: NodeID) -> Bool {
        switch self {
        case .broadcast: true
        case .node(let d): d == node
        case .nodes(let ds): ds.contains(node)
        }
    }
}

/// The header of every routed message.
public struct Envelope: Hashable, Sendable {
    /// The node that created the message.
    public var origin: NodeID
    /// The origin's incarnation (duplicate suppression restarts with it).
    public var originIncarnation: Incarnation
    /// The origin's message sequence number (one counter for all its routed messages).
    public var sequence: UInt64
    /// Where it goes.
    public var destination: Destination
    /// Hops it may still take; a node receiving it with 1 delivers but does not forward.
    public var ttl: UInt8

    /// An envelope from its fields.
    public init(origin: NodeID, originIncarnation: Incarnation, sequence: UInt64, destination: Destination, ttl: UInt8)
    {
        self.origin = origin
        self.originIncarnation = originIncarnation
        self.sequence = sequence
        self.destination = destination
        self.ttl = ttl
    }
}

/// How a message travels over each neighbour session.
public enum Reliability: Hashable, Sendable {
    /// In order, exactly once while the session lasts.
    case reliable
    /// May be lost, duplicated or reordered.
    case unreliable
}

/// The body of a routed message.
public enum MeshPayload: Hashable, Sendable {
    /// A drone's state sample (broadcast, unreliable).
    case telemetry(uavNumber: UInt8, state: VehicleState)
    /// A drone's predicted trajectory (broadcast, unreliable).
    case prediction(uavNumber: UInt8, prediction: TrajectoryPrediction)
    /// A target for some drones (broadcast, unreliable, latest wins per origin).
    case target(Target)
    /// A command for the drone holding `uavNumber` (unicast, reliable, retransmitted by the origin).
    case command(CommandRequest)
    /// An answer to the origin of command `counter` issued by its incarnation `requesterIncarnation` (unicast, reliable).
    case commandAnswer(counter: UInt64, requesterIncarnation: Incarnation, answer: CommandAnswer)
    /// A manual-control sample (unicast, unreliable, latest wins).
    case manualControl(uavNumber: UInt8, takeover: Bool, control: ManualControl)
    /// What a drone did in failsafe (broadcast, reliable).
    case failsafeReport(FailsafeReport)
    /// Tells a station it lost a drone's lease to another station (unicast, reliable).
    case leaseRevoked(uavNumber: UInt8, newHolder: String)
    /// A station renews (`release: false`) or gives up (`release: true`) its lease on a drone (unicast, reliable).
    case leaseUpdate(uavNumber: UInt8, release: Bool)
    /// A station's map origin (broadcast, unreliable, every 2 s; the best-ranked announcement wins on every node).
    case mapOrigin(MapOriginAnnouncement)
    /// A drone's new collision-avoidance decision (to each reachable station, reliable, at most one a second).
    case avoidanceReport(AvoidanceReport)
    /// A station's geofence, or "no fence" (broadcast, unreliable; every station floods the one in force every 2 s, and
    /// every node hands it to a neighbour that comes up; the best-ranked announcement is in force on every node).
    case geofence(GeofenceAnnouncement)

    /// How the payload travels over each hop.
    public var reliability: Reliability {
        switch self {
        case .telemetry, .prediction, .target, .manualControl, .mapOrigin, .geofence: return .unreliable
        case .command, .commandAnswer, .failsafeReport, .leaseRevoked, .leaseUpdate, .avoidanceReport: return .reliable
        }
    }
}

/// A command as sent to a drone.
public struct CommandRequest: Hashable, Sendable {
    /// The origin's counter (the origin is the envelope's origin).
    public var counter: UInt64
    /// The UAV number the station addressed.
    public var uavNumber: UInt8
    /// The incarnation of the drone the origin resolved the number to; a restarted drone refuses.
    public var targetIncarnation: Incarnation
    /// Take the lease from another station.
    public var takeover: Bool
    /// The command.
    public var command: Command
    /// When the drone starts it (nil: as soon as it arrives).
    public var start: CommandStart?

    /// A request from its fields.
    public init(
        counter: UInt64, uavNumber: UInt8, targetIncarnation: Incarnation, takeover: Bool, command: Command,
        start: CommandStart? = nil
    ) {
        self.counter = counter
        self.uavNumber = uavNumber
        self.targetIncarnation = targetIncarnation
        self.takeover = takeover
        self.command = command
        self.start = start
    }
}

/// The moment a scheduled command starts. Nodes share no clock: each holds the moment on its own monotonic clock, and
/// every hop translates it into the next hop's clock as it sends the command (`onClock(of:)`, with the offset the
/// mesh layer estimates from heartbeats), so the drone receives it on its own clock.
public enum CommandStart: Hashable, Sendable {
    /// At this instant on the clock of the node holding the request.
    case at(MeshInstant)
    /// A hop on the way had no estimate of the next hop's clock, so the moment could not be carried (the drone refuses).
    case clockUnknown
}

extension CoordinatorMessage {
    /// This message as it must leave for a neighbour whose clock is `offset` ahead of this node's (`nil`: unknown): a
    /// scheduled command's start moves onto the neighbour's clock; every other message is unchanged.
    public func onClock(offset: Duration?) -> CoordinatorMessage {
        guard case .routed(let env, .command(var request)) = self, case .at(let t) = request.start else { return self }
        request.start = offset.map { .at(t + $0) } ?? .clockUnknown
        return .routed(env, .command(request))
    }

    /// Whether sending this message needs the receiver's clock (a scheduled command with a known start).
    public var carriesClockTime: Bool {
        guard case .routed(_, .command(let request)) = self, case .at = request.start else { return false }
        return true
    }
}

/// Everything coordinators say to each other. The transport carries each as `(type: UInt16, payload: [UInt8])`.
public enum CoordinatorMessage: Hashable, Sendable {
    /// A link-state advertisement, flooded hop by hop by the routing itself (reliable).
    case linkState(LinkStateAdvertisement)
    /// Which advertisements the sender holds, to a neighbour whose session just came up (reliable).
    case linkStateSummary(LinkStateSummary)
    /// The advertisements a node asks a neighbour for, answering its summary (reliable).
    case linkStateRequest(LinkStateRequest)
    /// An unchanged advertisement's refresh without its contents, flooded like one (unreliable).
    case linkStateRefresh(LinkStateRefresh)
    /// A routed message: envelope and body.
    case routed(Envelope, MeshPayload)

    /// How this message travels over the next hop.
    public var reliability: Reliability {
        switch self {
        case .linkState, .linkStateSummary, .linkStateRequest: return .reliable
        case .linkStateRefresh: return .unreliable
        case .routed(_, let p): return p.reliability
        }
    }
}
