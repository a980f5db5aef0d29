import Coordinator
import Determinism
import Flight
import MeshCore
import MeshTypes
import NodeCore
import SecureTransport

/// A station and N drones (`NodeCore` each) in the lab's star (`fleetmesh-bench station`): every drone has the
/// station as its only, static, peer and no group channel; the station runs its group channel, which no drone hears.
/// The drones stand on the ground, so the station's steady traffic is what 10 Hz telemetry and the heartbeats it
/// does not carry (PROTOCOL.md §6.2: a datagram each way every 50 ms) cost. Every node ticks like the node's actor
/// does (mesh layer every 10 ms, coordinator every 50 ms, each node at its own phase) on a virtual clock, and each
/// datagram takes `latency` to arrive.
///
/// With `Spec.group`, the same star on one shared link, as a field fleet is: every drone runs the group channel too,
/// the station's group datagrams reach every drone and each drone's reach the station (not the other drones, which
/// hold no session with each other here and would refuse them). Telemetry then goes once per link, and heartbeats
/// stay quiet for peers heard on the group (§6.3).
///
/// What it is for: the station's cost per input, measured apart from sockets and scheduling. `record(for:)` runs the
/// whole network and returns every input the station got, in order, with its time; fed in the same order to a copy of
/// the station as it was before (`station`, taken before the call), they make it do exactly the same work again
/// (the cores are deterministic values), as often as a benchmark or callgrind wants.
public struct StationTraffic {
    /// The fleet and network.
    public struct Spec: Sendable {
        /// Drones around the station.
        public var drones: Int
        /// Seeds node identities, keys and the nodes' random draws.
        public var seed: UInt64 = 1
        /// One-way delivery time of every datagram.
        public var latency: Duration = .microseconds(500)
        /// Every drone on the group channel with the station (one shared link), not only the station.
        public var group = false

        public init(drones: Int, seed: UInt64 = 1, group: Bool = false) {
            self.drones = drones
            self.seed = seed
            self.group = group
        }
    }

    /// One input of a node.
    public enum Input: Sendable {
        /// A datagram from the node at this address.
        case datagram([UInt8], from: Int)
        /// The mesh layer's 10 ms tick.
        case meshTick(wallClockMicros: UInt64)
        /// The coordinator's 50 ms tick (a drone's vehicle reports its state first).
        case coordinatorTick
    }

    /// An input of the station and when it came.
    public struct Recorded: Sendable {
        public var at: MeshInstant
        public var input: Input
    }

    private struct Event {
        var node: Int
        var input: Input
    }

    public let spec: Spec
    /// The station (node 0, address 0) as it stands now.
    public private(set) var station: NodeCore<Int>
    private var drones: [NodeCore<Int>] = []
    private var queue = EventQueue<Event>()
    public private(set) var now = MeshInstant(nanoseconds: 0)
    /// Datagrams the station sent to its group (heard by the drones only with `Spec.group`), for the figures.
    public private(set) var groupDatagrams = 0
    /// Datagrams the station sent to drones so far.
    public private(set) var stationDatagramsSent = 0
    /// Coordinator messages that did not decode (none, in a run that works).
    public private(set) var malformed: [String] = []
    private var recording: [Recorded]?

    /// A drone on the ground: what each vehicle stand-in reports.
    static let standing = VehicleState(position: GeoPoint(latitude: 50.0755, longitude: 14.4378, altitude: 0))

    /// Builds the fleet; nothing has run yet (`settle`).
    public init(spec: Spec) {
        self.spec = spec
        var rng = SeededRandom(seed: spec.seed)
        let key = try! MeshKey(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
        func node(_ i: Int) -> NodeCore<Int> {
            let id = NodeID(high: UInt64(i + 1) << 32, low: rng.next())
            let incarnation: Incarnation = rng.next()
            let role: NodeRole = i == 0 ? .station : .drone
            let mesh = MeshCore<Int>(
                key: key, localID: id, incarnation: incarnation, role: role, name: i == 0 ? "station" : "emu-\(i)",
                uavNumber: nil, group: i == 0 || spec.group ? GroupSettings() : nil,
                random: SeededRandom(seed: rng.next()))
            let coordinator = CoordinatorCore(
                configuration: CoordinatorConfiguration(nodeID: id, role: role, name: "n\(i)"),
                incarnation: incarnation, persistedUAVNumber: nil, now: MeshInstant(nanoseconds: 0))
            return NodeCore(mesh: mesh, coordinator: coordinator)
        }
        station = node(0)
        for i in 1...max(1, spec.drones) {
            var drone = node(i)
            drone.addStaticPeer(0)
            drones.append(drone)
        }
        // Each node's timers at a phase of its own, as separate processes have.
        for i in 0...drones.count {
            let phase = UInt64(i) * 9_973 % 10_000_000 + UInt64(i) * 7_919 % 1_000
            queue.push(Event(node: i, input: .meshTick(wallClockMicros: 0)), at: phase)
            queue.push(Event(node: i, input: .coordinatorTick), at: phase * 5 % 50_000_000)
        }
    }

    /// Drones whose telemetry the station holds and which is fresh.
    public var liveDrones: Int {
        station.coordinator.fleetPicture(now: now).filter { !$0.isStale && $0.uavNumber != nil }.count
    }

    /// Runs until every drone is live in the station's fleet picture with a UAV number of its own, then `margin`
    /// longer (so that every start-up exchange is over); false if that did not happen within `timeout`.
    public mutating func settle(timeout: Duration = .seconds(60), margin: Duration = .seconds(3)) -> Bool {
        let deadline = now + timeout
        while now < deadline {
            advance(to: now + .milliseconds(100))
            if liveDrones == drones.count {
                advance(to: now + margin)
                return true
            }
        }
        return false
    }

    /// Runs the whole network for `duration` and returns the station's inputs of that time, in order.
    public mutating func record(for duration: Duration) -> [Recorded] {
        recording = []
        advance(to: now + duration)
        defer { recording = nil }
        return recording!
    }

    /// Runs the whole network for `duration`.
    public mutating func run(for duration: Duration) {
        advance(to: now + duration)
    }

    /// Feeds one input to a node, as the node's actor would.
    public static func feed(_ input: Input, to node: inout NodeCore<Int>, now: MeshInstant) -> [NodeCore<Int>.Effect] {
        switch input {
        case .datagram(let bytes, let from):
            return node.onDatagram(bytes, from: from, now: now)
        case .meshTick(let wall):
            return node.onMeshTick(now: now, wallClockMicros: wall)
        case .coordinatorTick:
            var effects: [NodeCore<Int>.Effect] = []
            if node.coordinator.role == .drone {
                effects = node.withCoordinator(now: now) { $0.onLocalVehicleState(Self.standing, now: now) }
            }
            return effects + node.onCoordinatorTick(now: now)
        }
    }

    private mutating func advance(to end: MeshInstant) {
        while let t = queue.nextTime, t <= end.nanoseconds {
            let (time, event) = queue.pop()!
            now = MeshInstant(nanoseconds: time)
            let node = event.node
            var input = event.input
            switch input {
            case .meshTick:
                input = .meshTick(wallClockMicros: 1_800_000_000_000_000 + time / 1000)
                queue.push(Event(node: node, input: .meshTick(wallClockMicros: 0)), at: time + 10_000_000)
            case .coordinatorTick:
                queue.push(Event(node: node, input: .coordinatorTick), at: time + 50_000_000)
            case .datagram:
                break
            }
            let effects: [NodeCore<Int>.Effect]
            if node == 0 {
                recording?.append(Recorded(at: now, input: input))
                effects = Self.feed(input, to: &station, now: now)
            } else {
                effects = Self.feed(input, to: &drones[node - 1], now: now)
            }
            carry(effects, from: node)
        }
        now = end
    }

    private mutating func carry(_ effects: [NodeCore<Int>.Effect], from node: Int) {
        for e in effects {
            switch e {
            case .datagram(let bytes, let to):
                guard to >= 0, to <= drones.count else { continue }
                if node == 0 { stationDatagramsSent += 1 }
                queue.push(Event(node: to, input: .datagram(bytes, from: node)), at: (now + spec.latency).nanoseconds)
            case .groupDatagram(let bytes):
                if node == 0 { groupDatagrams += 1 }
                guard spec.group else { continue }
                let at = (now + spec.latency).nanoseconds
                if node == 0 {
                    for to in 1...drones.count { queue.push(Event(node: to, input: .datagram(bytes, from: 0)), at: at) }
                } else {
                    queue.push(Event(node: 0, input: .datagram(bytes, from: node)), at: at)
                }
            case .malformedMessage(let type, _, let from, let error):
                malformed.append("node \(node) could not decode type \(type) from \(from): \(error)")
            default:
                break
            }
        }
    }
}
