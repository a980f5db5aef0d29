import Determinism
import Membership
import MeshCore
import MeshTypes
import SecureTransport

/// A deterministic simulation of whole mesh layers (`MeshCore`: secure endpoint, membership, reliable channels) of a
/// few nodes on a virtual clock and network, with link outages of every length — both directions or one only, from
/// a fraction of a second to longer than the forget interval and the session lifetime — drawn from a seed. During a
/// long outage the side that stops hearing may lose the other's DNS-SD record, and resolves it again after the heal.
///
/// After every heal it measures how long each pair takes to be back in session on both sides and to carry a reliable
/// message each way, and records a failure if that exceeds the bound. `MESHSIM_OUTAGE_SEED=n` replays one seed.
public struct LinkOutageSimulation {
    /// What one run is made of.
    public struct Spec: Sendable {
        public var seed: UInt64
        public var nodes: Int = 3
        /// Outage episodes, one after the other (each 1–3 outages, overlapping).
        public var episodes: Int = 8
        /// Forget interval of the membership (short, so outages longer than it are affordable).
        public var forgetAfter: Duration = .seconds(20)
        /// One-way delivery time, drawn uniformly.
        public var latency: ClosedRange<Int> = 1...25  // ms
        /// Share of datagrams duplicated (the copy arrives later).
        public var duplication: Double = 0.01
        /// Back in session with a message each way within this of the heal.
        public var bound: Duration = .seconds(1)
        /// Print every peer-state change (replaying a failing seed).
        public var trace = false

        public init(seed: UInt64) { self.seed = seed }
    }

    /// One heal and how long the pair took to recover.
    public struct Recovery: Sendable, CustomStringConvertible {
        public var pair: (Int, Int)
        public var outage: Duration
        public var oneWay: Bool
        /// Heal → both sides `established`.
        public var inSession: Duration?
        /// Heal → a reliable message sent at the heal delivered each way.
        public var messagesFlowing: Duration?
        public var description: String {
            let dir = oneWay ? "one way" : "both ways"
            return "pair \(pair) outage \(outage) \(dir): in session \(inSession.map { "\($0)" } ?? "never"), "
                + "messages \(messagesFlowing.map { "\($0)" } ?? "never")"
        }
    }

    public struct Result: Sendable {
        public var recoveries: [Recovery] = []
        public var failures: [String] = []
        /// Virtual time simulated.
        public var simulated: Duration = .zero
    }

    private enum Event {
        case datagram(to: Int, from: Int, bytes: [UInt8])
        case tick
        /// DNS-SD at `node` drops `peer`'s record (a host cut off from the link loses its records at the others).
        case withdrawn(node: Int, peer: Int)
        /// DNS-SD at `node` resolves `peer`'s record again.
        case advertised(node: Int, peer: Int)
    }

    let spec: Spec
    private var rng: SeededRandom
    private var cores: [MeshCore<Int>] = []
    private var ids: [NodeID] = []
    private var queue = EventQueue<Event>()
    private var now = MeshInstant(nanoseconds: 0)
    /// Blocked directed links: from → to.
    private var blocked: [Int: [Int: Bool]] = [:]
    /// Per node: the reliable probe messages it received, by sender.
    private var received: [[Int: Set<UInt32>]] = []
    private var states: [[NodeID: PeerState]] = []
    private static let probeType: UInt16 = 0x7F01
    private static let telemetryType: UInt16 = 0x7F02

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
            let id = NodeID(high: UInt64(i + 1), low: rng.next())
            ids.append(id)
            cores.append(
                MeshCore(
                    key: key, localID: id, incarnation: rng.next(), role: i == 0 ? .station : .drone, name: "n\(i)",
                    uavNumber: i == 0 ? nil : i, membership: membership, random: SeededRandom(seed: rng.next())))
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
        advance(to: now + .seconds(3))
        for i in 0..<spec.nodes {
            for j in 0..<spec.nodes where i != j && states[i][ids[j]] != .established {
                result.failures.append("seed \(spec.seed): n\(i) not in session with n\(j) 3 s after start")
            }
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
            for _ in 0..<count {
                let a = rng.int(in: 0...(spec.nodes - 1))
                var b = rng.int(in: 0...(spec.nodes - 2))
                if b >= a { b += 1 }
                let length = drawOutageLength()
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
            let deadline = healed + spec.bound * 3
            var step = 0
            while now < deadline, recoveries.contains(where: { $0.messagesFlowing == nil }) {
                if step % 5 == 0 {
                    for (k, (a, b, _)) in pairs.enumerated() where recoveries[k].messagesFlowing == nil {
                        probe += 1
                        carry(cores[a].sendReliable(Self.probeType, bytes(probe), to: ids[b], now: now), at: a)
                        carry(cores[b].sendReliable(Self.probeType, bytes(probe), to: ids[a], now: now), at: b)
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
            }
            for r in recoveries {
                let onTime =
                    (r.messagesFlowing.map { $0 <= spec.bound } ?? false)
                    && (r.inSession.map { $0 <= spec.bound } ?? false)
                if !onTime {
                    let (a, b) = r.pair
                    let seen =
                        "n\(a) sees n\(b) \(states[a][ids[b]].map { "\($0)" } ?? "nothing"), n\(b) sees n\(a) "
                        + "\(states[b][ids[a]].map { "\($0)" } ?? "nothing")"
                    result.failures.append("seed \(spec.seed) episode \(episode): \(r); \(seen)")
                }
            }
            result.recoveries += recoveries
            // Quiet time before the next episode.
            advance(to: now + .milliseconds(rng.int(in: 100...3000)))
        }
        result.simulated = now - MeshInstant(nanoseconds: 0)
        return result
    }

    /// Outage lengths of every kind: shorter than detection, just past it, seconds, a minute, past the session
    /// lifetime (180 s) and past the forget interval.
    private mutating func drawOutageLength() -> Duration {
        switch rng.int(in: 0...9) {
        case 0: .milliseconds(rng.int(in: 50...700))
        case 1, 2: .milliseconds(rng.int(in: 750...2500))
        case 3, 4: .milliseconds(rng.int(in: 2500...12_000))
        case 5: .seconds(60)
        case 6: spec.forgetAfter + .milliseconds(rng.int(in: 100...8000))
        case 7: .seconds(rng.int(in: 175...200))
        default: .milliseconds(rng.int(in: 3000...40_000))
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
                for i in cores.indices { carry(cores[i].onTick(now: now, wallClockMicros: wall), at: i) }
                // Like the coordinator's telemetry: every 100 ms to every other node, whatever membership says, so
                // one-way outages carry data one way (and lost peers are heard again).
                if (time / 10_000_000) % 10 == 0 {
                    for i in cores.indices {
                        for j in cores.indices where j != i {
                            carry(cores[i].sendUnreliable(Self.telemetryType, [UInt8(i)], to: ids[j], now: now), at: i)
                        }
                    }
                }
                queue.push(.tick, at: time + 10_000_000)
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

    private mutating func carry(_ directives: [MeshCore<Int>.Directive], at node: Int) {
        for d in directives {
            switch d {
            case .send(let bytes, let to):
                guard blocked[node]?[to] != true else { continue }
                let delay = UInt64(rng.int(in: spec.latency)) * 1_000_000
                queue.push(.datagram(to: to, from: node, bytes: bytes), at: now.nanoseconds + delay)
                if rng.chance(spec.duplication) {
                    queue.push(.datagram(to: to, from: node, bytes: bytes), at: now.nanoseconds + delay * 3)
                }
            case .peerState(let peer, _, let from, let to):
                if spec.trace {
                    print(
                        "t=\(now) n\(node) sees \(ids.firstIndex(of: peer) ?? -1): \(from.map { "\($0)" } ?? "new") → \(to)"
                    )
                }
                states[node][peer] = to
            case .message(let type, let payload, let from, _):
                guard type == Self.probeType, payload.count == 4, let sender = ids.firstIndex(of: from) else {
                    continue
                }
                let v = payload.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                received[node][sender, default: []].insert(v)
            case .rejected, .note:
                break
            }
        }
    }
}
