import MeshTypes

@testable import Coordinator

/// A zero-latency, lossless harness for unit tests: cores by index, links by pairs, messages delivered in FIFO order
/// (through the codec) until quiet. Non-send directives are collected per node.
struct Pump {
    var cores: [CoordinatorCore]
    var now = MeshInstant(nanoseconds: 1_000_000_000)
    var links: Set<[Int]> = []
    /// Directions `[from, to]` of linked pairs that carry nothing (`deafen`).
    var dropped: Set<[Int]> = []
    var inbox: [(to: Int, from: Int, message: CoordinatorMessage)] = []
    var directives: [[Directive]]
    /// Every message put on a link, by sender and receiver, while `recordsSends` is on.
    var sends: [(from: Int, to: Int, message: CoordinatorMessage)] = []
    var recordsSends = false

    init(
        _ specs: [(NodeRole, String, pinned: UInt8?, persisted: UInt8?)],
        configure: (inout CoordinatorConfiguration) -> Void = { _ in }
    ) {
        cores = specs.enumerated().map { i, s in
            var c = CoordinatorConfiguration(
                nodeID: NodeID(high: 0, low: UInt64(i + 1)), role: s.0, name: s.1, pinnedUAVNumber: s.pinned)
            configure(&c)
            return CoordinatorCore(
                configuration: c, incarnation: UInt64(100 + i), persistedUAVNumber: s.persisted,
                now: MeshInstant(nanoseconds: 1_000_000_000))
        }
        directives = Array(repeating: [], count: specs.count)
    }

    func id(_ i: Int) -> NodeID { NodeID(high: 0, low: UInt64(i + 1)) }
    func index(_ id: NodeID) -> Int { Int(id.low) - 1 }

    mutating func link(_ a: Int, _ b: Int) {
        links.insert([min(a, b), max(a, b)])
        handle(a, cores[a].onNeighbourUp(id(b), now: now))
        handle(b, cores[b].onNeighbourUp(id(a), now: now))
        drain()
    }

    mutating func unlink(_ a: Int, _ b: Int) {
        links.remove([min(a, b), max(a, b)])
        handle(a, cores[a].onNeighbourDown(id(b), now: now))
        handle(b, cores[b].onNeighbourDown(id(a), now: now))
        drain()
    }

    /// Node `a` stops hearing node `b`, which still hears it (a one-way link): `a` loses its session with `b`, `b`
    /// keeps its session with `a`, and what `b` sends `a` is lost.
    mutating func deafen(_ a: Int, to b: Int) {
        dropped.insert([b, a])
        handle(a, cores[a].onNeighbourDown(id(b), now: now))
        drain()
    }

    /// Node `a` hears node `b` again, and opens a session with it.
    mutating func undeafen(_ a: Int, to b: Int) {
        dropped.remove([b, a])
        handle(a, cores[a].onNeighbourUp(id(b), now: now))
        drain()
    }

    mutating func handle(_ i: Int, _ ds: [Directive]) {
        for d in ds {
            if case .send(let m, let to, _) = d {
                let j = index(to)
                guard links.contains([min(i, j), max(i, j)]), dropped.isEmpty || !dropped.contains([i, j]) else {
                    continue
                }
                inbox.append((j, i, m))
                if recordsSends { sends.append((i, j, m)) }
            } else {
                directives[i].append(d)
            }
        }
    }

    mutating func drain() {
        var next = 0
        while next < inbox.count {
            let (to, from, m) = inbox[next]
            next += 1
            let (t, p) = m.encode()
            let decoded = try! CoordinatorMessage(type: t, payload: p)
            handle(to, cores[to].onMessage(decoded, from: id(from), now: now))
        }
        inbox.removeAll()
    }

    /// Advances time in ticks of `step`, delivering everything after each tick.
    mutating func advance(_ d: Duration, step: Duration = .milliseconds(100)) {
        let end = now + d
        while now < end {
            now = now + step
            for i in cores.indices { handle(i, cores[i].onTick(now: now)) }
            drain()
        }
    }

    mutating func call(_ i: Int, _ body: (inout CoordinatorCore, MeshInstant) -> [Directive]) {
        let ds = body(&cores[i], now)
        handle(i, ds)
        drain()
    }

    mutating func command(_ i: Int, _ c: Command, to n: UInt8, takeover: Bool = false) -> CommandID {
        let (id, ds) = cores[i].sendCommand(c, toUAV: n, takeover: takeover, now: now)
        handle(i, ds)
        drain()
        return id
    }

    func answers(_ i: Int, _ id: CommandID) -> [CommandAnswer] {
        directives[i].compactMap { if case .commandAnswer(id, let a) = $0 { return a } else { return nil } }
    }

    func executions(_ i: Int) -> [CommandID] {
        directives[i].compactMap { if case .executeCommand(let id, _) = $0 { return id } else { return nil } }
    }
}
