import MeshTypes

/// The coordinator's sans-IO core: routing, UAV numbering, telemetry, targets, commands, leases and failsafe.
///
/// Every input is a `mutating` event function taking `now:`; every output is a `[Directive]` the shell carries
/// out in order. The core owns no clock, socket or task, so the same inputs always give the same outputs.
/// The shell must call `onTick(now:)` regularly (every 50–100 ms): publishing, retransmissions, ageing,
/// numbering and failsafe run there.
public struct CoordinatorCore: Sendable {
    /// The configuration the core was started with.
    public let configuration: CoordinatorConfiguration
    /// This start's incarnation (drawn anew by the shell on every start).
    public let incarnation: Incarnation

    // MARK: Routing
    /// Current neighbours (direct sessions), sorted.
    public internal(set) var neighbours: [NodeID] = []
    /// When the session with each neighbour opened (this start of it).
    var neighbourSince: [NodeID: MeshInstant] = [:]
    /// Neighbours this node hears but that do not hear it: their advertisement, made after the session opened, does not
    /// list this node (a one-way link). Routes do not start with them (`ShortestPaths`).
    public internal(set) var unheardBy: Set<NodeID> = []
    /// Neighbours whose advertisement without this node came within `oneWayGrace` of the session opening: checked
    /// again at the grace's end, against the advertisement held then.
    var twoWayCheckAt: [NodeID: MeshInstant] = [:]
    /// Other nodes' latest advertisements.
    var database: [NodeID: LinkStateAdvertisement] = [:]
    var databaseHeardAt: [NodeID: MeshInstant] = [:]
    /// For each stored advertisement, the sequence number from which its contents are unchanged (`LinkStateRefresh`).
    var databaseSince: [NodeID: UInt64] = [:]
    /// When this node last asked for an origin's advertisement after a refresh of contents it lacked.
    var refreshRequestedAt: [NodeID: MeshInstant] = [:]
    var ownSequence: UInt64 = 0
    /// The sequence number of this node's last advertisement with changed contents, and its last advertisement.
    var ownContentSince: UInt64 = 0
    var lastAdvertised: LinkStateAdvertisement?
    var ownAdvertisementDirty = true
    /// The neighbour set changed since the last origination: flooded at most every `linkStateMinInterval`.
    var neighboursChanged = false
    /// Others' advertisements waiting to be repeated to the neighbours that may lack them (`linkStateFloodDelay`).
    var pendingFloods: [NodeID: PendingFlood] = [:]
    var lastOrigination: MeshInstant?
    var routesStore: [NodeID: Route] = [:]
    var routesDirty = false
    /// Hops from each node to a destination of a message for several nodes (`hops(to:)`), for the routes in
    /// `routesStore` (emptied whenever they are reckoned again).
    var hopsToCache: [NodeID: [NodeID: UInt8]] = [:]
    var stationReachable = false
    var nextAgeingAt: MeshInstant
    var duplicateWindows: [NodeID: DuplicateWindow] = [:]
    /// Whether this node relays unreliable floods (`FloodRelays`); nil: to be worked out again (the topology changed).
    var relaysFloodsCache: Bool?
    var messageSequence: UInt64 = 0
    /// Whether each newer telemetry sample is reported as `.telemetryArrived` (a station with a live display turns
    /// it on; off by default, so other shells pay nothing).
    public var reportsTelemetryArrivals = false
    /// Drone: the newest avoidance decision not yet reported to the stations, and when the next report may go.
    var pendingAvoidanceReport: String?
    var nextAvoidanceReportAt = MeshInstant(nanoseconds: 0)

    // MARK: Numbering
    /// This drone's UAV number (nil for stations and while unnumbered).
    public internal(set) var uavNumber: UInt8?
    /// Whether the local vehicle is flying (drones; told by `onFlyingChanged`).
    public internal(set) var isFlying = false
    var numberingDirty = true
    var claimAllowedAt: MeshInstant
    var renumberAttempt: UInt64 = 0
    var reportedPinnedClashes: Set<[NodeID]> = []
    var reportedExhausted = false

    // MARK: Telemetry and targets
    var localState: VehicleState?
    var localPrediction: TrajectoryPrediction?
    var nextTelemetryAt: MeshInstant
    var nextPredictionAt: MeshInstant
    /// Telemetry periods so far (modulo 256): stations far away get every second one (`telemetryFullRateHops`).
    var telemetryRounds: UInt8 = 0
    /// Predictions published so far (modulo 256): the low two bits are the next one's `index`.
    var predictionsPublished: UInt8 = 0
    /// How fast this node publishes telemetry, predictions and neighbour changes, given how late it is
    /// (``onLateness(_:now:)``).
    public internal(set) var pace = PublicationPace()
    var fleet: [NodeID: HeardSample<VehicleState>] = [:]
    var predictions: [NodeID: HeardSample<TrajectoryPrediction>] = [:]
    var latestTargetSequence: [NodeID: (Incarnation, UInt64)] = [:]

    // MARK: Commands
    var commandCounter: UInt64 = 0
    var outstanding: [UInt64: OutstandingCommand] = [:]
    var commandRecords: [CommandID: CommandRecord] = [:]
    var nextRecordSweepAt = MeshInstant(nanoseconds: 0)
    var latestManualSequence: [NodeID: (Incarnation, UInt64)] = [:]

    /// Drone: scheduled commands accepted and waiting for their start, by identity.
    var scheduledCommands: [CommandID: ScheduledCommand] = [:]

    // MARK: Leases and failsafe
    var lease: Lease? {
        // The holder is in this drone's advertisement: every station shows who controls it.
        didSet { if oldValue?.holder != lease?.holder { ownAdvertisementDirty = true } }
    }
    /// Station side: drones whose lease this node believes it holds, with their number and the next renewal time.
    var controlled: [NodeID: ControlledDrone] = [:]
    var stationHeardAt: MeshInstant
    var failsafeSteps: [FailsafeStep] = []
    var failsafeSilenceStart: MeshInstant

    // MARK: Map origin
    /// Station: the origin this node announces.
    var ownOrigin: MapOriginAnnouncement?
    /// The latest announcement heard from each other station.
    var heardOrigins: [NodeID: AgreedMapOrigin] = [:]
    var agreedOrigin: AgreedMapOrigin?
    var nextMapOriginAt: MeshInstant
    var mapOriginDirty = false
    var reportedOriginConflicts: Set<MapOriginConflictKey> = []

    // MARK: Geofence
    /// The best-ranked geofence announcement heard (or set here), nil until one is.
    var fenceInForce: HeardGeofence?
    /// The announcement this node's shell says it uses (its link-state advertisement carries it).
    var fenceInUse: GeofenceStamp?
    var nextGeofenceAt: MeshInstant

    /// Starts a core. `persistedUAVNumber` is the number the shell stored after the last `.persistUAVNumber`;
    /// a pinned number in the configuration overrides it.
    public init(
        configuration: CoordinatorConfiguration, incarnation: Incarnation, persistedUAVNumber: UInt8?, now: MeshInstant
    ) {
        self.configuration = configuration
        self.incarnation = incarnation
        if configuration.role == .drone {
            let valid: (UInt8?) -> UInt8? = { n in n.flatMap { (1...250).contains($0) ? $0 : nil } }
            self.uavNumber = valid(configuration.pinnedUAVNumber) ?? valid(persistedUAVNumber)
        }
        self.claimAllowedAt = now + configuration.numberingListenPeriod
        self.nextAgeingAt = now
        self.nextTelemetryAt = now
        self.nextPredictionAt = now
        self.stationHeardAt = now
        self.failsafeSilenceStart = now
        self.nextMapOriginAt = now
        self.nextGeofenceAt = now
        if configuration.role == .station, let origin = configuration.mapOrigin {
            self.ownOrigin = origin
            self.mapOriginDirty = true
        }
    }

    /// This node's identity.
    public var nodeID: NodeID { configuration.nodeID }
    /// Station or drone.
    public var role: NodeRole { configuration.role }
    /// Whether this drone's number is pinned by configuration.
    public var numberPinned: Bool { configuration.pinnedUAVNumber != nil && uavNumber == configuration.pinnedUAVNumber }

    /// Routes to every reachable node (as of the last tick or event that needed them).
    public var routes: [NodeID: Route] { routesStore }

    /// The route to `node`, if reachable.
    public func route(to node: NodeID) -> Route? { routesStore[node] }

    /// The latest advertisement known from `node`.
    public func advertisement(of node: NodeID) -> LinkStateAdvertisement? { database[node] }

    /// The station currently holding this drone's control lease.
    public var leaseHolder: NodeID? { lease?.holder }

    /// Station side: the drones (by node) whose lease this node believes it holds, with their UAV numbers.
    public var controlledDrones: [NodeID: UInt8] { controlled.mapValues(\.uavNumber) }

    /// What `number` resolves to among reachable drones (this drone included).
    public func resolve(uavNumber number: UInt8) -> UAVResolution {
        let c = claimants(of: number)
        switch c.count {
        case 0: return .unknown
        case 1: return .node(c[0])
        default: return .contested(c)
        }
    }

    /// Numbers claimed by more than one reachable drone, ascending.
    public var contestedNumbers: [UInt8] {
        var count: [UInt8: Int] = [:]
        for (id, _) in routesStore {
            if let lsa = database[id], lsa.role == .drone, let n = lsa.uavNumber { count[n, default: 0] += 1 }
        }
        if let n = uavNumber { count[n, default: 0] += 1 }
        return count.filter { $0.value > 1 }.map(\.key).sorted()
    }

    /// Reachable drones (this one included) claiming `number`, sorted.
    func claimants(of number: UInt8) -> [NodeID] {
        var out: [NodeID] = []
        if uavNumber == number { out.append(nodeID) }
        for (id, _) in routesStore {
            if let lsa = database[id], lsa.role == .drone, lsa.uavNumber == number { out.append(id) }
        }
        return out.sorted()
    }

    /// A node's name from its advertisement, or its short id.
    func displayName(of node: NodeID) -> String {
        if node == nodeID { return configuration.name }
        if let n = database[node]?.name, !n.isEmpty { return n }
        return node.short
    }
}

/// A telemetry sample (fleet picture) or a prediction (airspace picture) as held, with where it came from.
struct HeardSample<Value: Sendable>: Sendable {
    var uavNumber: UInt8
    var value: Value
    var receivedAt: MeshInstant
    var incarnation: Incarnation
    var sequence: UInt64

    /// Stores `sample` in `table` under `origin` unless what is held came from the same incarnation with the same or a
    /// later sequence (a duplicate, or an older copy that took a slower path).
    /// Keeps `sample` unless the table holds a newer one from the same incarnation; whether it was kept.
    @discardableResult
    static func keep(_ sample: Self, from origin: NodeID, in table: inout [NodeID: Self]) -> Bool {
        if let old = table[origin], old.incarnation == sample.incarnation, old.sequence >= sample.sequence {
            return false
        }
        table[origin] = sample
        return true
    }
}

/// A command this node sent and has no final answer for.
struct OutstandingCommand: Sendable {
    var request: CommandRequest
    var target: NodeID
    var firstSent: MeshInstant
    var acceptedAt: MeshInstant?
    var nextRetransmit: MeshInstant
    /// The neighbour it was last sent through (nil: no route then, nothing left this node). When the route to the
    /// target changes — the drone is back as a neighbour after an outage, or reachable again at all — it goes at once
    /// on the new route instead of waiting out the retransmit interval: the copy on the old one may be lost.
    var sentVia: NodeID?
}

/// What a drone answered to a command so far; replayed to retransmissions.
struct CommandRecord: Sendable {
    var uavNumber: UInt8
    var answer: CommandAnswer?
    var finishedAt: MeshInstant?
    /// A scheduled command: `accepted` was answered when it was scheduled, so the vehicle's verdict at its start only
    /// matters if it refuses (then the command failed).
    var scheduled = false
}

/// A scheduled command waiting on a drone for its start.
struct ScheduledCommand: Sendable {
    var command: Command
    var start: MeshInstant
}

/// A drone this station controls.
struct ControlledDrone: Sendable {
    var uavNumber: UInt8
    var nextRenewal: MeshInstant
}

/// The control lease of this drone.
struct Lease: Sendable {
    var holder: NodeID
    var name: String
    var expires: MeshInstant
}
