import Membership
import MeshTypes
import NIOCore
import SecureTransport

/// How a node uses its segment's group channel (`GroupChannel`, link-local multicast): one transmission reaches every
/// neighbour on the link, where unicast costs one per peer (PROTOCOL.md §2.6).
public struct GroupSettings: Sendable, Equatable {
    /// A group datagram leaves at least this often while the node has peers in session (a presence datagram when
    /// nothing else went to the group): it is what the neighbours hear of this node instead of unicast heartbeats.
    /// 110 ms, a mesh tick more than the coordinator's 100 ms rhythm: a prediction due in the same tick as a presence
    /// carries it, so a flying drone sends 10 group datagrams a second, not 15.
    public var presenceInterval: Duration
    /// While no peer is in session (a node just started, or one that lost every peer), a presence datagram leaves this
    /// often: a neighbour that hears it dials this node at once (discovery by group), so a fleet started together
    /// forms without waiting for Avahi to resolve anyone's record. `nil`: a node alone stays silent on the group.
    public var lonePresenceInterval: Duration?
    /// A peer heard on the group within this long gets no unicast heartbeats, and this node's floods reach it by
    /// group. Longer silence (a lost group datagram, a link where multicast does not pass, a peer that does not
    /// speak the group) brings back unicast heartbeats, and unicast floods, to that peer alone.
    public var freshness: Duration
    /// Each peer's group stamp is echoed (its round trip and clock samples) at most this often.
    public var echoInterval: Duration
    /// Echoes one group datagram carries at most.
    public var echoesPerDatagram: Int

    public init(
        presenceInterval: Duration = .milliseconds(110), lonePresenceInterval: Duration? = .milliseconds(500),
        freshness: Duration = .milliseconds(200), echoInterval: Duration = .milliseconds(500),
        echoesPerDatagram: Int = 1
    ) {
        self.presenceInterval = presenceInterval
        self.lonePresenceInterval = lonePresenceInterval
        self.freshness = freshness
        self.echoInterval = echoInterval
        self.echoesPerDatagram = echoesPerDatagram
    }
}

/// The mesh layer's group state: the channel, what was heard from whom, and what was echoed.
struct GroupState: Sendable {
    struct Stamp: Sendable {
        var sentAtMicros: UInt64
        var at: MeshInstant
    }

    var channel: GroupChannel
    let settings: GroupSettings
    /// When each peer was last heard on the group.
    var heard: [NodeID: MeshInstant] = [:]
    /// Each peer's latest group stamp, to echo.
    var stamps: [NodeID: Stamp] = [:]
    /// When each peer's stamp was last echoed.
    var echoed: [NodeID: MeshInstant] = [:]
    /// The share of each peer's group datagrams that arrived lately, from their counters.
    var delivery: [NodeID: DeliveryRatio] = [:]
    var lastSent: MeshInstant?
    var counter: UInt32 = 0
    var lastRejectionLog: MeshInstant?

    mutating func forget(_ peer: NodeID) {
        heard[peer] = nil
        stamps[peer] = nil
        echoed[peer] = nil
        delivery[peer] = nil
    }

    /// Up to `echoesPerDatagram` echoes of stamps heard within the last second, the longest unechoed first (ties: the
    /// smaller ID).
    mutating func echoes(now: MeshInstant) -> [Frame] {
        let limit = settings.echoesPerDatagram
        guard limit > 0 else { return [] }
        // One pass, keeping the `limit` best in order: a station hears a hundred stamps and echoes one per datagram,
        // so neither a filtered copy of the table nor a sort of it.
        let second: Int64 = 1_000_000_000
        let interval = Int64(settings.echoInterval.wholeNanoseconds)
        var chosen: [(echoed: UInt64, id: NodeID)] = []
        for (id, stamp) in stamps where Int64(bitPattern: now.nanoseconds &- stamp.at.nanoseconds) < second {
            let last = echoed[id]
            if let last, Int64(bitPattern: now.nanoseconds &- last.nanoseconds) < interval { continue }
            let key = (echoed: last?.nanoseconds ?? 0, id: id)
            if chosen.count == limit, let worst = chosen.last, !((key.echoed, key.id) < (worst.echoed, worst.id)) {
                continue
            }
            let at = chosen.firstIndex { (key.echoed, key.id) < ($0.echoed, $0.id) } ?? chosen.count
            chosen.insert(key, at: at)
            if chosen.count > limit { chosen.removeLast() }
        }
        return chosen.map { id in
            echoed[id.id] = now
            let stamp = stamps[id.id]!
            let held = UInt32(clamping: (now - stamp.at).wholeNanoseconds / 1000)
            return .echo(peer: id.id, sentAtMicros: stamp.sentAtMicros, heldMicros: held)
        }
    }
}

extension MeshCore {
    /// How well `peer`'s datagrams reach this node, 0…1, as `fleetmesh status` shows it: while the peer is heard on
    /// the group (within the last second), the share of its group datagrams that arrived lately (``DeliveryRatio``,
    /// from their counters); else the share of unicast heartbeats that asked for a reply and got one
    /// (`PeerRecord.linkQuality`, since the session began: the group carries no such heartbeats).
    public func linkQuality(of peer: NodeID, now: MeshInstant) -> Double? {
        if let g = group, let heard = g.heard[peer], now - heard < .seconds(1), let ratio = g.delivery[peer]?.ratio {
            return ratio
        }
        return membership.peers[peer]?.linkQuality
    }

    /// Whether a message for `peer` can go by group: the group is on and `peer`, in session, was heard on it lately.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public func reachesOverGroup(_ peer: NodeID, now: MeshInstant) -> Bool {
        guard let group, let heard = group.heard[peer], now - heard < group.settings.freshness else { return false }
        return Self.inSession(membership.peers[peer]?.state)
    }

    /// Sends messages without delivery guarantee once to every neighbour on the segment, packed into as few group
    /// datagrams as fit. Nothing happens without a group channel.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func sendGroupUnreliable(_ messages: [(type: UInt16, payload: [UInt8])], now: MeshInstant)
        -> [Directive]
    {
        var out: [Directive] = []
        sendGroup(messages.map { .unreliable(type: $0.type, payload: $0.payload) }, now: now, into: &out)
        return out
    }

    /// Seals frames for the group: a stamp (a `heartbeat` frame with this node's clock) or a due echo leads the
    /// first datagram; the frames follow, split over more datagrams where they do not fit.
    mutating func sendGroup(_ frames: [Frame], now t: MeshInstant, into out: inout [Directive]) {
        // `group!` throughout, never a copy taken out: a copy shares the channel's replay windows and tables, and
        // writing to it copies them all.
        guard group != nil else { return }
        group!.counter &+= 1
        let counter = group!.counter
        // The stamp rides in every other datagram (and in every one without other frames), an echo in the others:
        // clocks and round trips change slowly, and each costs 15 or 31 bytes.
        var batch: [Frame] = []
        if counter % 2 == 1 || frames.isEmpty {
            batch.append(.heartbeat(id: counter, sentAtMicros: t.nanoseconds / 1000))
        }
        if counter % 2 == 0 { batch += group!.echoes(now: t) }
        var size = batch.reduce(0) { $0 + $1.encodedSize }
        func flush() {
            guard !batch.isEmpty, let plaintext = try? Frame.encode(batch) else { return }
            out.append(.sendGroup(group!.channel.seal(plaintext)))
            batch.removeAll()
            size = 0
        }
        for frame in frames {
            if size + frame.encodedSize > Self.datagramBudget { flush() }
            batch.append(frame)
            size += frame.encodedSize
        }
        flush()
        group!.lastSent = t
    }

    /// How many peers this node has heard on the group channel (and not forgotten): none means the group brings it
    /// nobody, and DNS-SD is its way to find peers.
    public var peersHeardByGroup: Int { group?.heard.count ?? 0 }

    /// When the group is due a presence from this node: after `presenceInterval` with the stamp while some peer is
    /// in session, after `lonePresenceInterval` empty (`alone`) while none is; nil: none is due (no group, leaving,
    /// or silent alone).
    var groupPresence: (interval: Duration, alone: Bool)? {
        guard let group, !leaving else { return nil }
        if membership.peers.values.contains(where: { Self.inSession($0.state) }) {
            return (group.settings.presenceInterval, false)
        }
        return group.settings.lonePresenceInterval.map { ($0, true) }
    }

    /// A presence datagram when nothing went to the group for `groupPresence`'s interval.
    mutating func groupTick(now t: MeshInstant, into out: inout [Directive]) {
        guard let presence = groupPresence else { return }
        if let last = group?.lastSent, t - last < presence.interval { return }
        if presence.alone {
            group!.counter &+= 1
            out.append(.sendGroup(group!.channel.seal([])))
            group!.lastSent = t
        } else {
            sendGroup([], now: t, into: &out)
        }
    }

    /// A group datagram from the socket. Heard only from a peer in session, in the incarnation the session knows (the
    /// group's keys prove mesh membership; which incarnation is current, only the session does): a lost peer comes
    /// back through a handshake, never through the group alone. One from a node this node has no record of is a
    /// discovery: the sender is dialled at the datagram's source.
    mutating func onGroupDatagram(
        _ bytes: [UInt8], from address: Address, now t: MeshInstant, into out: inout [Directive]
    ) {
        guard group != nil else {
            out.append(.note(.debug, "group datagram from \(address) while the group channel is off"))
            return
        }
        let opened = group!.channel.open(bytes)
        let message: GroupChannel.Message
        switch opened {
        case .success(let m): message = m
        case .failure(.own): return
        case .failure(let why):
            let category: String =
                switch why {
                case .malformed: "groupMalformed"
                case .badTag: "groupBadTag"
                case .replayed: "groupReplayed"
                case .own: "groupOwn"
                }
            rejections[category, default: 0] += 1
            logGroupRefusal("\(why)", now: t, into: &out)
            return
        }
        let peer = message.sender
        if membership.peers[peer] == nil, membership.forgotten[peer] == nil {
            // A node of this mesh (only key holders seal group datagrams) never discovered: it is dialled at the
            // datagram's source, its unicast socket, as if its DNS-SD record had been resolved. A fleet started at
            // once learns every node that has a session within one presence interval, instead of waiting for each
            // of its N² records to resolve. Only for a peer with no record at all: one handshake, not one per datagram.
            out += onDiscovered(
                id: peer, incarnation: message.incarnation, name: nil, role: nil, uavNumber: nil, address: address,
                now: t)
            return
        }
        // A lone presence (no frames at all) says its sender has no session with anyone: it does not hear this node,
        // so it is never counted as heard (a drone behind a firewall that drops what comes in would otherwise stay in
        // session forever at the station that hears it).
        guard Self.inSession(membership.peers[peer]?.state),
            membership.peers[peer]?.incarnation == message.incarnation, !message.plaintext.isEmpty
        else {
            // Normal while sessions form (the group is heard before the handshake completes) and after a restart:
            // not counted as a refusal.
            logGroupRefusal(
                message.plaintext.isEmpty
                    ? "lone presence from \(peer.short) (it has no session with anyone): not counted as heard"
                    : "group datagram from \(peer.short), which is not in session in that incarnation", now: t,
                into: &out)
            // A lost peer heard again: its link may be back, probed now rather than at its next probe step.
            apply(membership.onHeardOutOfSession(id: peer, address: address, now: t), now: t, into: &out)
            return
        }
        let frames: [Frame]
        do {
            frames = try Frame.decodeAll(message.plaintext)
        } catch {
            rejections["groupMalformed", default: 0] += 1
            logGroupRefusal("malformed frames in a group datagram from \(peer.short): \(error)", now: t, into: &out)
            return
        }
        group?.heard[peer] = t
        group?.delivery[peer, default: DeliveryRatio()].onReceived(message.counter)
        apply(membership.onHeard(id: peer, now: t), now: t, into: &out)
        apply(endpoint.heardElsewhere(peer, now: t), now: t, into: &out)
        for frame in frames {
            switch frame {
            case .heartbeat(_, let sent):
                group?.stamps[peer] = GroupState.Stamp(sentAtMicros: sent, at: arrival ?? t)
                clocks[peer, default: PeerClock()].onHeartbeat(sentAtMicros: sent, now: arrival ?? t)
            case .echo(let echoed, let sent, let held) where echoed == localID:
                let rtt = Duration.microseconds(
                    Int64((arrival ?? t).nanoseconds / 1000) - Int64(sent) - Int64(held))
                if rtt >= .zero {
                    membership.onRoundTrip(id: peer, rtt: rtt, now: t)
                    roundTrips.record(rtt)
                    clocks[peer, default: PeerClock()].onRoundTrip(rtt, now: t)
                }
                // The peer hears us again. After a one-way outage its acknowledgements may still wait in its kernel
                // (its neighbour entry for us failed while it heard nothing: up to 1 s), while what we sent into the
                // outage holds back, in order, all we send after it: that goes now, not at the next backoff.
                resumeChannel(with: peer, .heard, now: t, into: &out)
            case .unreliable(let type, let payload):
                out.append(.groupMessage(type: type, payload: payload, from: peer))
            default:
                // Echoes for others; kinds that belong to sessions (reliable, acks, goodbyes) never come by group.
                break
            }
        }
    }

    private mutating func logGroupRefusal(_ text: String, now t: MeshInstant, into out: inout [Directive]) {
        // One line per 5 s: a flood of junk must not flood the log.
        if group?.lastRejectionLog.map({ t - $0 >= .seconds(5) }) ?? true {
            group?.lastRejectionLog = t
            out.append(.note(.debug, "group datagram refused: \(text)"))
        }
    }
}
