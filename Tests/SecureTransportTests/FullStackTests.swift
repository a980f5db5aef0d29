import Determinism
import MeshTypes
import Testing

@testable import SecureTransport

/// Endpoint + frames + reliable channel together over a lossy, reordering link on a virtual clock, with rekeys forced
/// every couple of seconds: the layers compose without losing or duplicating a message.
@Suite("Full stack")
struct FullStackTests {
    struct Node {
        var endpoint: Endpoint
        var channel = ReliableChannel()
        var received: [[UInt8]] = []
        var rekeys = 0
    }

    @Test func reliableMessagesSurviveLossAndRepeatedRekeys() throws {
        let config = SecureTransportConfiguration(
            rekeyAfter: .seconds(2), responderRekeyAfter: .seconds(3), rejectAfter: .seconds(5))
        let key = try MeshKey(bytes: Array(repeating: 3, count: 32))
        var nodes = [
            1: Node(
                endpoint: Endpoint(
                    key: key, localID: NodeID(high: 1, low: 0), incarnation: 1, role: .station,
                    configuration: config, random: SeededRandom(seed: 10))),
            2: Node(
                endpoint: Endpoint(
                    key: key, localID: NodeID(high: 2, low: 0), incarnation: 1, role: .drone,
                    configuration: config, random: SeededRandom(seed: 20))),
        ]
        let ids = [1: nodes[1]!.endpoint.localID, 2: nodes[2]!.endpoint.localID]
        var rng = SeededRandom(seed: 2024)
        var queue = MinHeap<InFlight>()
        var order = 0
        var now = MeshInstant.after(.seconds(100))
        let start = now
        var wall: UInt64 { 1_800_000_000_000_000 + now.nanoseconds / 1000 }

        func transmit(_ directives: [Directive], at address: Int) {
            for d in directives {
                switch d {
                case .send(let bytes, let to):
                    guard !rng.chance(0.2) else { continue }
                    order += 1
                    queue.insert(
                        InFlight(
                            arrival: now + .milliseconds(Int.random(in: 5...30, using: &rng)),
                            order: order, to: to, bytes: bytes))
                case .deliver(let plaintext, _):
                    for frame in (try? Frame.decodeAll(plaintext)) ?? [] {
                        handle(nodes[address]!.channel.receive(frame: frame, now: now), at: address)
                    }
                case .rekeyed:
                    nodes[address]!.rekeys += 1
                default:
                    break
                }
            }
        }

        func handle(_ actions: [ReliableChannel.Action], at address: Int) {
            var frames: [Frame] = []
            for a in actions {
                switch a {
                case .transmit(let f): frames.append(f)
                case .deliver(_, let payload): nodes[address]!.received.append(payload)
                }
            }
            guard !frames.isEmpty else { return }
            let peer = ids[3 - address]!
            // No session right now (expired while a rekey was lost): the channel will retransmit.
            if let ds = try? nodes[address]!.endpoint.send(Frame.encode(frames), to: peer, now: now) {
                transmit(ds, at: address)
            }
        }

        transmit(nodes[1]!.endpoint.connect(to: 2, expecting: ids[2], now: now, wallClockMicros: wall), at: 1)
        let total = 2_000
        var sent = 0
        var nextSendAt = now
        while now - start < .seconds(60) {
            // The application produces one message every 5 ms, so the transfer spans several rekeys.
            if now >= nextSendAt, sent < total, nodes[1]!.channel.canSend,
                nodes[1]!.endpoint.hasSession(with: ids[2]!, now: now)
            {
                handle(
                    try nodes[1]!.channel.send(type: 9, payload: ReliableChannelTests.payload(sent), now: now), at: 1)
                sent += 1
                nextSendAt = now + .milliseconds(5)
            }
            if sent == total, nodes[2]!.received.count == total, nodes[1]!.channel.inFlight == 0 { break }
            var next = queue.first?.arrival
            for n in nodes.values {
                for d in [n.endpoint.nextDeadline, n.channel.nextDeadline].compactMap({ $0 }) {
                    next = min(next ?? d, d)
                }
            }
            if sent < total { next = min(next ?? nextSendAt, max(nextSendAt, now + .milliseconds(1))) }
            guard let next else { break }
            now = max(now, next)
            while let p = queue.first, p.arrival <= now {
                _ = queue.popFirst()
                transmit(nodes[p.to]!.endpoint.receive(p.bytes, from: 3 - p.to, now: now), at: p.to)
            }
            for address in [1, 2] {
                transmit(nodes[address]!.endpoint.tick(now: now, wallClockMicros: wall), at: address)
                handle(nodes[address]!.channel.tick(now: now), at: address)
            }
        }
        #expect(nodes[2]!.received == (0..<total).map(ReliableChannelTests.payload))
        #expect(nodes[1]!.rekeys >= 3 && nodes[2]!.rekeys >= 3)
        #expect(now - start > .seconds(10))
    }
}
