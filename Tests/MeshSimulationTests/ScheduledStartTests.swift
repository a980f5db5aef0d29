import Coordinator
import Determinism
import MeshCore
import MeshTypes
import NodeCore
import SecureTransport
import Testing

/// A scheduled command's start crosses clocks: the mesh layer estimates each neighbour's clock from heartbeats
/// (`PeerClock`), and each hop moves the start onto the next hop's clock as it sends the command.
@Suite struct ScheduledStartTests {
    @Test("the estimate is the peer's clock minus ours, from the fastest heartbeat and the fastest round trip")
    func peerClockFromHeartbeats() {
        var clock = PeerClock()
        // The peer's clock reads 5 s more than ours; 2 ms one way, sometimes 9 ms more of queueing.
        let peerAhead: Int64 = 5_000_000
        for i in 0..<20 {
            let sentHere = MeshInstant(nanoseconds: UInt64(1_000_000_000 + i * 50_000_000))
            let queue: Int64 = i % 3 == 0 ? 0 : 9_000
            // Their heartbeat: sent at their clock, arrives here 2 ms (plus queueing) later.
            let theirSend = Int64(sentHere.nanoseconds / 1000) + peerAhead
            clock.onHeartbeat(
                sentAtMicros: UInt64(theirSend), now: sentHere + .microseconds(2_000 + queue))
            // Our heartbeat's round trip: 4 ms, plus queueing on some.
            clock.onRoundTrip(.microseconds(4_000 + queue), now: sentHere + .microseconds(4_000 + queue))
        }
        let now = MeshInstant(nanoseconds: 2_000_000_000)
        #expect(clock.offset(now: now) == .microseconds(peerAhead))
        #expect(clock.oneWayDelay(now: now) == .milliseconds(2))
        // Samples older than two windows no longer count.
        #expect(clock.offset(now: now + .seconds(3)) == nil)
        #expect(PeerClock().offset(now: now) == nil)
    }

    /// After an outage of more than two windows, the first heartbeats to arrive may be ones that waited in a queue while
    /// the link was down (sent up to a second before), all at once: alone they would put the estimate off by their
    /// wait. They count only with a heartbeat that arrived at least 40 ms after them, in its own time.
    @Test("heartbeats that waited out an outage in a queue, arriving together, do not set the estimate alone")
    func queuedHeartbeatsAfterAnOutage() {
        var clock = PeerClock()
        let peerAhead: Int64 = 5_000_000
        func heartbeat(sentAt sent: Int64, arrives: Int64) {
            clock.onHeartbeat(sentAtMicros: UInt64(sent + peerAhead), now: .after(.microseconds(arrives)))
        }
        // Before the outage: 2 ms one way, every 50 ms, and a 4 ms round trip.
        for i in 0..<20 {
            let t = Int64(1_000_000 + i * 50_000)
            heartbeat(sentAt: t, arrives: t + 2_000)
            clock.onRoundTrip(.microseconds(4_000), now: .after(.microseconds(t + 4_000)))
        }
        #expect(clock.offset(now: .after(.microseconds(2_000_000))) == .microseconds(peerAhead))
        // Three heartbeats sent 0.6–0.5 s before the link came back at 6 s arrive together with it.
        for sent in [5_400_000, 5_450_000, 5_500_000] as [Int64] { heartbeat(sentAt: sent, arrives: 6_000_000) }
        #expect(clock.offset(now: .after(.microseconds(6_001_000))) == nil, "an estimate from queued heartbeats alone")
        // The next one, in its own time: the estimate is right again.
        heartbeat(sentAt: 6_048_000, arrives: 6_050_000)
        #expect(clock.offset(now: .after(.microseconds(6_051_000))) == .microseconds(peerAhead))
    }

    /// Three nodes in a line (station — relay — drone), each with its own clock origin, links of 1 ms and 3 ms each way:
    /// the drone is asked to start at the station's moment, on its own clock.
    @Test("a relayed drone schedules the start at the station's moment on its own clock, within 0.1 ms")
    func startCrossesTwoHopsOfClocks() throws {
        let key = try MeshKey(bytes: Array(repeating: 0x3C, count: 32))
        // node i's clock reads global time plus `skew[i]`.
        let skew: [Int64] = [5_000_000_000, 200_000_000, 17_300_000_000]
        let latency: [[Int64]] = [[0, 1_000_000, 0], [1_000_000, 0, 3_000_000], [0, 3_000_000, 0]]
        var nodes: [NodeCore<Int>] = (0..<3).map { i in
            let id = NodeID(high: UInt64(i + 1), low: 9)
            let role: NodeRole = i == 2 ? .drone : .station
            let mesh = MeshCore<Int>(
                key: key, localID: id, incarnation: UInt64(50 + i), role: role, name: "n\(i)",
                uavNumber: i == 2 ? 6 : nil, random: SeededRandom(seed: UInt64(i + 7)))
            let configuration = CoordinatorConfiguration(
                nodeID: id, role: role, name: "n\(i)", pinnedUAVNumber: i == 2 ? 6 : nil)
            let coordinator = CoordinatorCore(
                configuration: configuration, incarnation: UInt64(50 + i), persistedUAVNumber: nil,
                now: MeshInstant(nanoseconds: UInt64(skew[i])))
            return NodeCore(mesh: mesh, coordinator: coordinator)
        }
        var global: Int64 = 1_000_000_000
        func local(_ i: Int) -> MeshInstant { MeshInstant(nanoseconds: UInt64(global + skew[i])) }
        var inFlight: [(at: Int64, to: Int, from: Int, bytes: [UInt8])] = []
        var starts: [(node: Int, id: CommandID, at: MeshInstant)] = []
        var answers: [CommandAnswer] = []
        func carry(_ effects: [NodeCore<Int>.Effect], at i: Int) {
            for e in effects {
                switch e {
                case .datagram(let bytes, let to):
                    guard latency[i][to] > 0 else { continue }
                    inFlight.append((global + latency[i][to], to, i, bytes))
                case .coordinator(.scheduleStart(let id, let at)): starts.append((i, id, at))
                case .coordinator(.commandAnswer(_, let a)) where i == 0: answers.append(a)
                default: break
                }
            }
        }
        func run(until end: Int64) {
            while global < end {
                global += 1_000_000
                while let next = inFlight.indices.filter({ inFlight[$0].at <= global }).min(by: {
                    inFlight[$0].at < inFlight[$1].at
                }) {
                    let d = inFlight.remove(at: next)
                    carry(nodes[d.to].onDatagram(d.bytes, from: d.from, now: local(d.to)), at: d.to)
                }
                for i in 0..<3 where global % 10_000_000 == 0 {
                    carry(
                        nodes[i].onMeshTick(
                            now: local(i), wallClockMicros: UInt64(global / 1000) + 1_700_000_000_000_000),
                        at: i)
                }
                for i in 0..<3 where global % 50_000_000 == 0 {
                    carry(nodes[i].onCoordinatorTick(now: local(i)), at: i)
                }
            }
        }
        // Each link's ends find each other; 0 and 2 never hear each other.
        for (a, b) in [(0, 1), (1, 2)] {
            carry(
                nodes[a].onDiscovered(
                    id: nodes[b].mesh.localID, incarnation: nil, name: "n\(b)", role: nil, uavNumber: nil, address: b,
                    now: local(a)), at: a)
        }
        run(until: global + 3_000_000_000)
        #expect(nodes[0].coordinator.route(to: nodes[2].mesh.localID)?.hops == 2)
        let ahead = try #require(nodes[0].mesh.clockOffset(of: nodes[1].mesh.localID, now: local(0)))
        #expect(abs((ahead - .nanoseconds(skew[1] - skew[0])).wholeNanoseconds) < 10_000)

        let start = local(0) + .milliseconds(1500)
        let (id, effects) = nodes[0].sendCommand(.hover, toUAV: 6, start: start, now: local(0))
        carry(effects, at: 0)
        run(until: global + 200_000_000)
        #expect(answers == [.accepted])
        let scheduled = try #require(starts.first { $0.node == 2 && $0.id == id })
        // The same moment in global time, on both clocks.
        let stationMoment = Int64(start.nanoseconds) - skew[0]
        let droneMoment = Int64(scheduled.at.nanoseconds) - skew[2]
        #expect(abs(droneMoment - stationMoment) < 100_000, "off by \(droneMoment - stationMoment) ns")
    }

    /// Two nodes 1 ms apart; node 1 is short of CPU and handles every datagram 20–45 ms after it arrived. Its estimate of
    /// node 0's clock uses the arrival instants its shell stamps: within 0.1 ms. Taken at handling, the same samples put
    /// it 10 ms or more off (what a busy node's scheduled starts used to inherit).
    @Test("a node that handles datagrams late estimates a peer's clock from their arrival, not from its backlog")
    func clockSamplesAtArrival() throws {
        let atArrival = try Self.offsetError(group: false, stampArrival: true, estimatedBy: 1)
        let atHandling = try Self.offsetError(group: false, stampArrival: false, estimatedBy: 1)
        #expect(abs(atArrival) < 100_000, "off by \(atArrival) ns")
        #expect(abs(atHandling) > 5_000_000, "off by \(atHandling) ns at handling")
    }

    /// The same late node 1 on a link with the group channel, seen from punctual node 0: its round trips to node 1 come
    /// from node 1's echoes, whose time held counts from the stamp's arrival at node 1, so node 1's backlog is not
    /// taken for link delay (counted from node 1's handling, it put node 0's estimate half the backlog off).
    @Test("a late node's group echoes count its backlog as time held: a peer's estimate of its clock stays exact")
    func echoesHoldFromArrival() throws {
        let error = try Self.offsetError(group: true, stampArrival: true, estimatedBy: 0)
        #expect(abs(error) < 100_000, "off by \(error) ns")
    }

    /// Two nodes 1 ms apart, node 1 handling every datagram 20–45 ms after its arrival (`arrivedAt` stamped by its
    /// shell when `stampArrival`); after 3 s, how far `estimatedBy`'s estimate of the other's clock is off, in ns.
    static func offsetError(group: Bool, stampArrival: Bool, estimatedBy me: Int) throws -> Int64 {
        let key = try MeshKey(bytes: Array(repeating: 0x3C, count: 32))
        let skew: [Int64] = [5_000_000_000, 200_000_000]
        var nodes: [NodeCore<Int>] = (0..<2).map { i in
            let id = NodeID(high: UInt64(i + 1), low: 9)
            let mesh = MeshCore<Int>(
                key: key, localID: id, incarnation: UInt64(50 + i), role: i == 0 ? .station : .drone,
                name: "n\(i)", uavNumber: nil, group: group ? GroupSettings() : nil,
                random: SeededRandom(seed: UInt64(i + 7)))
            let configuration = CoordinatorConfiguration(
                nodeID: id, role: i == 0 ? .station : .drone, name: "n\(i)", pinnedUAVNumber: nil)
            let coordinator = CoordinatorCore(
                configuration: configuration, incarnation: UInt64(50 + i), persistedUAVNumber: nil,
                now: MeshInstant(nanoseconds: UInt64(skew[i])))
            return NodeCore(mesh: mesh, coordinator: coordinator)
        }
        var global: Int64 = 1_000_000_000
        func local(_ i: Int, at g: Int64? = nil) -> MeshInstant {
            MeshInstant(nanoseconds: UInt64((g ?? global) + skew[i]))
        }
        // Each datagram: when it arrives, and when its receiver gets to it.
        var inFlight: [(arrives: Int64, handled: Int64, to: Int, from: Int, bytes: [UInt8])] = []
        var sent = 0
        func carry(_ effects: [NodeCore<Int>.Effect], at i: Int) {
            for effect in effects {
                let bytes: [UInt8]
                switch effect {
                case .datagram(let b, _): bytes = b
                case .groupDatagram(let b): bytes = b
                default: continue
                }
                let to = 1 - i
                sent += 1
                let arrives = global + 1_000_000
                let backlog: Int64 = to == 1 ? 20_000_000 + Int64(sent % 6) * 5_000_000 : 0
                inFlight.append((arrives, arrives + backlog, to, i, bytes))
            }
        }
        for (a, b) in [(0, 1), (1, 0)] {
            carry(
                nodes[a].onDiscovered(
                    id: nodes[b].mesh.localID, incarnation: nil, name: "n\(b)", role: nil, uavNumber: nil,
                    address: b, now: local(a)), at: a)
        }
        let end = global + 3_000_000_000
        while global < end {
            global += 1_000_000
            while let next = inFlight.indices.filter({ inFlight[$0].handled <= global }).min(by: {
                inFlight[$0].handled < inFlight[$1].handled
            }) {
                let d = inFlight.remove(at: next)
                let arrived = stampArrival ? local(d.to, at: d.arrives) : nil
                carry(nodes[d.to].onDatagram(d.bytes, from: d.from, now: local(d.to), arrivedAt: arrived), at: d.to)
            }
            for i in 0..<2 where global % 10_000_000 == 0 {
                carry(
                    nodes[i].onMeshTick(now: local(i), wallClockMicros: UInt64(global / 1000) + 1_700_000_000_000_000),
                    at: i)
            }
        }
        let other = 1 - me
        let estimate = try #require(nodes[me].mesh.clockOffset(of: nodes[other].mesh.localID, now: local(me)))
        return (estimate - .nanoseconds(skew[other] - skew[me])).wholeNanoseconds
    }
}
