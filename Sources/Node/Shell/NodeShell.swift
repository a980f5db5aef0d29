import Avoidance
import ControlProtocol
import Coordinator
import Discovery
import FlightLog
import Foundation
import Geodesy
import Logging
import Membership
import MeshCore
import MeshTypes
import NIOCore
import NodeCore
import SecureTransport
import Vehicles

/// The node's actor: the I/O shell around one `NodeCore` (sessions, membership, reliable channels, coordinator and
/// the rules between them, the same core the deterministic simulations run) and, on a drone, the vehicle with
/// collision avoidance above it (`VehiclePilot`). It feeds them datagrams, DNS-SD records, the 10 ms mesh tick,
/// the 50 ms coordinator tick, the vehicle's reports and the operator's requests, and carries out what comes back:
/// datagrams on the socket, the persisted UAV number, the DNS-SD TXT record, the vehicle's commands, answers and
/// log lines. It never awaits while handling an input, so effects run in the order the core produced them.
public actor NodeShell {
    /// The tick period (the core wants 50–100 ms; the vehicle is stepped at the same rate, 20 Hz).
    public static let tickInterval: Duration = .milliseconds(50)
    /// The file in the state directory holding the drone's UAV number.
    public static let numberFile = "uav-number"

    /// Everything that decides: the mesh layer and the coordinator (pure; this actor only does the I/O).
    var node: NodeCore<SocketAddress>
    /// The coordinator, read-only (every change goes through `node`, so its effects are carried out).
    var core: CoordinatorCore { node.coordinator }
    public nonisolated let nodeID: NodeID
    public nonisolated let incarnation: Incarnation
    public nonisolated let fingerprint: String
    let configuration: NodeConfiguration
    /// The socket (set once bound, by `attach`).
    var transport: UDPTransport?
    /// The process's Avahi client, for the TXT record (nil without one).
    var discovery: AvahiDiscovery?
    var avahiState = "starting"
    /// Stations: autopilots falling silent and predicted losses of separation, as events (`watchFleet`).
    var fleetWatch = FleetWatch()
    var nextFleetWatchAt = MeshInstant(nanoseconds: 0)
    /// The ground-control endpoint's state, as its service reports it ("starting" until it runs; nil: none configured).
    var groundControlState: String?
    /// The mesh socket's datagrams and bytes in and out (`status`), and by kind (the metrics).
    var traffic = TrafficMeter()
    var tally = DatagramTally()
    /// How long group datagrams waited between their arrival and the node's next look (`receiveHeld`).
    var groupWaits = LatencyHistogram()
    /// The node's Prometheus metrics (`GET /metrics`): figures sampled from this actor at each scrape, and counters of
    /// what happens now and then.
    public nonisolated let metrics: NodeMetrics
    var publishedName: String?
    /// Mesh ticks run since start: the systemd watchdog is fed only while this moves (`SystemdService`).
    var meshTicks: UInt64 = 0
    /// Wakes the mesh tick at the core's deadlines (`NodeTickService`); nil until the tick service runs.
    var meshAlarm: MeshAlarm?
    /// While the mesh tick runs: what it schedules, it reckons with itself.
    var inMeshTick = false
    /// The next mesh tick comes no sooner than this (`meshTick`).
    var meshTickNotBefore = ContinuousClock.now
    /// When the node last warned that it handles datagrams or ticks late (at most every 10 s).
    var lateWarnedAt: MeshInstant?
    /// Datagrams lost unread on the way in (`noteUnreadDatagrams`), and when the node last warned of them (at most every
    /// 10 s) with the total then.
    var unreadDatagrams = UnreadDatagrams()
    var unreadWarned: (at: MeshInstant, total: UInt64)?
    var discoveryKeys: [ServiceKey: (id: NodeID, address: SocketAddress)] = [:]
    /// When each peer's records were last resolved afresh because it was lost (`followLostPeers`), and when lost
    /// peers were last looked for.
    var recordsResolvedAgainAt: [NodeID: MeshInstant] = [:]
    var lostPeersCheckedAt = MeshInstant(nanoseconds: 0)
    /// Peers' DNS-SD records browsed and not resolved yet (with a group channel: `resolveFoundRecords`).
    var foundRecords = FoundRecords()
    /// A drone's vehicle (the simulator or an autopilot) with collision avoidance above it.
    var pilot: VehiclePilot?
    /// Drones with `vehicle = "mavlink:…"`: the link to the autopilot (`AutopilotLinkService` runs it).
    public nonisolated let autopilotLink: AutopilotLink?
    /// Commands from the ground-control endpoint, with the endpoint's ticket: their answers go to `groundControlAnswers`.
    var groundControlTickets: [CommandID: UInt64] = [:]
    nonisolated let groundControlAnswers = GroundControlAnswers()
    let name: String
    let stateDirectory: String
    var logger: Logger
    let clock: ContinuousClock
    let started: ContinuousClock.Instant
    /// Whether the DNS-SD record has been published. Until then a TXT change is held back: changing a record Avahi is
    /// still probing makes it collide with its own earlier probe and take another name.
    var recordPublished = false
    var malformedLoggedAt: [NodeID: MeshInstant] = [:]
    /// What happened lately, for `fleetmesh events` and the dashboard.
    var eventLog = NodeEventLog()
    /// Target updates received from target sources and flooded.
    var targetsFromSources = 0
    /// Drones: the manual-control samples obeyed.
    var manualStats = ManualControlStats()
    /// Live displays (the dashboard) given each newer telemetry sample as it arrives.
    var vehicleObservers: [Int: AsyncStream<VehicleReport>.Continuation] = [:]
    var nextVehicleObserver = 0
    /// Answers to commands a control request is waiting for.
    var answers: [CommandID: [CommandReport.Answer]] = [:]
    var commandSentAt: [CommandID: MeshInstant] = [:]
    /// Scheduled commands this node sent: when they start (wall-clock ms), for the log.
    var commandStartsAtMs: [CommandID: Int64] = [:]
    /// `send` calls waiting for a command's final answer (completed, failed or rejected).
    var finalAnswerWaiters: [CommandID: CheckedContinuation<Void, Never>] = [:]
    /// Commands whose wait ended (final answer or timeout): a waiter arriving late returns at once.
    var finishedWaits: Set<CommandID> = []
    /// Records for the flight log (nil when `[log] flight_log = false`); `FlightRecorderService` writes them.
    nonisolated let flightRecords: FlightRecordQueue?
    /// Manual-control sessions this station holds, by UAV, until a second passes without a sample (flight log).
    var manualSessions: [UInt8: ManualSessionRecord] = [:]
    /// The recorder's last figures, for `status`.
    var flightLogReport: FlightLogReport?
    /// The shipper's figures (`[log] postgres`), for `status`.
    var flightShippingReport: FlightLogShippingReport?
    /// The UAV number each command this station sent went to, until its final answer (the answers' events name it).
    var commandTargets: [CommandID: UInt8] = [:]
    /// When the flight log next takes the fleet's predictions.
    var nextPredictionRecordAt = MeshInstant(nanoseconds: 0)

    /// Starts the core: reads `uav-number` from the state directory (a bad file is logged and ignored), and for a
    /// drone builds its vehicle (the simulator at its home plus a per-node offset, or an autopilot's link).
    /// `incarnation` is drawn at random unless given (tests).
    public init(
        configuration: NodeConfiguration, key: MeshKey, nodeID: NodeID, incarnation: Incarnation? = nil,
        clock: ContinuousClock = ContinuousClock(), logger: Logger
    ) throws {
        self.clock = clock
        var rng = SystemRandomNumberGenerator()
        let incarnation = incarnation ?? rng.next()
        self.configuration = configuration
        groundControlState = configuration.groundControl == nil ? nil : "starting"
        self.nodeID = nodeID
        self.incarnation = incarnation
        self.fingerprint = key.fingerprint
        self.name = configuration.name
        self.stateDirectory = configuration.stateDirectory
        self.logger = logger
        self.started = clock.now
        metrics = NodeMetrics(role: configuration.role.rawValue, name: configuration.name, node: nodeID.hex)
        var persisted: UInt8?
        if configuration.role == .drone {
            switch Self.readNumber(directory: configuration.stateDirectory) {
            case .success(let n): persisted = n
            case .failure(let problem): logger.warning("\(problem); a new number will be claimed")
            }
        }
        flightRecords = configuration.flightLog.enabled ? FlightRecordQueue() : nil
        var coreConfiguration = CoordinatorConfiguration(
            nodeID: nodeID, role: configuration.role, name: configuration.name,
            pinnedUAVNumber: configuration.uavNumber.map { UInt8($0) })
        if configuration.role == .station, let origin = configuration.mapOrigin {
            // The epoch orders announcements across the mesh: this start's wall clock, in milliseconds.
            let epoch = UInt64(max(0, (Date().timeIntervalSince1970 * 1000).rounded()))
            coreConfiguration.mapOrigin = MapOriginAnnouncement(
                position: GeoPoint(latitude: origin.latitude, longitude: origin.longitude, altitude: origin.altitude),
                forcedZone: origin.zone.map { UInt8($0.number) }, southernHemisphere: origin.zone?.hemisphere == .south,
                epoch: epoch)
        }
        configuration.coordinator.apply(to: &coreConfiguration)
        var coordinator = CoordinatorCore(
            configuration: coreConfiguration, incarnation: incarnation, persistedUAVNumber: persisted,
            now: MeshInstant(nanoseconds: 0))
        // The flight log records every newer sample of every vehicle as it arrives.
        coordinator.reportsTelemetryArrivals = flightRecords != nil
        let mesh = MeshCore<SocketAddress>(
            key: key, localID: nodeID, incarnation: incarnation, role: configuration.role, name: configuration.name,
            uavNumber: configuration.uavNumber, membership: configuration.membership,
            group: configuration.usesGroup ? GroupSettings() : nil)
        node = NodeCore(mesh: mesh, coordinator: coordinator)
        // Before any event: a handshake started by the first datagram or discovery, before the first mesh tick,
        // carries the wall clock (a restarted node's peers refuse a lower timestamp than its previous run's).
        node.noteWallClock(Self.wallClockMicros, now: Self.meshInstant(clock.now, since: started))
        var link: AutopilotLink?
        if configuration.role == .drone {
            let vehicle: any Vehicle
            switch configuration.vehicle {
            case .simulator:
                let home = configuration.home ?? .default
                do {
                    // A configured home is where the drone stands; without one, drones spread around the default.
                    let offset =
                        configuration.home == nil ? SimulatedVehicle.startOffset(for: nodeID) : (east: 0.0, north: 0.0)
                    vehicle = try SimulatedVehicle(latitude: home.latitude, longitude: home.longitude, offset: offset)
                } catch {
                    throw ConfigError(
                        file: "configuration", field: "[drone] home",
                        problem: "cannot place home \(home.latitude), \(home.longitude) on the map: \(error)")
                }
            case .mavlink(let endpoint):
                link = AutopilotLink(endpoint: endpoint, logger: logger)
                var autopilot = AutopilotVehicle(
                    linkName: "\(endpoint)", autopilotSystemID: configuration.autopilotSystemID.map { UInt8($0) })
                _ = autopilot.setUAVNumber(coordinator.uavNumber)
                vehicle = autopilot
            }
            let plan = configuration.avoidance.enabled ? configuration.avoidance.plan : nil
            do {
                pilot = try VehiclePilot(
                    vehicle: vehicle, plan: plan, predictionInterval: configuration.coordinator.predictionInterval)
            } catch {
                throw ConfigError(file: "configuration", field: "[avoidance] geofence", problem: "\(error)")
            }
        }
        autopilotLink = link
    }

    var now: MeshInstant { Self.meshInstant(clock.now, since: started) }

    /// The cores' time at `instant`: since the node started.
    static func meshInstant(_ instant: ContinuousClock.Instant, since started: ContinuousClock.Instant) -> MeshInstant {
        MeshInstant(nanoseconds: UInt64(max(0, (instant - started).wholeNanoseconds)))
    }

    private func seconds(_ t: MeshInstant) -> Double { Double(t.nanoseconds) / 1e9 }

    // MARK: - Inputs

    /// The 50 ms tick: one control cycle of the drone's vehicle (`VehiclePilot.cycle`: the vehicle, collision
    /// avoidance against the airspace picture, what to publish) fed to the coordinator, then the coordinator's timers.
    func tick() {
        receiveHeld()
        let t = now
        if var p = pilot {
            let cycle = p.cycle(
                now: t, airspace: core.airspace(now: t), ownNode: nodeID, uavNumber: core.uavNumber,
                tiebreak: nodeID.low)
            pilot = p
            vehicleEvents(cycle.events, now: t)
            if let state = cycle.telemetry {
                coordinate(now: t) { $0.onLocalVehicleState(state, now: t) }
                recordTelemetry(nodeID, state: state, uavNumber: core.uavNumber)
            }
            if let prediction = cycle.prediction {
                coordinate(now: t) { $0.onLocalPrediction(prediction, publishNow: cycle.replanned, now: t) }
            }
            // A new avoidance plan is also told to the stations (their event logs and dashboards show it).
            if cycle.replanned, p.avoidance != nil {
                let summary = p.decision.description
                coordinate(now: t) { $0.onLocalAvoidanceDecision(summary, now: t) }
            }
        }
        apply(node.onCoordinatorTick(now: t), now: t)
        watchFleet()
        recordPredictions(now: t)
        closeManualSessions()
        followLostPeers(now: t)
        resolveFoundRecords(now: t)
        noteUnreadDatagrams(now: t)
    }

    func vehicleEvents(_ events: [VehicleEvent], now t: MeshInstant) {
        for e in events {
            switch e {
            case .send(let bytes):
                autopilotLink?.send(bytes)
            case .log(let level, let line):
                logger.log(level: Logger.Level(rawValue: level.rawValue) ?? .info, "\(line)")
            case .verdict(let id, let verdict, let label):
                switch verdict {
                case .accepted:
                    metrics.vehicleCommand("accepted")
                    event(.info, "command", "command \(id) \(label) accepted")
                case .rejected(let reason):
                    metrics.vehicleCommand("rejected")
                    event(.notice, "command", "command \(id) \(label) rejected: \(reason)")
                }
                coordinate(now: t) { $0.onVehicleVerdict(id, verdict, now: t) }
            case .flyingChanged(let flying):
                logger.info("vehicle \(flying ? "airborne" : "on the ground")")
                coordinate(now: t) { $0.onFlyingChanged(flying, now: t) }
            case .completed(let id):
                metrics.vehicleCommand("completed")
                event(.info, "command", "command \(id) completed")
                coordinate(now: t) { $0.onVehicleCompletion(id, .completed, now: t) }
            case .failed(let id, let reason):
                metrics.vehicleCommand("failed")
                event(.notice, "command", "command \(id) failed: \(reason)")
                coordinate(now: t) { $0.onVehicleCompletion(id, .failed(reason), now: t) }
            }
        }
    }

    // MARK: - The coordinator's directives

    /// Calls the coordinator through the node core and carries out every effect.
    func coordinate(now t: MeshInstant, _ body: (inout CoordinatorCore) -> [Directive]) {
        apply(node.withCoordinator(now: t, body), now: t)
    }

    /// Carries out one of the coordinator's directives (its sends the node core has already put on the mesh).
    func perform(_ d: Directive, now t: MeshInstant) {
        do {
            switch d {
            case .send:
                break
            case .persistUAVNumber(let n):
                persist(n)
            case .uavNumberChanged(let from, let to, let reason):
                event(
                    .notice, "number",
                    "UAV number \(from.map(String.init) ?? "none") → \(to.map(String.init) ?? "none") (\(Self.describe(reason)))"
                )
                if recordPublished { refreshTXT() }
                withPilot(now: t) { $0.setUAVNumber(to) }
            case .numberAnnounced(let node, let number, let previous):
                event(
                    .info, "number",
                    "\(core.advertisement(of: node)?.name ?? node.short) (\(node)) announces UAV number \(number.map(String.init) ?? "none") (was \(previous.map(String.init) ?? "none"))",
                    about: node)
            case .numberConflict(let conflict):
                switch conflict {
                case .pinnedClash(let number, let nodes):
                    event(
                        .error, "number",
                        "UAV number conflict: \(nodes.count) reachable drones are pinned to \(number) (\(nodes.map(\.short).joined(separator: ", "))); commands to it are refused until the configuration is fixed"
                    )
                case .exhausted:
                    event(
                        .error, "number",
                        "UAV number conflict: all 250 numbers are taken among reachable drones; this drone stays unnumbered"
                    )
                }
            case .applyTarget(let target, let from):
                logger.debug(
                    "target \(target.location.latitude), \(target.location.longitude), \(target.location.altitude) m from \(from)"
                )
                withPilot(now: t) { $0.applyTarget(target.location, now: t) }
            case .executeCommand(let id, let command):
                guard pilot != nil else {
                    coordinate(now: t) { $0.onVehicleVerdict(id, .rejected("this node has no vehicle"), now: t) }
                    return
                }
                // The verdict (an autopilot's may come later) leaves before any completion the vehicle reports at once.
                withPilot(now: t) { $0.execute(id, command, now: t) }
            case .scheduleStart(let id, let start):
                armStart(id, at: start)
            case .applyManualControl(let sample, _):
                manualStats.record(sentAtMicros: sample.sentAtMicros, wallSeconds: Date().timeIntervalSince1970)
                withPilot(now: t) { $0.applyManualControl(sample, now: t) }
            case .commandAnswer(let id, let answer):
                metrics.commandAnswered(answer)
                let starts = commandStartsAtMs[id].map { ms in
                    " (starts at \(Self.clockTime(ms)))"
                }
                event(
                    .info, "command",
                    "command \(id): \(Self.describe(answer))\(answer == .accepted ? starts ?? "" : "")",
                    uavNumber: commandTargets[id].map(Int.init))
                recordCommandAnswer(id, answer)
                if answer != .accepted { commandTargets[id] = nil }
                forwardToGroundControl(id, answer)
                if answers[id] != nil {
                    let after = commandSentAt[id].map { Int((t - $0).wholeNanoseconds / 1_000_000) } ?? 0
                    answers[id]!.append(Self.report(answer, afterMs: after))
                    if Self.isFinal(answer) { endWait(id) }
                }
            case .leaseChanged(let holder, let holderName):
                event(
                    .info, "lease", "control lease \(holder == nil ? "free" : "held by \(holderName ?? holder!.short)")"
                )
            case .controlLost(let number, let to):
                event(.notice, "lease", "lost control of UAV \(number)\(to.isEmpty ? " (lease lapsed)" : " to \(to)")")
            case .failsafe(let action):
                metrics.failsafe(action)
                event(.warning, "failsafe", "failsafe: no station heard; \(action)")
                withPilot(now: t) { $0.failsafe(action, now: t) }
            case .avoidanceReported(let report, let from):
                event(
                    .info, "avoidance",
                    "\(displayName(from)) avoids: \(report.summary)",
                    about: from)
            case .failsafeReported(let report, let from):
                metrics.failsafeReported()
                let steps = report.steps.map { "\($0.action) after \($0.afterSilenceMilliseconds) ms" }.joined(
                    separator: ", ")
                event(
                    .notice, "failsafe",
                    "UAV \(report.uavNumber) (\(from)) was without a station for \(report.silenceMilliseconds) ms: \(steps.isEmpty ? "no action" : steps)"
                )
            case .mapOriginChanged(let origin, let by):
                switch Self.mapOrigin(origin) {
                case .success(let map):
                    event(
                        .info, "origin", "map origin \(Self.describe(origin, zone: map.zone)) from \(displayName(by))")
                case .failure(let error):
                    logger.warning(
                        "map origin \(Self.describe(origin, zone: nil)) from \(displayName(by)) cannot be placed on the UTM map: \(error)"
                    )
                }
            case .mapOriginConflict(let kept, let keptBy, let ignored, let ignoredBy):
                logger.warning(
                    "map origin conflict: \(displayName(ignoredBy)) announces \(Self.describe(ignored, zone: nil)) (epoch \(ignored.epoch)), \(displayName(keptBy)) announces \(Self.describe(kept, zone: nil)) (epoch \(kept.epoch)); every node uses \(displayName(keptBy))'s (newer epoch, ties to the lower node id)"
                )
            case .geofenceChanged(let announcement):
                adoptGeofence(announcement, now: t)
            case .telemetryArrived(let node):
                pushVehicle(node, now: t)
                recordFleetTelemetry(node, now: t)
            case .floodRepeated:
                break  // the node core's (its held forwards)
            }
        }
    }

    /// Runs `body` on the drone's pilot (if any) and handles the vehicle events it returns.
    func withPilot(now t: MeshInstant, _ body: (inout VehiclePilot) -> [VehicleEvent]) {
        guard var p = pilot else { return }
        let events = body(&p)
        pilot = p
        vehicleEvents(events, now: t)
    }
}
