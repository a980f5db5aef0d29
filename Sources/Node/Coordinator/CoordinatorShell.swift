import Avoidance
import ControlProtocol
import Coordinator
import Foundation
import Geodesy
import Logging
import MeshTypes
import Vehicles

/// What the coordinator shell hands to the mesh node and discovery, in the order the core produced it.
enum CoordinatorOutput: Sendable {
    /// A coordinator message for a neighbour.
    case send(type: UInt16, payload: [UInt8], to: NodeID, reliable: Bool)
    /// This drone's UAV number changed: update the node (hellos, status) and, once the record is published, the
    /// DNS-SD TXT record.
    case uavNumber(UInt8?, updateTXT: Bool)
    /// The DNS-SD record is published: bring its TXT record up to date with the node's advertisement.
    case refreshTXT
}

/// The actor shell around `CoordinatorCore`: fed the mesh node's events and a 50 ms tick, it carries out the core's
/// directives (sends through the node, the persisted UAV number, the drone's simulated vehicle, logs) and answers
/// the control socket's fleet commands. It never awaits while handling an input, so directives run in order; sends
/// leave through `output`, which one task drains into the node.
public actor CoordinatorShell {
    /// The tick period (the core wants 50–100 ms; the vehicle is stepped at the same rate, 20 Hz).
    public static let tickInterval: Duration = .milliseconds(50)
    /// The file in the state directory holding the drone's UAV number.
    public static let numberFile = "uav-number"

    var core: CoordinatorCore
    /// A drone's vehicle (the simulator or an autopilot) with collision avoidance above it.
    var pilot: VehiclePilot?
    /// Drones with `vehicle = "mavlink:…"`: the link to the autopilot (`AutopilotLinkService` runs it).
    public nonisolated let autopilotLink: AutopilotLink?
    /// Commands from the ground-control endpoint, with the endpoint's ticket: their answers go to `groundControlAnswers`.
    var groundControlTickets: [CommandID: UInt64] = [:]
    nonisolated let groundControlAnswers = GroundControlAnswers()
    let name: String
    private let stateDirectory: String
    var logger: Logger
    let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var neighbours: Set<NodeID> = []
    /// Whether the DNS-SD record has been published. Until then a TXT change is held back: changing a record Avahi is
    /// still probing makes it collide with its own earlier probe and take another name.
    private var recordPublished = false
    private var malformedLoggedAt: [NodeID: MeshInstant] = [:]
    private var nextPredictionAt = MeshInstant(nanoseconds: 0)
    /// How often the vehicle's prediction goes to the core (`[coordinator] prediction_hz`).
    private let predictionInterval: Duration
    /// Target updates received from target sources and flooded.
    var targetsFromSources = 0
    /// Drones: the manual-control samples obeyed.
    var manualStats = ManualControlStats()
    /// `[avoidance]` while avoidance waits for the vehicle's local frame (an autopilot's first position).
    var avoidanceSettings: AvoidanceSettings?
    /// Answers to commands a control request is waiting for.
    var answers: [CommandID: [CommandReport.Answer]] = [:]
    var commandSentAt: [CommandID: MeshInstant] = [:]
    /// `send` calls waiting for a command's final answer (completed, failed or rejected).
    var finalAnswerWaiters: [CommandID: CheckedContinuation<Void, Never>] = [:]
    /// Commands whose wait ended (final answer or timeout): a waiter arriving late returns at once.
    var finishedWaits: Set<CommandID> = []
    private let outputContinuation: AsyncStream<CoordinatorOutput>.Continuation
    nonisolated let output: AsyncStream<CoordinatorOutput>

    /// The UAV number the core starts with (pinned, else persisted), for the node's first advertisement.
    public nonisolated let initialUAVNumber: UInt8?

    /// Starts the core: reads `uav-number` from the state directory (a bad file is logged and ignored), and for a
    /// drone builds the simulated vehicle at its home plus a per-node offset.
    public init(configuration: NodeConfiguration, nodeID: NodeID, incarnation: Incarnation, logger: Logger) throws {
        self.name = configuration.name
        self.stateDirectory = configuration.stateDirectory
        self.logger = logger
        self.started = clock.now
        var persisted: UInt8?
        if configuration.role == .drone {
            switch Self.readNumber(directory: configuration.stateDirectory) {
            case .success(let n): persisted = n
            case .failure(let problem): logger.warning("\(problem); a new number will be claimed")
            }
        }
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
        predictionInterval = configuration.coordinator.predictionInterval
        core = CoordinatorCore(
            configuration: coreConfiguration, incarnation: incarnation, persistedUAVNumber: persisted,
            now: MeshInstant(nanoseconds: 0))
        initialUAVNumber = core.uavNumber
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
                    linkName: "\(endpoint)", autopilotSystemID: configuration.autopilotSystemID.map { UInt8($0) },
                    predictsFromPlan: configuration.avoidance.enabled)
                _ = autopilot.setUAVNumber(core.uavNumber)
                vehicle = autopilot
            }
            var avoidance: AvoidanceCore?
            if configuration.avoidance.enabled, let frame = vehicle.frame {
                avoidance = AvoidanceCore(
                    configuration: try Self.avoidanceConfiguration(configuration.avoidance, origin: frame))
            }
            if configuration.avoidance.enabled && avoidance == nil { avoidanceSettings = configuration.avoidance }
            pilot = VehiclePilot(vehicle: vehicle, avoidance: avoidance)
        }
        autopilotLink = link
        (output, outputContinuation) = AsyncStream.makeStream(of: CoordinatorOutput.self)
    }

    var now: MeshInstant {
        MeshInstant(nanoseconds: UInt64(max(0, (clock.now - started).wholeNanoseconds)))
    }

    private func seconds(_ t: MeshInstant) -> Double { Double(t.nanoseconds) / 1e9 }

    // MARK: - Persisted number

    /// Reads `<directory>/uav-number`: nil if there is none, an error text naming the file if it is unreadable.
    static func readNumber(directory: String) -> Result<UInt8?, NumberFileError> {
        let path = directory + "/" + numberFile
        guard FileManager.default.fileExists(atPath: path) else { return .success(nil) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            return .failure(NumberFileError(description: "\(path): cannot read the persisted UAV number"))
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let n = Int(trimmed), (1...250).contains(n) else {
            return .failure(
                NumberFileError(description: "\(path): expected a UAV number 1–250, found \"\(trimmed.prefix(20))\""))
        }
        return .success(UInt8(n))
    }

    struct NumberFileError: Error, CustomStringConvertible { let description: String }

    private func persist(_ number: UInt8) {
        let path = stateDirectory + "/" + Self.numberFile
        do {
            try "\(number)\n".write(toFile: path, atomically: true, encoding: .utf8)
            logger.debug("UAV number \(number) saved to \(path)")
        } catch {
            logger.error("cannot save UAV number \(number) to \(path): \(NodeConfiguration.reason(error))")
        }
    }

    // MARK: - Inputs

    /// One event from the mesh node.
    func handle(_ event: MeshEvent) {
        let t = now
        switch event {
        case .peerState(let peer, _, let state, _):
            switch state {
            case .established, .suspect:
                if neighbours.insert(peer).inserted { perform(core.onNeighbourUp(peer, now: t), now: t) }
            case .lost, .left:
                if neighbours.remove(peer) != nil { perform(core.onNeighbourDown(peer, now: t), now: t) }
            case .discovered, .handshaking:
                break
            }
        case .message(let type, let payload, let from, _, _):
            guard type >= 256 else {
                logger.debug("ignoring reserved node-layer message type \(type) from \(from)")
                return
            }
            let message: CoordinatorMessage
            do {
                message = try CoordinatorMessage(type: type, payload: payload)
            } catch {
                // One line per peer per 5 s: a misbehaving peer must not flood the log.
                if malformedLoggedAt[from].map({ t - $0 >= .seconds(5) }) ?? true {
                    malformedLoggedAt[from] = t
                    logger.warning(
                        "dropped malformed coordinator message type 0x\(String(type, radix: 16, uppercase: true)) (\(payload.count) bytes) from \(from): \(error)"
                    )
                }
                return
            }
            perform(core.onMessage(message, from: from, now: t), now: t)
        case .published:
            recordPublished = true
            outputContinuation.yield(.refreshTXT)
        case .rejected:
            break
        }
    }

    /// The 50 ms tick: steps the vehicle to now, feeds its state (and every 200 ms its prediction), then ticks the core.
    func tick() {
        let t = now
        if var p = pilot {
            var events = p.advance(to: t)
            // Collision avoidance: one decision per tick from the airspace picture; a changed plan is published at once.
            startAvoidanceIfReady(&p)
            var replanned = false
            if p.avoidance != nil, let frame = p.frame {
                let (changed, more) = p.avoid(
                    tracks: airspaceTracks(in: frame, now: t), uavNumber: core.uavNumber.map(Int.init) ?? 251,
                    tiebreak: core.nodeID.low, now: t)
                events += more
                replanned = changed
                if replanned { logger.info("avoidance: \(p.decision)") }
            }
            let state = p.telemetry
            let prediction = t >= nextPredictionAt || replanned ? p.prediction(now: t) : nil
            pilot = p
            vehicleEvents(events, now: t)
            if let state { perform(core.onLocalVehicleState(state, now: t), now: t) }
            if let prediction {
                nextPredictionAt = t + predictionInterval
                perform(core.onLocalPrediction(prediction, publishNow: replanned, now: t), now: t)
            }
        }
        perform(core.onTick(now: t), now: t)
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
                case .accepted: logger.info("command \(id) \(label) accepted")
                case .rejected(let reason): logger.notice("command \(id) \(label) rejected: \(reason)")
                }
                perform(core.onVehicleVerdict(id, verdict, now: t), now: t)
            case .flyingChanged(let flying):
                logger.info("vehicle \(flying ? "airborne" : "on the ground")")
                perform(core.onFlyingChanged(flying, now: t), now: t)
            case .completed(let id):
                logger.info("command \(id) completed")
                perform(core.onVehicleCompletion(id, .completed, now: t), now: t)
            case .failed(let id, let reason):
                logger.notice("command \(id) failed: \(reason)")
                perform(core.onVehicleCompletion(id, .failed(reason), now: t), now: t)
            }
        }
    }

    // MARK: - Directives

    func perform(_ directives: [Directive], now t: MeshInstant) {
        var queue = directives[...]
        while let d = queue.popFirst() {
            switch d {
            case .send(let message, let to, let reliability):
                let (type, payload) = message.encode()
                outputContinuation.yield(
                    .send(type: type, payload: payload, to: to, reliable: reliability == .reliable))
            case .persistUAVNumber(let n):
                persist(n)
            case .uavNumberChanged(let from, let to, let reason):
                logger.notice(
                    "UAV number \(from.map(String.init) ?? "none") → \(to.map(String.init) ?? "none") (\(Self.describe(reason)))"
                )
                outputContinuation.yield(.uavNumber(to, updateTXT: recordPublished))
                withPilot(now: t) { $0.setUAVNumber(to) }
            case .numberAnnounced(let node, let number, let previous):
                logger.info(
                    "\(core.advertisement(of: node)?.name ?? node.short) (\(node)) announces UAV number \(number.map(String.init) ?? "none") (was \(previous.map(String.init) ?? "none"))"
                )
            case .numberConflict(let conflict):
                switch conflict {
                case .pinnedClash(let number, let nodes):
                    logger.error(
                        "UAV number conflict: \(nodes.count) reachable drones are pinned to \(number) (\(nodes.map(\.short).joined(separator: ", "))); commands to it are refused until the configuration is fixed"
                    )
                case .exhausted:
                    logger.error(
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
                    queue.append(contentsOf: core.onVehicleVerdict(id, .rejected("this node has no vehicle"), now: t))
                    continue
                }
                // The verdict (an autopilot's may come later) leaves before any completion the vehicle reports at once.
                withPilot(now: t) { $0.execute(id, command, now: t) }
            case .applyManualControl(let sample, _):
                manualStats.record(sentAtMicros: sample.sentAtMicros, wallSeconds: Date().timeIntervalSince1970)
                withPilot(now: t) { $0.applyManualControl(sample, now: t) }
            case .commandAnswer(let id, let answer):
                logger.info("command \(id): \(Self.describe(answer))")
                forwardToGroundControl(id, answer)
                if answers[id] != nil {
                    let after = commandSentAt[id].map { Int((t - $0).wholeNanoseconds / 1_000_000) } ?? 0
                    answers[id]!.append(Self.report(answer, afterMs: after))
                    if Self.isFinal(answer) { endWait(id) }
                }
            case .leaseChanged(let holder, let holderName):
                logger.info("control lease \(holder == nil ? "free" : "held by \(holderName ?? holder!.short)")")
            case .controlLost(let number, let to):
                logger.notice("lost control of UAV \(number)\(to.isEmpty ? " (lease lapsed)" : " to \(to)")")
            case .failsafe(let action):
                logger.warning("failsafe: no station heard; \(action)")
                withPilot(now: t) { $0.failsafe(action, now: t) }
            case .failsafeReported(let report, let from):
                let steps = report.steps.map { "\($0.action) after \($0.afterSilenceMilliseconds) ms" }.joined(
                    separator: ", ")
                logger.notice(
                    "UAV \(report.uavNumber) (\(from)) was without a station for \(report.silenceMilliseconds) ms: \(steps.isEmpty ? "no action" : steps)"
                )
            case .mapOriginChanged(let origin, let by):
                switch Self.mapOrigin(origin) {
                case .success(let map):
                    logger.info("map origin \(Self.describe(origin, zone: map.zone)) from \(displayName(by))")
                case .failure(let error):
                    logger.warning(
                        "map origin \(Self.describe(origin, zone: nil)) from \(displayName(by)) cannot be placed on the UTM map: \(error)"
                    )
                }
            case .mapOriginConflict(let kept, let keptBy, let ignored, let ignoredBy):
                logger.warning(
                    "map origin conflict: \(displayName(ignoredBy)) announces \(Self.describe(ignored, zone: nil)) (epoch \(ignored.epoch)), \(displayName(keptBy)) announces \(Self.describe(kept, zone: nil)) (epoch \(kept.epoch)); every node uses \(displayName(keptBy))'s (newer epoch, ties to the lower node id)"
                )
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

    /// An autopilot's local frame is known from its first position: avoidance starts then, with `[avoidance]`'s
    /// geofence placed on it.
    func startAvoidanceIfReady(_ p: inout VehiclePilot) {
        guard let settings = avoidanceSettings, p.avoidance == nil, let frame = p.frame else { return }
        avoidanceSettings = nil
        do {
            p.enableAvoidance(AvoidanceCore(configuration: try Self.avoidanceConfiguration(settings, origin: frame)))
        } catch {
            logger.error("collision avoidance stays off: \(error)")
        }
    }
}
