import Coordinator
import Membership
import MeshCore
import MeshTypes
import NIOCore
import SecureTransport

/// One node's whole protocol behaviour as one pure value: its mesh layer (`MeshCore`: sessions, membership, reliable
/// channels), its coordinator (`CoordinatorCore`: routing, UAV numbers, telemetry, commands, leases, failsafe), and
/// the rules between them. Events go in with the time (a datagram, a tick, a DNS-SD record, a vehicle report, an
/// operator's command); effects come out in order (datagrams to send, peer changes, the coordinator's directives for
/// the vehicle, the operator and the log).
///
/// The rules between the layers:
/// - the mesh layer's datagrams of one event leave before the coordinator's answers to it (see `carry`);
/// - a peer in session (`established` or `suspect`) is a coordinator neighbour; `lost` or `left` ends that;
/// - a mesh message of type 256 or above is a coordinator message; one that does not decode is reported
///   (`malformedMessage`) and dropped;
/// - the coordinator's sends go out on the peer's reliable channel or unreliably, as it asks; a scheduled command's
///   start time, an instant on this node's clock inside the coordinator, leaves on the receiving peer's clock;
/// - the coordinator's UAV number is the one the mesh layer shows in hellos and status.
///
/// The node's actor (`NodeShell` in the `Node` target) runs one over real sockets, Avahi and the vehicle;
/// `MeshSimulation`'s `LinkOutageSimulation` runs several on a virtual clock and network.
public struct NodeCore<Address: Hashable & Sendable>: Sendable {
    /// The mesh layer.
    public internal(set) var mesh: MeshCore<Address>
    /// The coordinator.
    public private(set) var coordinator: CoordinatorCore
    /// Peers the coordinator has as neighbours.
    public private(set) var neighbours: Set<NodeID> = []
    /// How long what this node forwards unreliably for other origins (floods by group, telemetry to a next hop)
    /// waits, at least, to leave packed with the rest forwarded meanwhile (PROTOCOL.md §7.2): a relay over a field
    /// forwards hundreds of messages a second, each a datagram of its own before. Each batch waits one, two or three
    /// times this (`hold`), so that neighbouring relays do not send at one instant. Zero: each leaves at once.
    public var forwardHold: Duration = .milliseconds(10)
    /// Forwarded floods waiting (`forwardHold`), forwarded telemetry waiting by next hop, and since when the first
    /// has waited.
    var heldForwards: [(type: UInt16, payload: [UInt8])] = []
    /// The floods among `heldForwards`, by origin and sequence: where each is, and which neighbours it is still for.
    var heldFloods: [HeldFloodKey: HeldFlood] = [:]
    /// Positions in `heldForwards` of floods every neighbour they were for has heard from other relays meanwhile.
    var prunedForwards: Set<Int> = []
    /// Floods this node held to forward and dropped: other relays had sent them to every neighbour they were for.
    public internal(set) var floodsPruned = 0
    var heldUnicast: [NodeID: [(type: UInt16, payload: [UInt8])]] = [:]
    var heldSince: MeshInstant?
    /// How long what is held now waits: `forwardHold` times one, two or three (`hold`).
    var heldFor: Duration = .zero
    /// When the first forward held since the last `takeMeshWakeHint` must leave.
    var heldWake: MeshInstant?

    /// What the shell (or a simulation) must do, in order.
    public enum Effect: Sendable {
        /// Send this datagram.
        case datagram([UInt8], to: Address)
        /// Send this datagram to the segment's group (link-local multicast).
        case groupDatagram([UInt8])
        /// A peer's state changed (for the log and status).
        case peerState(peer: NodeID, name: String?, from: PeerState?, to: PeerState)
        /// A datagram was refused (counted in the mesh layer; `log` says whether to log it).
        case rejected(Address, RejectionReason, log: Bool)
        /// A line for the log from the mesh layer.
        case note(MeshCore<Address>.NoteLevel, String)
        /// A coordinator message from `from` did not decode; it was dropped.
        case malformedMessage(type: UInt16, bytes: Int, from: NodeID, error: String)
        /// A node-layer message (type below 256) the mesh layer passed up: for the shell, if it knows the type.
        case nodeMessage(type: UInt16, payload: [UInt8], from: NodeID)
        /// One of the coordinator's directives other than sends: a command for the vehicle, an answer, a number
        /// change, a target, a log line.
        case coordinator(Directive)
    }

    /// A node of `mesh` and `coordinator`, which must be the same node (same id and incarnation).
    public init(mesh: MeshCore<Address>, coordinator: CoordinatorCore) {
        precondition(mesh.localID == coordinator.nodeID, "the mesh layer and the coordinator of one node")
        self.mesh = mesh
        self.coordinator = coordinator
        self.mesh.uavNumber = coordinator.uavNumber.map(Int.init)
    }

    /// What to call a node: its link-state advertisement's name, else the name its session or DNS-SD record gave
    /// (a neighbour whose advertisement has not arrived, or was withdrawn while its telemetry still comes), else nil.
    public func name(of node: NodeID) -> String? {
        if let n = coordinator.advertisement(of: node)?.name, !n.isEmpty { return n }
        if let n = mesh.membership.peers[node]?.name ?? mesh.membership.forgotten[node]?.name, !n.isEmpty { return n }
        return nil
    }

    // MARK: - Events

    /// A datagram from `address`.
    // The entry points the node (SocketAddress) and the simulations (Int) call are pre-specialised for both: the
    // generic code paid for metadata lookups and unspecialised dictionaries on every datagram and tick.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func onDatagram(
        _ bytes: [UInt8], from address: Address, now: MeshInstant, arrivedAt: MeshInstant? = nil
    ) -> [Effect] {
        carry(mesh.onDatagram(bytes, from: address, now: now, arrivedAt: arrivedAt), now: now)
    }

    /// The wall clock (microseconds since the Unix epoch) at `now`: give it before the first event
    /// (`MeshCore.noteWallClock`).
    public mutating func noteWallClock(_ micros: UInt64, now: MeshInstant) {
        mesh.noteWallClock(micros, now: now)
    }

    /// The mesh layer's timer (every 10 ms in the node).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func onMeshTick(now: MeshInstant, wallClockMicros: UInt64) -> [Effect] {
        // Held forwards first: their datagram is the one the mesh layer's presence would otherwise be.
        sendHeldForwards(now: now) + carry(mesh.onTick(now: now, wallClockMicros: wallClockMicros), now: now)
    }

    /// The earliest instant at which `onMeshTick` may have something to do (``MeshCore/nextDeadline(now:)``, or
    /// held forwards due).
    public func nextMeshDeadline(now: MeshInstant) -> MeshInstant? {
        let mesh = mesh.nextDeadline(now: now)
        guard let since = heldSince else { return mesh }
        return min(mesh ?? since + heldFor, since + heldFor)
    }

    /// The earliest deadline events scheduled since the last call (``MeshCore/takeWakeHint()``, or forwards held).
    public mutating func takeMeshWakeHint() -> MeshInstant? {
        let mesh = mesh.takeWakeHint()
        defer { heldWake = nil }
        guard let held = heldWake else { return mesh }
        return min(mesh ?? held, held)
    }

    /// The shell handled a datagram or a tick `delay` late (``MeshCore/onOwnDelay(_:now:)``).
    public mutating func onOwnDelay(_ delay: Duration, now: MeshInstant) { mesh.onOwnDelay(delay, now: now) }

    /// The coordinator's timer (every 50 ms in the node).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func onCoordinatorTick(now: MeshInstant) -> [Effect] {
        // A node that is behind publishes less (``PublicationPace``); the change is noted for the log.
        var notes: [Effect] = []
        if let change = coordinator.onLateness(mesh.ownLateness(now: now), now: now) {
            let c = coordinator.configuration
            let drone = c.role == .drone
            let text = change.text(
                telemetry: drone ? c.telemetryInterval : nil, prediction: drone ? c.predictionInterval : nil,
                linkState: c.linkStateMinInterval)
            notes.append(.note(change.to > change.from ? .warning : .notice, text))
        }
        return notes + perform(coordinator.onTick(now: now), now: now)
    }

    /// DNS-SD resolved a peer's record.
    public mutating func onDiscovered(
        id: NodeID, incarnation: Incarnation?, name: String?, role: NodeRole?, uavNumber: Int?, address: Address,
        now: MeshInstant
    ) -> [Effect] {
        carry(
            mesh.onDiscovered(
                id: id, incarnation: incarnation, name: name, role: role, uavNumber: uavNumber, address: address,
                now: now), now: now)
    }

    /// DNS-SD withdrew a peer's record.
    public mutating func onDiscoveryRemoved(id: NodeID, address: Address, now: MeshInstant) -> [Effect] {
        carry(mesh.onDiscoveryRemoved(id: id, address: address, now: now), now: now)
    }

    /// Anything else for the coordinator (a vehicle report, an operator's target, …): `body` calls the core and
    /// returns its directives, which are carried out like every other.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func withCoordinator(now: MeshInstant, _ body: (inout CoordinatorCore) -> [Directive]) -> [Effect] {
        let directives = body(&coordinator)
        return perform(directives, now: now)
    }

    /// An operator's command to a UAV number (with `takeover`, the drone's control lease moves to this station; with
    /// `start`, an instant on this node's clock, the drone starts it then); returns its id and the effects.
    public mutating func sendCommand(
        _ command: Command, toUAV number: UInt8, takeover: Bool = false, start: MeshInstant? = nil, now: MeshInstant
    ) -> (CommandID, [Effect]) {
        let (id, directives) = coordinator.sendCommand(
            command, toUAV: number, takeover: takeover, start: start, now: now)
        return (id, perform(directives, now: now))
    }

    /// A unicast address to keep connecting to (routed networks where mDNS does not pass).
    public mutating func addStaticPeer(_ address: Address) {
        mesh.addStaticPeer(address)
    }

    /// Tells every peer in session that this node leaves.
    public mutating func leave(now: MeshInstant) -> [Effect] {
        carry(mesh.leave(now: now), now: now)
    }

    /// Sends a node-layer message (a type below 256; 256 and above are the coordinator's) on the peer's reliable
    /// channel.
    public mutating func sendReliable(_ type: UInt16, _ payload: [UInt8], to peer: NodeID, now: MeshInstant)
        -> [Effect]
    {
        carry(mesh.sendReliable(type, payload, to: peer, now: now), now: now)
    }

    // MARK: - The rules between the layers

    /// Carries out the mesh layer's directives; what they do to the coordinator is carried out after them, in their
    /// order. The mesh layer's own datagrams of one event leave before anything the coordinator sends in answer to
    /// it: a new session's hello (the first message on its reliable channel) must not leave behind the coordinator's
    /// first messages on that channel, or the other side waits for the hello before it can deliver them, while an
    /// unreliable message sent after them overtakes them all.
    mutating func carry(_ directives: [MeshCore<Address>.Directive], now: MeshInstant) -> [Effect] {
        var effects: [Effect] = []
        var later: [MeshEventForCoordinator] = []
        for d in directives {
            switch d {
            case .send(let bytes, let to):
                effects.append(.datagram(bytes, to: to))
            case .sendGroup(let bytes):
                effects.append(.groupDatagram(bytes))
            case .peerState(let peer, let name, let from, let to):
                effects.append(.peerState(peer: peer, name: name, from: from, to: to))
                switch to {
                case .established, .suspect:
                    if neighbours.insert(peer).inserted { later.append(.up(peer)) }
                case .lost, .left:
                    if neighbours.remove(peer) != nil { later.append(.down(peer)) }
                case .discovered, .handshaking:
                    break
                }
            case .message(let type, let payload, let from, _):
                if type >= 256 {
                    later.append(.message(type, payload, from: from, viaGroup: false))
                } else {
                    effects.append(.nodeMessage(type: type, payload: payload, from: from))
                }
            case .groupMessage(let type, let payload, let from):
                if type >= 256 {
                    later.append(.message(type, payload, from: from, viaGroup: true))
                } else if type == OwnBroadcast.type, let incarnation = mesh.membership.peers[from]?.incarnation {
                    // The group datagram was checked to come from this incarnation of `from`.
                    do {
                        let (t, p) = try OwnBroadcast.expand(payload, origin: from, incarnation: incarnation)
                        later.append(.message(t, p, from: from, viaGroup: true))
                    } catch {
                        effects.append(
                            .malformedMessage(type: type, bytes: payload.count, from: from, error: "\(error)"))
                    }
                }
            case .rejected(let address, let reason, let log):
                effects.append(.rejected(address, reason, log: log))
            case .note(let level, let text):
                effects.append(.note(level, text))
            }
        }
        for work in later {
            switch work {
            case .up(let peer):
                effects += perform(coordinator.onNeighbourUp(peer, now: now), now: now)
            case .down(let peer):
                effects += perform(coordinator.onNeighbourDown(peer, now: now), now: now)
            case .message(let type, let payload, let from, let viaGroup):
                do {
                    let message = try CoordinatorMessage(type: type, payload: payload)
                    // A message for other nodes that came by group (builds before 2026-11-29 sent manual control to a
                    // neighbour that way) reached every node of the segment: those it does not name drop it.
                    if viaGroup, case .routed(let env, _) = message, !env.destination.includes(coordinator.nodeID) {
                        continue
                    }
                    effects += perform(coordinator.onMessage(message, from: from, now: now), now: now)
                } catch {
                    effects.append(.malformedMessage(type: type, bytes: payload.count, from: from, error: "\(error)"))
                }
            }
        }
        return effects
    }

    /// Carries out the coordinator's directives: sends through the mesh layer, the UAV number into it, the rest out.
    mutating func perform(_ directives: [Directive], now: MeshInstant) -> [Effect] {
        var effects: [Effect] = []
        // Unreliable messages for several neighbours that hear this node's group leave by group, after the rest,
        // packed together: one flood's copies once; telemetry for the stations next door once. A message for one
        // neighbour that is its destination (manual control to a drone next door) goes by unicast: by group every
        // node on the link would open it to drop it.
        var byGroup: [(type: UInt16, payload: [UInt8])] = []
        // The same, forwarded for other origins: held (`hold`), a flood with the neighbours it is addressed to.
        var forwarded: [(form: (type: UInt16, payload: [UInt8]), flood: HeldFloodKey?)] = []
        var addressed: [HeldFloodKey: Set<NodeID>] = [:]
        var grouped: Set<FloodCopy> = []
        var telemetryOnce: Set<NodeID> = []
        for d in directives {
            switch d {
            case .send(.routed(let env, .telemetry(let n, let s)), let to, .unreliable)
            where env.destination == .node(to) && mesh.reachesOverGroup(to, now: now):
                // Telemetry for stations next door: one copy, addressed to every node on the link for one hop (only
                // stations keep it), however many stations hear it.
                if telemetryOnce.insert(env.origin).inserted {
                    var once = env
                    once.destination = .broadcast
                    once.ttl = 1
                    let form = groupForm(.routed(once, .telemetry(uavNumber: n, state: s)))
                    if env.origin == coordinator.nodeID { byGroup.append(form) } else { forwarded.append((form, nil)) }
                }
            case .send(.routed(let env, .telemetry(let n, let s)), let to, .unreliable)
            where env.origin != coordinator.nodeID && forwardHold > .zero:
                // Another drone's telemetry on its way to a station further on: packed with the others to the same
                // next hop (over a field most of the unicast).
                hold(CoordinatorMessage.routed(env, .telemetry(uavNumber: n, state: s)).encode(), to: to, now: now)
            case .send(.routed(let env, let payload), let to, .unreliable)
            where env.destination == .broadcast && mesh.reachesOverGroup(to, now: now):
                let flood = HeldFloodKey(origin: env.origin, sequence: env.sequence)
                if env.origin != coordinator.nodeID { addressed[flood, default: []].insert(to) }
                if grouped.insert(FloodCopy(origin: env.origin, sequence: env.sequence, ttl: env.ttl)).inserted {
                    let form = groupForm(.routed(env, payload))
                    if env.origin == coordinator.nodeID {
                        byGroup.append(form)
                    } else {
                        forwarded.append((form, flood))
                    }
                }
            case .send(.linkState(let lsa), let to, .unreliable) where mesh.reachesOverGroup(to, now: now):
                // A refresh of an unchanged link-state advertisement: once for every neighbour on the link.
                if grouped.insert(FloodCopy(origin: lsa.origin, sequence: lsa.sequence, ttl: 0)).inserted {
                    let form = CoordinatorMessage.linkState(lsa).encode()
                    if lsa.origin == coordinator.nodeID { byGroup.append(form) } else { forwarded.append((form, nil)) }
                }
            case .send(.linkStateRefresh(let refresh), let to, .unreliable) where mesh.reachesOverGroup(to, now: now):
                // The same refresh without the advertisement's contents.
                if grouped.insert(FloodCopy(origin: refresh.origin, sequence: refresh.sequence, ttl: 0)).inserted {
                    let form = CoordinatorMessage.linkStateRefresh(refresh).encode()
                    if refresh.origin == coordinator.nodeID {
                        byGroup.append(form)
                    } else {
                        forwarded.append((form, nil))
                    }
                }
            case .send(.linkState(let lsa), let to, .reliable):
                // Only the newest advertisement of an origin matters: one still in flight to this neighbour, not yet
                // acknowledged, goes again (if it must) empty. Under load a window held many outdated copies.
                let (type, payload) = CoordinatorMessage.linkState(lsa).encode()
                let key = ReliableChannel.SupersedeKey(type: type, high: lsa.origin.high, low: lsa.origin.low)
                effects += carry(mesh.sendReliable(type, payload, to: to, now: now, supersedes: key), now: now)
            case .send(let message, let to, let reliability):
                // A scheduled command's start leaves on the receiver's clock (the mesh layer's estimate from
                // heartbeats); without an estimate the receiver is told the moment could not be carried.
                let outgoing =
                    message.carriesClockTime ? message.onClock(offset: mesh.clockOffset(of: to, now: now)) : message
                let (type, payload) = outgoing.encode()
                let out =
                    reliability == .reliable
                    ? mesh.sendReliable(type, payload, to: to, now: now)
                    : mesh.sendUnreliable(type, payload, to: to, now: now)
                effects += carry(out, now: now)
            case .uavNumberChanged(_, let to, _):
                mesh.uavNumber = to.map(Int.init)
                effects.append(.coordinator(d))
            case .floodRepeated(let origin, let sequence, let by):
                pruneHeldFlood(HeldFloodKey(origin: origin, sequence: sequence), heardFrom: by)
            default:
                effects.append(.coordinator(d))
            }
        }
        if forwardHold == .zero {
            byGroup += forwarded.map(\.form)
        } else {
            for f in forwarded { hold(f.form, flood: f.flood.map { ($0, addressed[$0] ?? []) }, now: now) }
        }
        if !byGroup.isEmpty {
            // Forwards held go with this node's own messages, in the same datagrams.
            if !heldForwards.isEmpty {
                byGroup += takeHeldForwards()
                if heldUnicast.isEmpty { heldSince = nil }
            }
            effects += carry(mesh.sendGroupUnreliable(byGroup, now: now), now: now)
        }
        return effects
    }
}

extension NodeCore {
    /// How a message goes in a group datagram: this node's own broadcasts without the envelope's origin and
    /// incarnation (`OwnBroadcast`), everything else as it is.
    func groupForm(_ message: CoordinatorMessage) -> (type: UInt16, payload: [UInt8]) {
        let (type, payload) = message.encode()
        guard case .routed(let env, _) = message, env.destination == .broadcast, env.origin == mesh.localID,
            env.originIncarnation == mesh.incarnation
        else { return (type, payload) }
        return (OwnBroadcast.type, OwnBroadcast.compact(type: type, payload: payload))
    }
}

/// One copy of a flood: its origin's message and the hops it has left.
private struct FloodCopy: Hashable {
    var origin: NodeID
    var sequence: UInt64
    var ttl: UInt8
}

/// What a mesh event asks of the coordinator, held until the mesh layer's own datagrams of the event are out.
private enum MeshEventForCoordinator {
    case up(NodeID)
    case down(NodeID)
    case message(UInt16, [UInt8], from: NodeID, viaGroup: Bool)
}

/// A flood held to be forwarded, by its origin and the origin's sequence number.
struct HeldFloodKey: Hashable {
    var origin: NodeID
    var sequence: UInt64
}

/// Where a held flood is in `NodeCore.heldForwards`, and the neighbours it is for that have not been heard served.
struct HeldFlood {
    var index: Int
    var unserved: Set<NodeID>
}
