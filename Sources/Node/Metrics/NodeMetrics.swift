import Coordinator
import Membership
import MeshTypes
import Prometheus
import Synchronization

/// One node's runtime figures as Prometheus metrics (`GET /metrics`: the dashboard's, or `[metrics] listen`'s), in a
/// registry of its own so that many nodes in one process (tests, `fleetmesh-bench emulate-drones`) each show their own.
///
/// Two kinds of figure. What the node counts anyway (sessions, peers by state, datagrams and bytes by kind, refusals,
/// round trips, the fleet picture, separation) is read from it at each scrape, in one call on its actor
/// (`MetricsSnapshot`), and set here: the datagram path gains no work and no lock. What happens now and then (a
/// command's answer, a failsafe, Avahi lost) is counted as it happens, by a lock-free atomic increment.
///
/// Built on swift-prometheus's `PrometheusCollectorRegistry` and its text exposition (version 0.0.4), used directly
/// rather than through swift-metrics' API types made with a `PrometheusMetricsFactory(registry:)` (swift-metrics 2.13
/// does take a `factory:` per metric, so no process-wide bootstrap would be needed): that factory registers every
/// metric with an empty help text, and the registry stops the process when one name is registered with two help
/// texts, so a metric made through it can carry none. The round-trip histogram is the mesh layer's own
/// (`LatencyHistogram`, counted in the pure core, 20 samples a second per peer): swift-prometheus's histogram takes
/// samples one by one under a lock, so the core counts and the scrape renders its buckets beside the registry's
/// output, in the same format.
public final class NodeMetrics: Sendable {
    /// The registry every metric here is in.
    let registry = PrometheusCollectorRegistry()
    /// Held while sampled figures are set and the text rendered, so two scrapes do not interleave.
    private let scrape = Mutex(())

    private let info: Gauge
    private let uptime: Gauge
    private let peers: [PeerState: Gauge]
    private let sessions: Gauge
    private let relayed: Gauge
    private let datagramsIn: [Counter], bytesIn: [Counter], datagramsOut: [Counter], bytesOut: [Counter]
    private let drops: [String: Counter]
    private let rebinds: Counter
    private let floodsPruned: Counter
    private let vehicles: (live: Gauge, stale: Gauge)
    private let telemetryAge: OptionalGauge
    private let separationNow: OptionalGauge
    private let separationPredicted: OptionalGauge
    private let manualSamples: Counter
    private let targets: Counter
    private let avahiUp: OptionalGauge
    private let publicationPace: OptionalGauge

    // Counted as they happen.
    private let commandAnswers: [String: Counter]
    private let vehicleCommands: [String: Counter]
    private let failsafes: [FailsafeAction: Counter]
    private let failsafeReports: Counter
    private let avahiLosses: Counter
    private let malformedMessages: Counter

    /// The reasons a dropped datagram is counted under, and the mesh layer's refusal categories each covers.
    static let dropReasons: [(reason: String, categories: [String])] = [
        ("bad_tag", ["decryptionFailed", "groupBadTag"]),
        ("replay", ["replayedCounter", "replayedInitiation", "groupReplayed"]),
        ("malformed", ["malformed", "groupMalformed", "unknownMessageType", "invalidEphemeralKey"]),
        ("unknown_peer", ["unknownReceiverIndex"]),
        ("wrong_mesh_key", ["wrongMeshKey"]),
        ("session_expired", ["sessionExpired"]),
        ("unsupported_version", ["unsupportedVersion"]),
        ("node_id_mismatch", ["nodeIDMismatch", "ownNodeID"]),
        ("stale", ["stale"]),
        // Never read (not refusals of the mesh layer): `MetricsSnapshot.unreadByKernel`, `unreadByQueue`.
        ("receive_buffer", []),
        ("receive_queue", []),
    ]

    /// Outcomes of commands, as `fleetmesh send` reports them.
    static let outcomes = ["accepted", "rejected", "completed", "failed", "timed_out"]

    /// A registry with every metric at zero, for the node `node` (its id in hex) named `name` in `role`.
    public init(role: String, name: String, node: String) {
        let r = registry
        info = r.fleetGauge(
            name: "fleetmesh_node_info", labels: [("role", role), ("name", name), ("node", node)],
            help: "This node (always 1): its role, name and node id.")
        info.set(1.0)
        uptime = r.fleetGauge(name: "fleetmesh_uptime_seconds", help: "Seconds since the node started.")
        peers = Dictionary(
            uniqueKeysWithValues: PeerState.allCases.map { state in
                (
                    state,
                    r.fleetGauge(
                        name: "fleetmesh_peers", labels: [("state", state.rawValue)],
                        help: "Peers this node knows directly, by membership state.")
                )
            })
        sessions = r.fleetGauge(
            name: "fleetmesh_sessions", help: "Authenticated sessions with peers (the secure transport's).")
        relayed = r.fleetGauge(
            name: "fleetmesh_relayed_nodes", help: "Nodes reached only through other nodes (a route, no session).")
        func perKind(_ name: String, _ direction: String, _ help: String) -> [Counter] {
            DatagramTally.Kind.allCases.map {
                r.fleetCounter(name: name, labels: [("direction", direction), ("kind", $0.label)], help: help)
            }
        }
        let datagramsHelp =
            "Datagrams on the mesh socket, by direction and kind (handshake, unicast session message, group, other)."
        let bytesHelp = "UDP payload bytes on the mesh socket, by direction and kind."
        datagramsIn = perKind("fleetmesh_datagrams_total", "in", datagramsHelp)
        datagramsOut = perKind("fleetmesh_datagrams_total", "out", datagramsHelp)
        bytesIn = perKind("fleetmesh_bytes_total", "in", bytesHelp)
        bytesOut = perKind("fleetmesh_bytes_total", "out", bytesHelp)
        drops = Dictionary(
            uniqueKeysWithValues: (Self.dropReasons.map(\.reason) + ["other"]).map { reason in
                (
                    reason,
                    r.fleetCounter(
                        name: "fleetmesh_datagrams_dropped_total", labels: [("reason", reason)],
                        help:
                            "Datagrams dropped, by reason: refused by the mesh layer, or never read (receive_buffer, receive_queue: the node was short of CPU)."
                    )
                )
            })
        rebinds = r.fleetCounter(
            name: "fleetmesh_socket_rebinds_total", help: "Times the mesh socket was bound again after a send error.")
        floodsPruned = r.fleetCounter(
            name: "fleetmesh_floods_pruned_total",
            help:
                "Floods this relay held to forward and dropped: other relays had sent them to every neighbour they were for."
        )
        let vehiclesHelp = "Vehicles in this node's fleet picture besides its own, fresh (live) or stale."
        vehicles = (
            r.fleetGauge(name: "fleetmesh_vehicles", labels: [("state", "live")], help: vehiclesHelp),
            r.fleetGauge(name: "fleetmesh_vehicles", labels: [("state", "stale")], help: vehiclesHelp)
        )
        telemetryAge = OptionalGauge(
            r, "fleetmesh_telemetry_age_max_seconds",
            "Age of the oldest live vehicle's telemetry in this node's fleet picture (absent without one).")
        separationNow = OptionalGauge(
            r, "fleetmesh_separation_min_metres",
            "Smallest horizontal distance now between two airborne drones within the vertical separation of each other, from their published predictions (absent without such a pair)."
        )
        separationPredicted = OptionalGauge(
            r, "fleetmesh_separation_predicted_min_metres",
            "Smallest horizontal distance between two airborne drones within the vertical separation of each other over the prediction horizon, as collision avoidance sees it (absent without such a pair)."
        )
        manualSamples = r.fleetCounter(
            name: "fleetmesh_manual_control_samples_total", help: "Manual-control samples this drone obeyed.")
        targets = r.fleetCounter(
            name: "fleetmesh_source_targets_total", help: "Targets from target sources passed into the mesh.")
        avahiUp = OptionalGauge(
            r, "fleetmesh_avahi_up", "Whether the node's Avahi client has avahi-daemon (absent: the node runs none).")
        publicationPace = OptionalGauge(
            r, "fleetmesh_publication_pace",
            "The node's publication pace: 0 full, 1 reduced, 2 minimal (while it is behind, short of CPU, a drone publishes telemetry and predictions less often, every node the changes of its neighbours)."
        )
        commandAnswers = Dictionary(
            uniqueKeysWithValues: Self.outcomes.map { outcome in
                (
                    outcome,
                    r.fleetCounter(
                        name: "fleetmesh_commands_total", labels: [("outcome", outcome)],
                        help:
                            "Answers to commands this node sent (accepted, then completed or failed; rejected), and commands left without a final answer (timed_out)."
                    )
                )
            })
        vehicleCommands = Dictionary(
            uniqueKeysWithValues: Self.outcomes.dropLast().map { outcome in
                (
                    outcome,
                    r.fleetCounter(
                        name: "fleetmesh_vehicle_commands_total", labels: [("outcome", outcome)],
                        help: "Commands this drone's vehicle accepted, rejected, completed or failed.")
                )
            })
        failsafes = Dictionary(
            uniqueKeysWithValues: FailsafeAction.allCases.map { action in
                (
                    action,
                    r.fleetCounter(
                        name: "fleetmesh_failsafes_total", labels: [("action", Self.label(action))],
                        help: "Failsafe actions this drone took after hearing no station.")
                )
            })
        failsafeReports = r.fleetCounter(
            name: "fleetmesh_failsafe_reports_total", help: "Drones' reports of failsafes they took, received here.")
        avahiLosses = r.fleetCounter(
            name: "fleetmesh_avahi_restarts_total",
            help: "Times avahi-daemon went away after running (a restart or a crash); the node reconnects by itself.")
        malformedMessages = r.fleetCounter(
            name: "fleetmesh_coordinator_messages_malformed_total",
            help: "Coordinator messages dropped as malformed (inside authenticated datagrams).")
    }

    static func label(_ action: FailsafeAction) -> String {
        switch action {
        case .hover: "hover"
        case .returnHome: "return_home"
        case .land: "land"
        }
    }

    /// The drop reason a refusal category counts under.
    static func dropReason(_ category: String) -> String {
        dropReasons.first { $0.categories.contains(category) }?.reason ?? "other"
    }

    // MARK: - Counted as it happens

    /// An answer to a command this node sent.
    func commandAnswered(_ answer: CommandAnswer) {
        let outcome =
            switch answer {
            case .accepted: "accepted"
            case .rejected: "rejected"
            case .completed: "completed"
            case .failed: "failed"
            }
        commandAnswers[outcome]?.increment()
    }

    /// A command this node sent got no final answer in time.
    func commandTimedOut() { commandAnswers["timed_out"]?.increment() }

    /// This drone's vehicle accepted, rejected, completed or failed a command.
    func vehicleCommand(_ outcome: String) { vehicleCommands[outcome]?.increment() }

    func failsafe(_ action: FailsafeAction) { failsafes[action]?.increment() }
    func failsafeReported() { failsafeReports.increment() }
    func avahiLost() { avahiLosses.increment() }
    func malformedMessage() { malformedMessages.increment() }

    // MARK: - Scrape

    /// Sets the sampled figures from `s` and renders every metric in the text exposition format (version 0.0.4).
    func render(_ s: MetricsSnapshot) -> [UInt8] {
        scrape.withLock { _ in
            update(s)
            var out: [UInt8] = []
            out.reserveCapacity(8192)
            registry.emit(into: &out)
            Self.emit(
                s.roundTrips, name: "fleetmesh_rtt_seconds",
                help: "Round trips to peers measured by heartbeats and group echoes, in seconds.", into: &out)
            Self.emit(
                s.groupWaits, name: "fleetmesh_group_wait_seconds",
                help:
                    "How long group datagrams waited between their arrival and the node's next tick or datagram, in seconds.",
                into: &out)
            return out
        }
    }

    private func update(_ s: MetricsSnapshot) {
        uptime.set(s.uptimeSeconds)
        for (state, gauge) in peers { gauge.set(Double(s.peers[state] ?? 0)) }
        sessions.set(Double(s.sessions))
        relayed.set(Double(s.relayedNodes))
        for k in DatagramTally.Kind.allCases {
            let i = k.rawValue
            Self.set(datagramsIn[i], s.traffic.datagramsIn[i])
            Self.set(bytesIn[i], s.traffic.bytesIn[i])
            Self.set(datagramsOut[i], s.traffic.datagramsOut[i])
            Self.set(bytesOut[i], s.traffic.bytesOut[i])
        }
        var byReason: [String: Int] = [:]
        for (category, n) in s.rejections { byReason[Self.dropReason(category), default: 0] += n }
        byReason["receive_buffer"] = s.unreadByKernel
        byReason["receive_queue"] = s.unreadByQueue
        for (reason, counter) in drops { Self.set(counter, byReason[reason] ?? 0) }
        Self.set(rebinds, s.socketRebinds)
        Self.set(floodsPruned, s.floodsPruned)
        vehicles.live.set(Double(s.liveVehicles))
        vehicles.stale.set(Double(s.staleVehicles))
        telemetryAge.set(s.oldestTelemetrySeconds)
        separationNow.set(s.separationNow)
        separationPredicted.set(s.separationPredicted)
        Self.set(manualSamples, s.manualSamples)
        Self.set(targets, s.targetsFromSources)
        avahiUp.set(s.avahiUp.map { $0 ? 1 : 0 })
        publicationPace.set(s.publicationPace.map(Double.init))
    }

    /// A counter the node keeps elsewhere, shown as it stands (only during a scrape, under its lock).
    private static func set(_ counter: Counter, _ value: Int) {
        counter.reset()
        counter.increment(by: Int64(max(0, value)))
    }

    /// `histogram` as a Prometheus histogram family named `name`: cumulative `le` buckets in seconds, sum and count.
    static func emit(_ histogram: LatencyHistogram, name: String, help: String, into out: inout [UInt8]) {
        out.append(contentsOf: "# HELP \(name) \(help)\n# TYPE \(name) histogram\n".utf8)
        let cumulative = histogram.cumulativeCounts
        for (i, total) in cumulative.enumerated() {
            let le =
                i < histogram.boundsNanoseconds.count
                ? "\(Double(histogram.boundsNanoseconds[i]) / 1e9)" : "+Inf"
            out.append(contentsOf: "\(name)_bucket{le=\"\(le)\"} \(total)\n".utf8)
        }
        out.append(contentsOf: "\(name)_sum \(Double(histogram.sumNanoseconds) / 1e9)\n".utf8)
        out.append(contentsOf: "\(name)_count \(histogram.count)\n".utf8)
    }
}

/// A gauge that is absent from the exposition while there is nothing to measure (a minimum over no pair, the age of
/// no vehicle's telemetry): Prometheus's way to say "no value", rather than a made-up zero.
private final class OptionalGauge: @unchecked Sendable {
    // Touched only under `NodeMetrics.scrape`'s lock.
    private let registry: PrometheusCollectorRegistry
    private let name: String
    private let help: String
    private var gauge: Gauge?

    init(_ registry: PrometheusCollectorRegistry, _ name: String, _ help: String) {
        self.registry = registry
        self.name = name
        self.help = help
    }

    func set(_ value: Double?) {
        if let value {
            if gauge == nil { gauge = registry.fleetGauge(name: name, help: help) }
            gauge?.set(value)
        } else if let g = gauge {
            registry.unregisterGauge(g)
            gauge = nil
        }
    }
}

extension PrometheusCollectorRegistry {
    /// A gauge by its whole name: the registry's descriptor API (its name-and-help methods are deprecated), with the
    /// name in one part.
    func fleetGauge(name: String, labels: [(String, String)] = [], help: String) -> Gauge {
        makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    /// A counter by its whole name, like `fleetGauge`.
    func fleetCounter(name: String, labels: [(String, String)] = [], help: String) -> Counter {
        makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }
}
