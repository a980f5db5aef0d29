import Coordinator
import Determinism
import MeshTypes

/// Many coordinator cores in one process on a virtual clock and a virtual neighbour layer, driven by one seed.
///
/// Per link, "reliable" sends arrive in order exactly once while the link stays up (in-flight ones are lost when it
/// goes down); "unreliable" sends may be lost, duplicated and reordered. Sessions come up `sessionSetupDelay` after a
/// link becomes usable and are reported lost `detectionDelay` after it breaks. Invariants are checked as events
/// happen (`violations`) and on demand once the world has settled (`settledViolations()`).
public final class MeshSimulation {
    /// The seed everything was drawn from (print it to replay with `MESHSIM_SEED`).
    public let seed: UInt64
    /// The virtual clock.
    public private(set) var now = MeshInstant(nanoseconds: 0)
    /// The node specifications, by index.
    public let specs: [SimNodeSpec]
    /// Each node's identity, by index.
    public let ids: [NodeID]
    /// Broken invariants seen so far, each with its time.
    public internal(set) var violations: [String] = []
    /// Answers each command got at its origin, in order.
    public internal(set) var answers: [CommandID: [CommandAnswer]] = [:]
    /// When each answer arrived at the command's origin (parallel to `answers`).
    public internal(set) var answerTimes: [CommandID: [MeshInstant]] = [:]
    /// When each command was sent.
    public internal(set) var sentAt: [CommandID: MeshInstant] = [:]
    /// Non-send directives, if `recordsDirectives`.
    public internal(set) var log: [LoggedDirective] = []
    /// Link-state advertisements sent, per directed neighbour pair [from, to] (the flooding cost).
    public internal(set) var linkStateSends: [[Int]: Int] = [:]
    /// Whether to keep `log` (off for large worlds).
    public var recordsDirectives = true
    /// Messages delivered to cores so far.
    public private(set) var deliveredMessages = 0
    /// The network's behaviour (may be changed between runs).
    public var network: NetworkProfile

    var rng: SeededRandom
    let tickInterval: Duration
    let configure: @Sendable (inout CoordinatorConfiguration) -> Void
    var cores: [CoordinatorCore?]
    var generations: [Int]
    var persisted: [UInt8?]
    var vehicles: [SimVehicle]
    var links: [SimLink] = []
    var linksOf: [[Int]]
    var indexOf: [NodeID: Int] = [:]
    var queue = EventQueue<SimEvent>()

    /// Builds a world: `links` are index pairs; all links start up and all nodes alive at time zero.
    public init(
        seed: UInt64, nodes: [SimNodeSpec], links linkPairs: [(Int, Int)], network: NetworkProfile = NetworkProfile(),
        tickInterval: Duration = .milliseconds(100),
        configure: @escaping @Sendable (inout CoordinatorConfiguration) -> Void = { _ in }
    ) {
        self.seed = seed
        self.specs = nodes
        self.network = network
        self.tickInterval = tickInterval
        self.configure = configure
        var rng = SeededRandom(seed: seed)
        var ids: [NodeID] = []
        for _ in nodes { ids.append(NodeID(high: rng.next(), low: rng.next())) }
        self.ids = ids
        self.rng = rng
        self.cores = Array(repeating: nil, count: nodes.count)
        self.generations = Array(repeating: 0, count: nodes.count)
        self.persisted = nodes.map(\.persistedUAVNumber)
        self.vehicles = nodes.map {
            var v = SimVehicle()
            v.flying = $0.startsFlying
            return v
        }
        self.linksOf = Array(repeating: [], count: nodes.count)
        for (i, id) in ids.enumerated() { indexOf[id] = i }
        for (a, b) in linkPairs where a != b && !links.contains(where: { $0.connects(a, b) }) {
            linksOf[a].append(links.count)
            linksOf[b].append(links.count)
            links.append(SimLink(a: min(a, b), b: max(a, b)))
        }
        for i in nodes.indices { start(i) }
    }

    // MARK: Running

    /// Runs the world for `duration` of virtual time.
    public func run(for duration: Duration) { run(until: now + duration) }

    /// Runs the world until `deadline`.
    public func run(until deadline: MeshInstant) {
        while let t = queue.nextTime, t <= deadline.nanoseconds {
            let (time, event) = queue.pop()!
            now = MeshInstant(nanoseconds: time)
            handle(event)
        }
        now = max(now, deadline)
    }

    func schedule(_ event: SimEvent, after d: Duration) {
        queue.push(event, at: (now + d).nanoseconds)
    }

    func jitter(_ max: Duration) -> Duration {
        let ns = Double(max.components.seconds) * 1e9 + Double(max.components.attoseconds) / 1e9
        return .nanoseconds(Int64(rng.unit() * ns))
    }

    func handle(_ event: SimEvent) {
        switch event {
        case .tick(let i, let gen):
            guard generations[i] == gen, cores[i] != nil else { return }
            if specs[i].publishesTelemetry { feedVehicleState(i) }
            apply(i) { $0.onTick(now: now) }
            schedule(.tick(i, gen), after: tickInterval)
        case .deliver(let to, let from, let link, let epoch, let message):
            guard links[link].epoch == epoch, links[link].usable, cores[to] != nil else { return }
            let decoded: CoordinatorMessage
            switch message {
            case .value(let m): decoded = m
            case .bytes(let type, let payload):
                do { decoded = try CoordinatorMessage(type: type, payload: payload) } catch {
                    violate("node \(to) could not decode a message from \(from): \(error)")
                    return
                }
            }
            deliveredMessages += 1
            apply(to) { $0.onMessage(decoded, from: ids[from], now: now) }
        case .sessionUp(let i, let link, let epoch):
            guard links[link].epoch == epoch, links[link].usable, cores[i] != nil else { return }
            let peer = links[link].other(i)
            if links[link].reported(i) {
                apply(i) { $0.onNeighbourDown(ids[peer], now: now) }
            }
            links[link].setReported(i, true)
            apply(i) { $0.onNeighbourUp(ids[peer], now: now) }
        case .sessionDown(let i, let link, let epoch):
            guard links[link].epoch == epoch, cores[i] != nil, links[link].reported(i) else { return }
            links[link].setReported(i, false)
            apply(i) { $0.onNeighbourDown(ids[links[link].other(i)], now: now) }
        case .vehicleVerdict(let i, let gen, let id, let verdict):
            guard generations[i] == gen, cores[i] != nil else { return }
            apply(i) { $0.onVehicleVerdict(id, verdict, now: now) }
            if case .accepted = verdict, case .takeoff = pendingCommands[id] { setFlying(i, true) }
        case .vehicleCompletion(let i, let gen, let id, let completion):
            if case .land = pendingCommands[id] { setFlying(i, false) }
            if case .returnToLaunch = pendingCommands[id] { setFlying(i, false) }
            pendingCommands[id] = nil
            guard generations[i] == gen, cores[i] != nil else { return }
            apply(i) { $0.onVehicleCompletion(id, completion, now: now) }
        }
    }

    var pendingCommands: [CommandID: Command] = [:]
    var takeover: [CommandID: Bool] = [:]
    var manualTakeoverUsers: Set<NodeID> = []

    /// A drone whose lease another station held may only act for a new station that asked to take over.
    func checkLeaseRespected(_ i: Int, _ holder: NodeID, _ directives: [Directive]) {
        for d in directives {
            switch d {
            case .executeCommand(let id, _) where id.origin != holder && takeover[id] != true:
                violate("drone \(i) executes \(id) without takeover while \(holder.short) held its lease")
            case .applyManualControl(_, let from) where from != holder && !manualTakeoverUsers.contains(from):
                violate("drone \(i) applies manual control from \(from.short) while \(holder.short) held its lease")
            default: break
            }
        }
    }

    /// Runs an event function on node `i`'s core and carries out its directives.
    func apply(_ i: Int, _ body: (inout CoordinatorCore) -> [Directive]) {
        guard cores[i] != nil else { return }
        let holderBefore = cores[i]!.leaseHolder
        let directives = body(&cores[i]!)
        if let holderBefore { checkLeaseRespected(i, holderBefore, directives) }
        for d in directives { carryOut(d, at: i) }
    }

    func violate(_ what: String) {
        let ms = now.nanoseconds / 1_000_000
        violations.append("t=\(ms / 1000).\(String(1000 + ms % 1000).dropFirst())s seed=\(seed): \(what)")
    }

    // MARK: Node lifecycle

    func start(_ i: Int) {
        var config = CoordinatorConfiguration(
            nodeID: ids[i], role: specs[i].role, name: specs[i].name,
            pinnedUAVNumber: specs[i].pinnedUAVNumber)
        configure(&config)
        generations[i] += 1
        var core = CoordinatorCore(
            configuration: config, incarnation: rng.next(), persistedUAVNumber: persisted[i], now: now)
        if vehicles[i].flying { _ = core.onFlyingChanged(true, now: now) }
        cores[i] = core
        schedule(.tick(i, generations[i]), after: jitter(tickInterval))
        for l in linksOf[i] { updateLink(l) }
    }

    /// Whether node `i` is running.
    public func isAlive(_ i: Int) -> Bool { cores[i] != nil }

    /// Kills node `i`'s coordinator (its vehicle keeps flying); neighbours notice after `detectionDelay`.
    public func crash(_ i: Int) {
        guard cores[i] != nil else { return }
        cores[i] = nil
        generations[i] += 1
        for l in linksOf[i] {
            links[l].setReported(i, false)
            updateLink(l)
        }
    }

    /// Starts node `i` again with a new incarnation and its persisted UAV number.
    public func restart(_ i: Int) {
        guard cores[i] == nil else { return }
        start(i)
    }

    // MARK: Inspection

    /// Node `i`'s core, nil while crashed.
    public func core(_ i: Int) -> CoordinatorCore? { cores[i] }

    /// Node `i`'s vehicle.
    public func vehicle(_ i: Int) -> SimVehicle { vehicles[i] }

    /// The UAV number node `i` persisted last.
    public func persistedNumber(_ i: Int) -> UInt8? { persisted[i] }

    /// Logged directives of node `i` matching `filter`.
    public func logged(_ i: Int, where filter: (Directive) -> Bool = { _ in true }) -> [Directive] {
        log.filter { $0.node == i && filter($0.directive) }.map(\.directive)
    }

    // MARK: Driving

    /// Node `i` sends a command; returns its id (answers accumulate in `answers`).
    @discardableResult
    public func sendCommand(from i: Int, _ command: Command, toUAV number: UInt8, takeover: Bool = false) -> CommandID?
    {
        guard var core = cores[i] else { return nil }
        let (id, directives) = core.sendCommand(command, toUAV: number, takeover: takeover, now: now)
        cores[i] = core
        answers[id] = answers[id] ?? []
        sentAt[id] = now
        self.takeover[id] = takeover
        for d in directives { carryOut(d, at: i) }
        return id
    }

    /// Node `i` sends a manual-control sample.
    public func sendManualControl(from i: Int, _ control: ManualControl, toUAV number: UInt8, takeover: Bool = false) {
        if takeover { manualTakeoverUsers.insert(ids[i]) }
        apply(i) { $0.sendManualControl(control, toUAV: number, takeover: takeover, now: now) }
    }

    /// Node `i` sends a target.
    public func sendTarget(from i: Int, _ target: Target) {
        apply(i) { $0.sendTarget(target, now: now) }
    }

    /// Sets whether drone `i`'s vehicle is flying and tells its core.
    public func setFlying(_ i: Int, _ flying: Bool) {
        vehicles[i].flying = flying
        apply(i) { $0.onFlyingChanged(flying, now: now) }
    }

    func feedVehicleState(_ i: Int) {
        let v = vehicles[i]
        let state = VehicleState(
            position: GeoPoint(latitude: 47.0 + Double(i) * 1e-4, longitude: 8.0, altitude: v.flying ? 20 : 0),
            batteryPercent: v.batteryPercent, activity: v.flying ? .hovering : .landed, armed: v.flying)
        let prediction = TrajectoryPrediction(
            points: (0..<40).map { k in
                GeoPoint(
                    latitude: 47.0 + Double(i) * 1e-4 + Double(k) * 1e-6, longitude: 8.0, altitude: v.flying ? 20 : 0)
            })
        apply(i) { core in
            _ = core.onLocalVehicleState(state, now: now)
            return core.onLocalPrediction(prediction, now: now)
        }
    }
}

/// A scheduled happening.
enum SimEvent {
    case tick(Int, Int)
    case deliver(to: Int, from: Int, link: Int, epoch: Int, WireForm)
    case sessionUp(Int, link: Int, epoch: Int)
    case sessionDown(Int, link: Int, epoch: Int)
    case vehicleVerdict(Int, generation: Int, CommandID, VehicleVerdict)
    case vehicleCompletion(Int, generation: Int, CommandID, VehicleCompletion)
}

/// A message in flight: as a value, or encoded as the transport would carry it.
enum WireForm {
    case value(CoordinatorMessage)
    case bytes(UInt16, [UInt8])
}
