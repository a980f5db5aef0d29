import Coordinator
import Determinism
import Foundation
import Membership
import MeshCore
import MeshTypes
import NodeCore
import SecureTransport

/// Bytes on the air of a whole fleet of nodes (`NodeCore`, real crypto) on one shared link, on a virtual clock and
/// network: stations and flying drones, each drone reporting a steady flight (telemetry at 10 Hz, a 40-point
/// prediction at 5 Hz, like the simulated vehicle). Counted like the lab's per-host link counters: every transmission
/// once, with the framing a link adds (Ethernet 14 + IPv6 40 + UDP 8 bytes); a group datagram is one transmission
/// whatever number of nodes hear it. Deterministic for a seed.
public struct AirtimeSimulation {
    /// Bytes a link adds to each UDP payload: Ethernet header 14, IPv6 40, UDP 8.
    public static let framing = 62

    /// Where the nodes are, and who hears whom.
    public enum Layout: Sendable, Equatable {
        /// One shared link: every node hears every other; drones 20 m apart in a line.
        case oneLink
        /// A field: the nodes (stations first) on a grid `columns` wide, `spacing` metres apart, each hearing only
        /// those within `range` metres (radio range): its datagrams, group or unicast, reach those and no others,
        /// and its DNS-SD records are found by those. Every transmission still counts once.
        case field(columns: Int, spacing: Double, range: Double)
    }

    public struct Result: Sendable {
        public var nodes: Int
        /// Seconds counted.
        public var seconds: Double
        /// Every node in session with every other when the count ended.
        public var whole: Bool
        public var bytes = 0
        public var unicastFrames = 0
        public var groupFrames = 0
        /// Bytes (framing included) of the unicast and of the group datagrams counted.
        public var unicastBytes = 0
        public var groupBytes = 0
        /// Peer-state changes away from `established` during the count (flaps).
        public var flaps = 0
        /// Virtual time from the start (every node discovers every other at once) to every node in session with
        /// every other; nil if that did not happen within the settling time.
        public var formedAfter: Duration?
        /// Datagrams (unicast and group) and their bytes, framing included, sent until the mesh was whole.
        public var formationFrames = 0
        public var formationBytes = 0
        /// Virtual time from the start to every node holding every other node's advertisement with all its
        /// neighbours listed (the link-state databases agree with the whole mesh); nil if not within the settling
        /// time. Datagrams and bytes sent until then.
        public var convergedAfter: Duration?
        public var convergenceFrames = 0
        public var convergenceBytes = 0
        /// At the end of the count, the predictions missing from the nodes' airspace pictures, against every node
        /// holding every other drone's: 0 where the fleet lies within every prediction's hop limit and reach (a long
        /// strip counts the pairs beyond them).
        public var predictionsMissing = 0

        public var bitsPerSecond: Double { Double(bytes) * 8 / seconds }
        public var bitsPerSecondPerNode: Double { bitsPerSecond / Double(nodes) }
        public var framesPerSecond: Double { Double(unicastFrames + groupFrames) / seconds }
    }

    /// The nodes: stations first, then drones.
    public private(set) var nodes: [NodeCore<Int>] = []
    /// The virtual clock.
    public private(set) var now = MeshInstant(nanoseconds: 1_000_000)
    /// Whether group datagrams reach the other nodes (multicast working on the link).
    public var groupPasses = true
    /// Nodes cut off the link (a port down): nothing they send arrives, nothing reaches them.
    public var isolated: Set<Int> = []
    /// Nodes that receive nothing while what they send still arrives (a firewall that drops what comes in).
    public var deaf: Set<Int> = []
    /// Directions whose unicast datagrams are lost while group datagrams still pass: a kernel whose neighbour entry
    /// for the peer failed during an outage holds unicast to it until the entry resolves again (up to 1 s later);
    /// multicast needs no entry.
    public var unicastHeld: Set<Direction> = []

    /// One direction of one pair: from node `from` to node `to`.
    public struct Direction: Hashable, Sendable {
        public var from: Int
        public var to: Int
        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }
    /// Directions that pass nothing, unicast or group: `to` stops hearing `from` (a firewall on `to`).
    public var drops: Set<Direction> = []

    /// Whether datagrams reach node `i` at all (neither cut off nor deaf).
    private func receives(_ i: Int) -> Bool { !isolated.contains(i) && !deaf.contains(i) }
    /// Whether what node `from` sends reaches node `to` (which it hears).
    private func delivers(_ from: Int, _ to: Int) -> Bool {
        receives(to) && (drops.isEmpty || !drops.contains(Direction(from: from, to: to)))
    }
    /// Unicast and group datagrams each node sent since `resetCounts()`.
    public private(set) var unicastSent: [Int] = []
    public private(set) var groupSent: [Int] = []
    /// Unicast datagrams from one drone to another since `resetCounts()`.
    public private(set) var unicastBetweenDrones = 0
    /// Datagrams each node received, unicast or group, since `resetCounts()`.
    public private(set) var received: [Int] = []
    /// Manual-control samples each node's coordinator handed to its vehicle since `resetCounts()`.
    public private(set) var manualApplied: [Int] = []
    /// Commands each node's coordinator handed to its vehicle since the last `resetCounts`.
    public private(set) var commandsExecuted: [Int] = []
    /// Bytes sent by every node since the start, framing included.
    public private(set) var sentBytes = 0
    /// Bytes sent by every node since `resetCounts()`, framing included.
    public private(set) var bytesSent = 0
    /// The unicast part of `bytesSent`.
    public private(set) var unicastBytesSent = 0
    private var inFlight: [(to: Int, from: Int, bytes: [UInt8])] = []
    private var counting = false
    private var result: Result
    private let stations: Int

    private let seesRecord: (Int, Int) -> Bool

    /// When each node starts (a node not started neither sends nor hears).
    private var startsAt: [MeshInstant] = []
    private var started: [Bool] = []
    /// The layout; in a field, each node's position (metres north and east of the first) and the nodes it hears.
    public let layout: Layout
    private var positions: [(north: Double, east: Double)] = []
    /// In a field, the nodes each node hears (ascending), and the same as a flat matrix; nil on one link.
    private var inRange: [[Int]]?
    private var hearsMatrix: [Bool] = []

    /// `stations` stations and `drones` drones, with the group channel or without (unicast to every peer). With a
    /// `startSpread`, each node starts at a moment drawn evenly from it, as when a field team powers a fleet on;
    /// without, all start at once and find each other at the first instant.
    /// `seesRecord(i, j)`: whether node `i`'s DNS-SD finds node `j`'s record (by default every node finds every
    /// other; a node may still learn of another from its group datagrams).
    /// `layout`: one shared link (the default) or a field where each node hears only those in radio range.
    /// `membership`: every node's failure detection and reconnection timing; `groupSettings`: its group channel's, when
    /// `group` is on.
    /// `forwardHold`: how long each node holds the floods it forwards to pack them (``NodeCore/forwardHold``).
    /// `configure`: changes to every node's coordinator configuration (a benchmark's other refresh interval).
    public init(
        stations: Int = 2, drones: Int, group: Bool, startSpread: Duration = .zero, seed: UInt64 = 1,
        layout: Layout = .oneLink, seesRecord: @escaping (Int, Int) -> Bool = { _, _ in true },
        membership: MembershipConfiguration = .init(), groupSettings: GroupSettings = .init(),
        forwardHold: Duration = .milliseconds(10), configure: (inout CoordinatorConfiguration) -> Void = { _ in }
    ) {
        self.seesRecord = seesRecord
        self.stations = stations
        self.layout = layout
        var rng = SeededRandom(seed: seed)
        let key = try! MeshKey(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let count = stations + drones
        switch layout {
        case .oneLink:
            positions = (0..<count).map { (north: Double($0) * 20, east: 0) }
        case .field(let columns, let spacing, let range):
            let columns = max(1, columns)
            positions = (0..<count).map {
                (north: Double($0 / columns) * spacing, east: Double($0 % columns) * spacing)
            }
            hearsMatrix = Array(repeating: false, count: count * count)
            var lists: [[Int]] = Array(repeating: [], count: count)
            for i in 0..<count {
                for j in 0..<count where j != i {
                    let dn = positions[i].north - positions[j].north
                    let de = positions[i].east - positions[j].east
                    guard dn * dn + de * de <= range * range else { continue }
                    hearsMatrix[i * count + j] = true
                    lists[i].append(j)
                }
            }
            inRange = lists
        }
        result = Result(nodes: count, seconds: 0, whole: false)
        unicastSent = Array(repeating: 0, count: count)
        groupSent = unicastSent
        received = unicastSent
        manualApplied = unicastSent
        commandsExecuted = unicastSent
        for i in 0..<count {
            let id = NodeID(high: UInt64(i + 1) << 32 | rng.next() >> 32, low: rng.next())
            let incarnation: Incarnation = rng.next()
            let role: NodeRole = i < stations ? .station : .drone
            let mesh = MeshCore<Int>(
                key: key, localID: id, incarnation: incarnation, role: role, name: "n\(i)", uavNumber: nil,
                membership: membership, group: group ? groupSettings : nil, random: SeededRandom(seed: rng.next()))
            var configuration = CoordinatorConfiguration(nodeID: id, role: role, name: "n\(i)")
            configure(&configuration)
            let coordinator = CoordinatorCore(
                configuration: configuration, incarnation: incarnation, persistedUAVNumber: nil, now: now)
            var node = NodeCore(mesh: mesh, coordinator: coordinator)
            node.forwardHold = forwardHold
            nodes.append(node)
        }
        let spread = startSpread.components.seconds * 1_000_000_000 + startSpread.components.attoseconds / 1_000_000_000
        startsAt = nodes.indices.map { _ in
            now + .nanoseconds(spread > 0 ? Int64.random(in: 0..<spread, using: &rng) : 0)
        }
        started = Array(repeating: false, count: nodes.count)
        startDue()
    }

    /// Starts the nodes whose moment has come: each finds every started node and is found by it (discovery), and a
    /// drone is flying from its start.
    private mutating func startDue() {
        for i in nodes.indices where !started[i] && startsAt[i] <= now {
            started[i] = true
            for j in nodes.indices where j != i && started[j] && hears(i, j) {
                if seesRecord(i, j) {
                    carry(
                        nodes[i].onDiscovered(
                            id: nodes[j].mesh.localID, incarnation: nil, name: "n\(j)", role: nil, uavNumber: nil,
                            address: j, now: now), at: i)
                }
                if seesRecord(j, i) {
                    carry(
                        nodes[j].onDiscovered(
                            id: nodes[i].mesh.localID, incarnation: nil, name: "n\(i)", role: nil, uavNumber: nil,
                            address: i, now: now), at: j)
                }
            }
            if i >= stations {
                let t = now
                carry(nodes[i].withCoordinator(now: t) { $0.onFlyingChanged(true, now: t) }, at: i)
            }
        }
    }

    /// Forms the mesh for `settle`, then counts for `measure`: by default 10 s, one link-state refresh period
    /// (PROTOCOL.md §7.1), so that every node's refresh of its advertisement — the one part that grows with the
    /// fleet — is counted exactly once whatever the window's phase.
    public static func run(
        stations: Int = 2, drones: Int, group: Bool, startSpread: Duration = .zero, settle: Duration = .seconds(3),
        measure: Duration = .seconds(10), seed: UInt64 = 1, layout: Layout = .oneLink,
        forwardHold: Duration = .milliseconds(10), configure: (inout CoordinatorConfiguration) -> Void = { _ in }
    ) -> Result {
        var sim = AirtimeSimulation(
            stations: stations, drones: drones, group: group, startSpread: startSpread, seed: seed, layout: layout,
            forwardHold: forwardHold, configure: configure)
        let start = sim.now
        // Formation and convergence, checked every 100 ms (the counts so far are theirs), then the rest of `settle`.
        while sim.now - start < settle, sim.result.convergedAfter == nil {
            sim.advance(.milliseconds(100))
            let frames = sim.framesSent
            if sim.result.formedAfter == nil, sim.whole {
                sim.result.formedAfter = sim.now - start
                sim.result.formationFrames = frames
                sim.result.formationBytes = sim.sentBytes
            }
            if sim.result.formedAfter != nil, sim.converged {
                sim.result.convergedAfter = sim.now - start
                sim.result.convergenceFrames = frames
                sim.result.convergenceBytes = sim.sentBytes
            }
        }
        if sim.result.formedAfter == nil {
            sim.result.formationFrames = sim.framesSent
            sim.result.formationBytes = sim.sentBytes
        }
        if sim.now - start < settle { sim.advance(settle - (sim.now - start)) }
        sim.counting = true
        sim.advance(measure)
        sim.result.seconds = Double(measure.components.seconds) + Double(measure.components.attoseconds) / 1e18
        sim.result.whole = sim.whole
        sim.result.predictionsMissing = sim.predictionsMissing
        return sim.result
    }

    /// How far node `j` is from node `i` in the layout, metres north and east (the fleet moves together).
    public func offset(from i: Int, to j: Int) -> (north: Double, east: Double) {
        (positions[j].north - positions[i].north, positions[j].east - positions[i].east)
    }

    /// Whether node `i` holds drone `j`'s prediction.
    public func holdsPrediction(at i: Int, of j: Int) -> Bool {
        nodes[i].coordinator.airspace(now: now).contains { $0.node == nodes[j].mesh.localID }
    }

    /// Drones whose predictions node `i` holds.
    public func predictionsHeld(at i: Int) -> Int {
        nodes[i].coordinator.airspace(now: now).filter { $0.node != nodes[i].mesh.localID }.count
    }

    /// Predictions missing from the nodes' pictures, against every node holding every other drone's.
    public var predictionsMissing: Int {
        let drones = nodes.count - stations
        return nodes.indices.reduce(0) { sum, i in sum + (drones - (i >= stations ? 1 : 0)) - predictionsHeld(at: i) }
    }

    /// Every node in session with every other (in a field: with every node in its range).
    public var whole: Bool {
        guard let inRange else {
            return nodes.indices.allSatisfy { i in
                nodes[i].mesh.membership.peers.count == nodes.count - 1
                    && nodes[i].mesh.membership.peers.values.allSatisfy { $0.state == .established }
            }
        }
        return nodes.indices.allSatisfy { i in
            let peers = nodes[i].mesh.membership.peers
            return inRange[i].allSatisfy { peers[nodes[$0].mesh.localID]?.state == .established }
        }
    }

    /// Whether node `i` hears node `j` (always on one link).
    public func hears(_ i: Int, _ j: Int) -> Bool {
        inRange == nil || hearsMatrix[i * nodes.count + j]
    }

    /// In a field, how many nodes each node hears (nil on one link).
    public var neighbourCounts: [Int]? { inRange?.map(\.count) }

    /// Unicast and group datagrams sent by every node since `resetCounts()`.
    public var framesSent: Int { unicastSent.reduce(0, +) + groupSent.reduce(0, +) }

    /// Every node holds every other node's advertisement listing all the nodes it hears as neighbours (on one link:
    /// all the others).
    public var converged: Bool {
        let ids = nodes.map(\.mesh.localID)
        let expected = inRange?.map(\.count) ?? Array(repeating: ids.count - 1, count: ids.count)
        return nodes.allSatisfy { node in
            ids.indices.allSatisfy { j in
                ids[j] == node.mesh.localID
                    || node.coordinator.advertisement(of: ids[j])?.neighbours.count == expected[j]
            }
        }
    }

    /// Starts the per-node counts over.
    public mutating func resetCounts() {
        unicastSent = Array(repeating: 0, count: nodes.count)
        groupSent = unicastSent
        received = unicastSent
        manualApplied = unicastSent
        commandsExecuted = unicastSent
        unicastBetweenDrones = 0
        bytesSent = 0
        unicastBytesSent = 0
    }

    /// Lets node `i` act now (a command, a manual-control sample) and sends what it sends.
    public mutating func act(at i: Int, _ body: (inout CoordinatorCore) -> [Directive]) {
        let moment = now
        carry(nodes[i].withCoordinator(now: moment, body), at: i)
    }

    private mutating func carry(_ effects: [NodeCore<Int>.Effect], at i: Int) {
        for e in effects {
            switch e {
            case .datagram(let bytes, let to):
                unicastSent[i] += 1
                sentBytes += bytes.count + Self.framing
                bytesSent += bytes.count + Self.framing
                unicastBytesSent += bytes.count + Self.framing
                if i >= stations, to >= stations { unicastBetweenDrones += 1 }
                if counting {
                    result.bytes += bytes.count + Self.framing
                    result.unicastBytes += bytes.count + Self.framing
                    result.unicastFrames += 1
                }
                if hears(to, i), !isolated.contains(i), delivers(i, to),
                    unicastHeld.isEmpty || !unicastHeld.contains(Direction(from: i, to: to))
                {
                    inFlight.append((to, i, bytes))
                }
            case .groupDatagram(let bytes):
                groupSent[i] += 1
                sentBytes += bytes.count + Self.framing
                bytesSent += bytes.count + Self.framing
                if counting {
                    result.bytes += bytes.count + Self.framing
                    result.groupBytes += bytes.count + Self.framing
                    result.groupFrames += 1
                }
                guard groupPasses, !isolated.contains(i) else { continue }
                if let inRange {
                    for to in inRange[i] where delivers(i, to) { inFlight.append((to, i, bytes)) }
                } else {
                    for to in nodes.indices where to != i && delivers(i, to) { inFlight.append((to, i, bytes)) }
                }
            case .peerState(_, _, let from, let to):
                if counting, from == .established, to != .established { result.flaps += 1 }
            case .coordinator(.applyManualControl):
                manualApplied[i] += 1
            case .coordinator(.executeCommand):
                commandsExecuted[i] += 1
            default:
                break
            }
        }
    }

    /// Runs the fleet for `span` of virtual time (10 ms mesh ticks; 50 ms coordinator ticks and vehicle reports,
    /// node `i`'s `i` mesh ticks after node 0's modulo 5: nodes' timers run in no common phase).
    public mutating func advance(_ span: Duration) {
        let end = now + span
        while now < end {
            now = now + .milliseconds(10)
            let tick = Int(now.nanoseconds / 10_000_000)
            startDue()
            for i in nodes.indices where started[i] {
                carry(nodes[i].onMeshTick(now: now, wallClockMicros: now.nanoseconds / 1000), at: i)
                guard (tick + i) % 5 == 0 else { continue }
                if i >= stations { report(i) }
                carry(nodes[i].onCoordinatorTick(now: now), at: i)
            }
            var k = 0
            while k < inFlight.count {
                let d = inFlight[k]
                k += 1
                guard started[d.to] else { continue }
                received[d.to] += 1
                carry(nodes[d.to].onDatagram(d.bytes, from: d.from, now: now), at: d.to)
            }
            inFlight.removeAll(keepingCapacity: true)
        }
    }

    /// Drone `i` flies east at 5 m/s at 10 m from its place in the layout (on one link 20 m north of the previous
    /// drone): its state and its prediction. The whole fleet moves together, so who hears whom stays as laid out.
    private mutating func report(_ i: Int) {
        let t = Double(now.nanoseconds) / 1e9
        let place = positions[i]
        func at(_ s: Double) -> GeoPoint {
            GeoPoint(
                latitude: 50.0755 + place.north / 111_200, longitude: 14.4378 + (place.east + 5 * s) / 71_400,
                altitude: 10)
        }
        let state = VehicleState(
            position: at(t), velocityNorthCmS: 0, velocityEastCmS: 500, velocityDownCmS: 0, headingCentidegrees: 9000,
            batteryPercent: 90, activity: .flyingToTarget, armed: true, linkQuality: 100)
        let prediction = TrajectoryPrediction(points: (1...40).map { at(t + Double($0) * 0.2) })
        let moment = now
        carry(
            nodes[i].withCoordinator(now: moment) {
                _ = $0.onLocalVehicleState(state, now: moment)
                return $0.onLocalPrediction(prediction, now: moment)
            }, at: i)
    }
}
