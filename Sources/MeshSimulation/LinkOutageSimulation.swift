import Coordinator
import Determinism
import Membership
import MeshCore
import MeshTypes
import NodeCore
import SecureTransport

/// A deterministic simulation of whole nodes (`NodeCore`: sessions, membership, reliable channels and the
/// coordinator, with a vehicle stand-in on each drone) of a station and a few drones on a virtual clock and network,
/// with link outages of every length — both directions or one only, from a fraction of a second to longer than the
/// forget interval and the session lifetime (so sessions are rekeyed) — drawn from a seed. During a long outage the
/// side that stops hearing may lose the other's DNS-SD record, and resolves it again after the heal.
///
/// After every heal it measures how long each pair takes to be back in session on both sides and to carry a reliable
/// message each way, and how long until the station's commands to every drone are answered `completed` again; it
/// records a failure if either exceeds the bound, or if a drone's UAV number changed or two drones share one.
/// `MESHSIM_OUTAGE_SEED=n` replays one seed.
public struct LinkOutageSimulation {
    private enum Event {
        case datagram(to: Int, from: Int, bytes: [UInt8])
        case tick
        /// The drone's vehicle stand-in answers a command: accepted at once, completed 100 ms later.
        case vehicle(node: Int, CommandID, completed: Bool)
        /// DNS-SD at `node` drops `peer`'s record (a host cut off from the link loses its records at the others).
        case withdrawn(node: Int, peer: Int)
        /// DNS-SD at `node` resolves `peer`'s record again.
        case advertised(node: Int, peer: Int)
    }

    let spec: Spec
    private var rng: SeededRandom
    private var cores: [NodeCore<Int>] = []
    private var ids: [NodeID] = []
    private var queue = EventQueue<Event>()
    private var now = MeshInstant(nanoseconds: 0)
    /// Blocked directed links: from → to.
    private var blocked: [Int: [Int: Bool]] = [:]
    /// Per node: the reliable probe messages it received, by sender.
    private var received: [[Int: Set<UInt32>]] = []
    private var states: [[NodeID: PeerState]] = []
    /// Commands the station sent, and the ones answered `completed`.
    private var completed: Set<CommandID> = []
    private var commandTarget: [CommandID: Int] = [:]
    /// Coordinator messages a node could not decode: each one fails the seed.
    private var malformed: [String] = []
    private var rekeys = 0
    /// A node-layer message type of this simulation's own (below 256: not the coordinator's).
    private static let probeType: UInt16 = 0xF1

    public init(spec: Spec) {
        self.spec = spec
        self.rng = SeededRandom(seed: spec.seed)
    }

    /// Runs the spec and returns every recovery and every failure.
    public static func run(_ spec: Spec) -> Result {
        var sim = LinkOutageSimulation(spec: spec)
        return sim.run()
    }

    private mutating func run() -> Result {
        var result = Result()
        let key = try! MeshKey(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let membership = MembershipConfiguration(forgetAfter: spec.forgetAfter)
        for i in 0..<spec.nodes {
            let id = NodeID(high: UInt64(i + 1) << 32, low: rng.next())
            let incarnation: Incarnation = rng.next()
            let role: NodeRole = i == 0 ? .station : .drone
            ids.append(id)
            let mesh = MeshCore<Int>(
                key: key, localID: id, incarnation: incarnation, role: role, name: "n\(i)", uavNumber: nil,
                membership: membership, transport: spec.transport, group: spec.group,
                random: SeededRandom(seed: rng.next()))
            let coordinator = CoordinatorCore(
                configuration: CoordinatorConfiguration(nodeID: id, role: role, name: "n\(i)"),
                incarnation: incarnation, persistedUAVNumber: nil, now: now)
            cores.append(NodeCore(mesh: mesh, coordinator: coordinator))
            received.append([:])
            states.append([:])
        }
        queue.push(.tick, at: 0)
        // Every node discovers every other (DNS-SD's part), then the mesh forms.
        for i in 0..<spec.nodes {
            for j in 0..<spec.nodes where i != j {
                let out = cores[i].onDiscovered(
                    id: ids[j], incarnation: nil, name: "n\(j)", role: nil, uavNumber: nil,
                    address: j, now: now)
                carry(out, at: i)
            }
        }
        advance(to: now + spec.settle)
        for i in 0..<spec.nodes {
            for j in 0..<spec.nodes where i != j && states[i][ids[j]] != .established {
                result.failures.append("seed \(spec.seed): n\(i) not in session with n\(j) \(spec.settle) after start")
            }
        }
        // Every drone has a number of its own by now, and keeps it through every outage.
        let numbers = cores.dropFirst().map { $0.coordinator.uavNumber }
        if numbers.contains(nil) || Set(numbers).count != numbers.count {
            result.failures.append("seed \(spec.seed): UAV numbers after start \(numbers)")
        }
        var probe: UInt32 = 0
        for episode in 0..<spec.episodes {
            // 1–3 outages, overlapping, on random pairs, some one way.
            struct Outage {
                var a: Int
                var b: Int
                var oneWay: Bool
                var start: MeshInstant
                var end: MeshInstant
            }
            var outages: [Outage] = []
            let count = rng.int(in: 1...min(3, spec.nodes * (spec.nodes - 1) / 2))
            for k in 0..<count {
                let a = rng.int(in: 0...(spec.nodes - 1))
                var b = rng.int(in: 0...(spec.nodes - 2))
                if b >= a { b += 1 }
                // An episode's first outage goes through the kinds in turn (seed and episode pick where to start), so
                // every kind is flown whatever the other draws do; the others are drawn at random.
                let length = drawOutageLength(kind: k == 0 ? Int((spec.seed &+ UInt64(episode)) % 10) : nil)
                let start = now + .milliseconds(rng.int(in: 0...2000))
                let outage = Outage(a: a, b: b, oneWay: rng.chance(0.4), start: start, end: start + length)
                outages.append(outage)
                // The side that stops hearing may lose the other's DNS-SD record during a long outage (one side or
                // both), and resolves it again some time after the heal.
                for (deaf, peer) in outage.oneWay ? [(b, a)] : [(b, a), (a, b)]
                where length > .seconds(2) && rng.chance(0.5) {
                    let span = Int(length / .milliseconds(1)) - 1000
                    queue.push(
                        .withdrawn(node: deaf, peer: peer),
                        at: (start + .milliseconds(rng.int(in: 500...span))).nanoseconds)
                    queue.push(
                        .advertised(node: deaf, peer: peer),
                        at: (outage.end + .milliseconds(rng.int(in: 0...1500))).nanoseconds)
                }
            }
            // A pair may appear twice; its heal is when its last outage ends.
            let last = outages.map(\.end).max()!
            var pending = outages.sorted { $0.start < $1.start }
            var active: [Outage] = []
            while now < last {
                let nextStart = pending.first?.start
                let nextEnd = active.map(\.end).min()
                let step = [nextStart, nextEnd].compactMap { $0 }.min()!
                advance(to: step)
                if let s = pending.first, s.start <= now {
                    pending.removeFirst()
                    active.append(s)
                }
                active.removeAll { $0.end <= now }
                blocked = [:]
                for o in active {
                    blocked[o.a, default: [:]][o.b] = true
                    if !o.oneWay { blocked[o.b, default: [:]][o.a] = true }
                }
            }
            blocked = [:]
            // Everything healed at `last`: each pair that had an outage must be back within the bound.
            let healed = now
            var pairs: [(Int, Int, Outage)] = []
            for i in received.indices { received[i] = [:] }
            for o in outages {
                let p = (min(o.a, o.b), max(o.a, o.b))
                if let k = pairs.firstIndex(where: { $0.0 == p.0 && $0.1 == p.1 }) {
                    if o.end - o.start > pairs[k].2.end - pairs[k].2.start { pairs[k].2 = o }
                } else {
                    pairs.append((p.0, p.1, o))
                }
            }
            // From the heal on, each side of each pair sends a fresh reliable message every 50 ms (as the layers
            // above keep sending): messages flow once one sent after the heal has arrived each way.
            let firstTag = probe + 1
            var recoveries = pairs.map {
                Recovery(pair: ($0.0, $0.1), outage: $0.2.end - $0.2.start, oneWay: $0.2.oneWay)
            }
            // The station commands every drone of a healed pair every 100 ms until one command to it completes.
            let drones = Set(pairs.flatMap { [$0.0, $0.1] }).subtracting([0]).sorted()
            var commandedAt: [Int: Duration] = [:]
            completed = []
            commandTarget = [:]
            let deadline = healed + spec.bound * 3
            var step = 0
            while now < deadline,
                recoveries.contains(where: { $0.messagesFlowing == nil }) || commandedAt.count < drones.count
            {
                if step % 5 == 0 {
                    for (k, (a, b, _)) in pairs.enumerated() where recoveries[k].messagesFlowing == nil {
                        probe += 1
                        carry(cores[a].sendReliable(Self.probeType, bytes(probe), to: ids[b], now: now), at: a)
                        carry(cores[b].sendReliable(Self.probeType, bytes(probe), to: ids[a], now: now), at: b)
                    }
                }
                if step % 10 == 0 {
                    for d in drones where commandedAt[d] == nil {
                        guard let n = cores[d].coordinator.uavNumber else { continue }
                        let (id, effects) = cores[0].sendCommand(.hover, toUAV: n, now: now)
                        commandTarget[id] = d
                        carry(effects, at: 0)
                    }
                }
                step += 1
                advance(to: now + .milliseconds(10))
                for (k, (a, b, _)) in pairs.enumerated() {
                    if recoveries[k].inSession == nil, states[a][ids[b]] == .established,
                        states[b][ids[a]] == .established
                    {
                        recoveries[k].inSession = now - healed
                    }
                    let ab = received[b][a]?.contains { $0 >= firstTag } == true
                    let ba = received[a][b]?.contains { $0 >= firstTag } == true
                    if recoveries[k].messagesFlowing == nil, ab, ba { recoveries[k].messagesFlowing = now - healed }
                }
                for id in completed {
                    if let d = commandTarget[id], commandedAt[d] == nil { commandedAt[d] = now - healed }
                }
                for (k, (a, b, _)) in pairs.enumerated() where recoveries[k].commandsFlowing == nil {
                    let times = [a, b].filter { $0 != 0 }.map { commandedAt[$0] }
                    if !times.contains(nil) { recoveries[k].commandsFlowing = times.compactMap { $0 }.max() ?? .zero }
                }
            }
            for r in recoveries {
                let onTime =
                    (r.messagesFlowing.map { $0 <= spec.bound } ?? false)
                    && (r.inSession.map { $0 <= spec.bound } ?? false)
                    && (r.commandsFlowing.map { $0 <= spec.bound } ?? false)
                if !onTime {
                    let (a, b) = r.pair
                    let seen =
                        "n\(a) sees n\(b) \(states[a][ids[b]].map { "\($0)" } ?? "nothing"), n\(b) sees n\(a) "
                        + "\(states[b][ids[a]].map { "\($0)" } ?? "nothing")"
                    result.failures.append("seed \(spec.seed) episode \(episode): \(r); \(seen)")
                }
            }
            result.recoveries += recoveries
            let after = cores.dropFirst().map { $0.coordinator.uavNumber }
            if after != numbers {
                result.failures.append("seed \(spec.seed) episode \(episode): UAV numbers \(numbers) became \(after)")
            }
            // Quiet time before the next episode.
            if episode < spec.episodes - 1 { advance(to: now + .milliseconds(rng.int(in: 100...3000))) }
        }
        result.failures += malformed
        result.simulated = now - MeshInstant(nanoseconds: 0)
        result.rekeys = rekeys
        return result
    }

    /// Outage lengths of every kind (0…9, drawn when nil): shorter than detection (0), just past it (1, 2), seconds
    /// (3, 4), between the forget interval and the session lifetime (5), just past the forget interval (6), past the
    /// session lifetime, `rejectAfter` (7), and anything up to it (8, 9).
    private mutating func drawOutageLength(kind: Int?) -> Duration {
        let forget = Int(spec.forgetAfter / .milliseconds(1))
        let life = Int(spec.transport.rejectAfter / .milliseconds(1))
        return switch kind ?? rng.int(in: 0...9) {
        case 0: .milliseconds(rng.int(in: 50...700))
        case 1, 2: .milliseconds(rng.int(in: 750...2500))
        case 3, 4: .milliseconds(rng.int(in: 2500...max(2500, min(12_000, forget - 100))))
        case 5: .milliseconds((forget + life) / 2)
        case 6: .milliseconds(forget + rng.int(in: 100...max(100, min(8000, life - forget))))
        case 7: .milliseconds(life + rng.int(in: 0...(life / 5)))
        default: .milliseconds(rng.int(in: 3000...max(3000, min(40_000, life))))
        }
    }

    private func bytes(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    /// Runs events up to `end`.
    private mutating func advance(to end: MeshInstant) {
        while let t = queue.nextTime, t <= end.nanoseconds {
            let (time, event) = queue.pop()!
            now = MeshInstant(nanoseconds: time)
            switch event {
            case .tick:
                let wall = 1_800_000_000_000_000 + now.nanoseconds / 1000
                for i in cores.indices { carry(cores[i].onMeshTick(now: now, wallClockMicros: wall), at: i) }
                // The coordinator's 50 ms tick, after each drone's vehicle stand-in reported its state.
                if (time / 10_000_000) % 5 == 0 {
                    for i in cores.indices {
                        if i > 0 {
                            carry(
                                cores[i].withCoordinator(now: now) { $0.onLocalVehicleState(Self.hovering, now: now) },
                                at: i)
                        }
                        carry(cores[i].onCoordinatorTick(now: now), at: i)
                    }
                }
                queue.push(.tick, at: time + 10_000_000)
            case .vehicle(let node, let id, let done):
                carry(
                    cores[node].withCoordinator(now: now) {
                        done
                            ? $0.onVehicleCompletion(id, .completed, now: now)
                            : $0.onVehicleVerdict(id, .accepted, now: now)
                    }, at: node)
            case .datagram(let to, let from, let bytes):
                carry(cores[to].onDatagram(bytes, from: from, now: now), at: to)
            case .withdrawn(let node, let peer):
                if spec.trace { print("t=\(now) n\(node) loses the record of n\(peer)") }
                carry(cores[node].onDiscoveryRemoved(id: ids[peer], address: peer, now: now), at: node)
            case .advertised(let node, let peer):
                if spec.trace { print("t=\(now) n\(node) resolves the record of n\(peer) again") }
                carry(
                    cores[node].onDiscovered(
                        id: ids[peer], incarnation: nil, name: "n\(peer)", role: nil, uavNumber: nil,
                        address: peer, now: now), at: node)
            }
        }
        now = end
    }

    /// A drone hovering at 10 m: what each vehicle stand-in reports.
    private static let hovering = VehicleState(
        position: GeoPoint(latitude: 50.0755, longitude: 14.4378, altitude: 10), activity: .hovering, armed: true)

    private mutating func carry(_ effects: [NodeCore<Int>.Effect], at node: Int) {
        for e in effects {
            switch e {
            case .datagram(let bytes, let to):
                guard blocked[node]?[to] != true, spec.loss == 0 || !rng.chance(spec.loss) else { continue }
                let delay = UInt64(rng.int(in: spec.latency)) * 1_000_000
                queue.push(.datagram(to: to, from: node, bytes: bytes), at: now.nanoseconds + delay)
                if rng.chance(spec.duplication) {
                    queue.push(.datagram(to: to, from: node, bytes: bytes), at: now.nanoseconds + delay * 3)
                }
            case .groupDatagram(let bytes):
                for to in cores.indices where to != node {
                    guard blocked[node]?[to] != true, spec.loss == 0 || !rng.chance(spec.loss) else { continue }
                    let delay = UInt64(rng.int(in: spec.latency)) * 1_000_000
                    queue.push(.datagram(to: to, from: node, bytes: bytes), at: now.nanoseconds + delay)
                }
            case .peerState(let peer, _, let from, let to):
                if spec.trace {
                    print(
                        "t=\(now) n\(node) sees \(ids.firstIndex(of: peer) ?? -1): \(from.map { "\($0)" } ?? "new") → \(to)"
                    )
                }
                states[node][peer] = to
            case .nodeMessage(let type, let payload, let from):
                guard type == Self.probeType, payload.count == 4, let sender = ids.firstIndex(of: from) else {
                    continue
                }
                let v = payload.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                received[node][sender, default: []].insert(v)
            case .coordinator(.executeCommand(let id, _)):
                queue.push(.vehicle(node: node, id, completed: false), at: now.nanoseconds + 10_000_000)
                queue.push(.vehicle(node: node, id, completed: true), at: now.nanoseconds + 100_000_000)
            case .coordinator(.commandAnswer(let id, .completed)):
                if node == 0 { completed.insert(id) }
            case .malformedMessage(let type, _, let from, let error):
                malformed.append("seed \(spec.seed): n\(node) could not decode type \(type) from \(from): \(error)")
            case .note(_, let text):
                if text.hasSuffix(" rekeyed") { rekeys += 1 }
                if spec.trace { print("t=\(now) n\(node): \(text)") }
            case .rejected(_, let reason, _):
                if spec.trace { print("t=\(now) n\(node) refused a datagram: \(reason)") }
            case .coordinator:
                break
            }
        }
    }
}
