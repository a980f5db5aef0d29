import Determinism
import MeshTypes

@testable import SecureTransport

typealias Endpoint = SecureEndpoint<Int>
typealias Directive = Endpoint.Directive

/// An in-memory network of endpoints addressed by integers, on one virtual clock. Datagrams wait in `inFlight`
/// until a test delivers them, so tests can drop, hold, reorder, duplicate or replay any of them.
struct TestNetwork {
    struct Datagram: Equatable {
        var bytes: [UInt8]
        var from: Int
        var to: Int
    }

    var endpoints: [Int: Endpoint] = [:]
    var inFlight: [Datagram] = []
    /// Every directive each node emitted, in order.
    var log: [Int: [Directive]] = [:]
    var now = MeshInstant.after(.seconds(1))
    /// Wall clock in microseconds, moving with `now`.
    var wallClockMicros: UInt64 { 1_800_000_000_000_000 + now.nanoseconds / 1000 }
    var seed: UInt64 = 1

    static let sharedKey = try! MeshKey(bytes: Array(0..<32))

    /// Adds a node at `address` and returns its NodeID.
    @discardableResult
    mutating func addNode(
        _ address: Int, id: NodeID? = nil, key: MeshKey = TestNetwork.sharedKey, incarnation: Incarnation = 1,
        role: NodeRole = .drone, configuration: SecureTransportConfiguration = .default
    ) -> NodeID {
        seed += 1
        let nodeID = id ?? NodeID(high: UInt64(address), low: 0xABCD)
        endpoints[address] = Endpoint(
            key: key, localID: nodeID, incarnation: incarnation, role: role, configuration: configuration,
            random: SeededRandom(seed: seed &* 7919 &+ UInt64(address)))
        return nodeID
    }

    func id(_ address: Int) -> NodeID { endpoints[address]!.localID }

    /// Records directives and queues the datagrams they send.
    mutating func apply(_ directives: [Directive], at address: Int) {
        log[address, default: []] += directives
        for d in directives {
            if case .send(let bytes, let to) = d { inFlight.append(Datagram(bytes: bytes, from: address, to: to)) }
        }
    }

    mutating func connect(_ a: Int, to b: Int, expecting: NodeID? = nil) {
        let ds = endpoints[a]!.connect(to: b, expecting: expecting, now: now, wallClockMicros: wallClockMicros)
        apply(ds, at: a)
    }

    mutating func send(_ a: Int, _ bytes: [UInt8], to peer: NodeID) throws {
        let ds = try endpoints[a]!.send(bytes, to: peer, now: now)
        apply(ds, at: a)
    }

    mutating func tick(_ a: Int) {
        let ds = endpoints[a]!.tick(now: now, wallClockMicros: wallClockMicros)
        apply(ds, at: a)
    }

    mutating func tickAll() {
        for a in endpoints.keys.sorted() { tick(a) }
    }

    /// Delivers one datagram (from anywhere) as if it came from `from`.
    mutating func inject(_ bytes: [UInt8], from: Int, to: Int) -> [Directive] {
        guard endpoints[to] != nil else { return [] }
        let ds = endpoints[to]!.receive(bytes, from: from, now: now)
        apply(ds, at: to)
        return ds
    }

    /// Takes every queued datagram out of flight.
    mutating func takeInFlight() -> [Datagram] {
        defer { inFlight = [] }
        return inFlight
    }

    /// Delivers queued datagrams (and those they cause) until none is left; `drop` may discard some.
    mutating func pump(drop: (Datagram) -> Bool = { _ in false }) {
        var guardCount = 0
        while !inFlight.isEmpty && guardCount < 100_000 {
            let d = inFlight.removeFirst()
            guardCount += 1
            if drop(d) { continue }
            _ = inject(d.bytes, from: d.from, to: d.to)
        }
    }

    /// Payloads delivered at `address`, with their senders.
    func delivered(at address: Int) -> [(NodeID, [UInt8])] {
        (log[address] ?? []).compactMap { if case .deliver(let b, let from) = $0 { (from, b) } else { nil } }
    }

    func established(at address: Int) -> [Endpoint.PeerInfo] {
        (log[address] ?? []).compactMap { if case .established(let p) = $0 { p } else { nil } }
    }

    func rejections(at address: Int) -> [RejectionReason] {
        (log[address] ?? []).compactMap { if case .rejected(_, let r) = $0 { r } else { nil } }
    }

    func rekeys(at address: Int) -> [NodeID] {
        (log[address] ?? []).compactMap { if case .rekeyed(let id) = $0 { id } else { nil } }
    }

    mutating func clearLogs() { log = [:] }

    /// Connects `a` to `b` and pumps until both are established.
    mutating func handshake(_ a: Int, _ b: Int) {
        connect(a, to: b)
        pump()
    }
}
