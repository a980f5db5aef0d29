import MeshTypes

/// Everything a coordinator core is told at start. All durations are on the mesh clock.
public struct CoordinatorConfiguration: Sendable {
    /// This node's identity.
    public var nodeID: NodeID
    /// Station or drone.
    public var role: NodeRole
    /// A name for humans ("controlled by <name>").
    public var name: String
    /// A UAV number fixed by configuration (drones only). Never renumbered; clashes are reported.
    public var pinnedUAVNumber: UInt8?

    /// Longest route in hops; nodes further away are unreachable. Also the TTL of routed messages.
    public var hopLimit: UInt8 = 8
    /// Unreliable floods (predictions, targets) and refreshes of link-state advertisements are forwarded only by the
    /// flood relays (`FloodRelays`), refreshes without guarantee. Off: every node with a neighbour the sender does not
    /// list forwards them, refreshes reliably to each such neighbour (as before; for comparisons).
    public var selectsFloodRelays = true
    /// Whether an unchanged advertisement's refresh goes without its contents (`LinkStateRefresh`, 40 bytes) instead
    /// of whole; false: whole, as earlier builds (for comparisons).
    public var compactRefreshes = true
    /// Whether a relay holding a flood to forward (`NodeCore.forwardHold`) drops it when the copies it hears from
    /// other relays meanwhile have reached every neighbour it was to serve (``Directive/floodRepeated(origin:sequence:by:)``);
    /// false: every relay forwards what it holds (for comparisons).
    public var prunesRepeatedFloods = true
    /// Whether a drone's telemetry for several stations leaves as one message for all of them (destination
    /// ``Destination/nodes(_:)``: a copy per next hop, split where the stations' routes part); false: one message per
    /// station, each along its whole route (as before; for comparisons).
    public var sharesTelemetryCopies = true
    /// A node forwards a drone's prediction only while it is within this many metres (horizontally) of the predicted
    /// path, its own position known: beyond, no drone it could pass the prediction to can come near that path within
    /// the prediction's horizon (8 s at 15 m/s is 120 m; the rest is a margin for routes around). A node that does not
    /// know where it is (a station) forwards. 0: no bound.
    public var predictionReach: Double = 300
    /// Within this many metres of a prediction's path a node forwards every one of the drone's predictions (5 Hz);
    /// up to twice as far, every second (by `TrajectoryPrediction.index`: 2.5 Hz), beyond that every fourth (1.25 Hz,
    /// still within `predictionMaxAge`). Two drones 100 m apart head-on at 15 m/s meet in 3.3 s; a prediction's path
    /// runs 8 s. 0: every one as far as `predictionReach`.
    public var predictionFullRateReach: Double = 100
    /// How often a node re-floods its link-state advertisement without a change.
    public var linkStateRefreshInterval: Duration = .seconds(10)
    /// An advertisement whose neighbours changed is flooded at most this often: while a mesh forms, a node's
    /// neighbours come up one by one, and flooding each change made formation cost O(N³) messages. The first change
    /// after a quiet spell goes at once; a change of the node's own state (number, controller…) never waits.
    public var linkStateMinInterval: Duration = .milliseconds(200)
    /// A neighbour's advertisement that does not list this node marks the link one-way (`unheardBy`: routes go around
    /// it) only when it arrives this long after the session opened: one made before the session may still be on its
    /// way when it opens.
    public var oneWayGrace: Duration = .seconds(2)
    /// How long a new advertisement heard from its origin waits before this node repeats it to neighbours that may
    /// lack it. Meanwhile a newer version replaces it (a forming node's neighbour list grows by the moment) and every
    /// neighbour that sends the same version shows it has it, so a forming full mesh repeats almost nothing. Further
    /// hops repeat at once.
    public var linkStateFloodDelay: Duration = .milliseconds(150)
    /// Advertisements not refreshed for this long are dropped.
    public var linkStateMaxAge: Duration = .seconds(35)
    /// How long a drone without a number listens to the mesh before claiming one.
    public var numberingListenPeriod: Duration = .seconds(1)

    /// Telemetry publishing interval (10 Hz).
    public var telemetryInterval: Duration = .milliseconds(100)
    /// A drone sends its telemetry every period to the stations up to this many hops away and to the station holding
    /// its lease; to the others every second period (5 Hz by default): each hop is one more transmission of every
    /// message, and far along a strip those were a third of the bytes on the air (docs/BENCHMARKS.md §10.17). 0: every
    /// period to every station.
    public var telemetryFullRateHops = 3
    /// Trajectory prediction publishing interval (5 Hz).
    public var predictionInterval: Duration = .milliseconds(200)
    /// A vehicle whose telemetry is older than this is flagged stale.
    public var telemetryStaleAfter: Duration = .seconds(1)
    /// Predictions older than this leave the airspace picture.
    public var predictionMaxAge: Duration = .seconds(1)

    /// Retransmission interval of a command not yet answered.
    public var commandRetransmitInterval: Duration = .milliseconds(400)
    /// Retransmission interval of an accepted command awaiting completion.
    public var commandRetransmitIntervalAfterAccept: Duration = .seconds(1)
    /// A command with no answer at all after this long is reported failed.
    public var commandGiveUpAfter: Duration = .seconds(15)
    /// An accepted command with no completion after this long is reported failed.
    public var commandCompletionTimeout: Duration = .seconds(600)
    /// How long a drone keeps a finished command's answer to replay to retransmissions. Must exceed the origins'
    /// retransmission horizon (`commandCompletionTimeout`, and `commandGiveUpAfter`) or a late retransmission
    /// could run a command again.
    public var answerRetention: Duration = .seconds(660)

    /// Drones: a scheduled command (a group command fired at one moment) that starts further ahead than this is refused.
    public var scheduleHorizon: Duration = .seconds(60)
    /// Drones: a scheduled command that arrives more than this after its start time is refused (one that arrives
    /// later by less starts at once).
    public var lateStartTolerance: Duration = .milliseconds(10)

    /// A control lease lapses after this long without a command from its station.
    public var leaseDuration: Duration = .seconds(30)
    /// Whether a station renews the leases it holds by itself (every third of `leaseDuration`) until it calls
    /// `releaseControl` or loses them; if false, only commands and manual control renew a lease.
    public var renewsLeases = true

    /// A flying drone that has heard no station for this long hovers.
    public var failsafeHoverAfter: Duration = .seconds(5)
    /// … and after this much longer takes `failsafeAction`.
    public var failsafeActionAfter: Duration = .seconds(10)
    /// What the second failsafe step does.
    public var failsafeAction: FailsafeAction = .returnHome

    /// Stations: the map origin this node announces to the mesh (nil: none). Drones ignore it.
    public var mapOrigin: MapOriginAnnouncement?
    /// How often a station with a map origin floods it (also at once when it changes or a neighbour comes up).
    public var mapOriginInterval: Duration = .seconds(2)
    /// How often a station floods the geofence in force (also at once when it sets one).
    public var geofenceInterval: Duration = .seconds(2)

    /// A configuration with defaults for everything but identity.
    public init(nodeID: NodeID, role: NodeRole, name: String, pinnedUAVNumber: UInt8? = nil) {
        self.nodeID = nodeID
        self.role = role
        self.name = name
        self.pinnedUAVNumber = pinnedUAVNumber
    }
}
