import ControlProtocol
import Discovery
import Foundation
import Logging
import Membership
import MeshCore
import MeshTypes
import NIOCore
import NodeCore
import SecureTransport

/// The mesh side of the node's actor: the socket, DNS-SD records, the 10 ms tick, the node core's effects, status.
extension NodeShell {
    /// The TXT record this node publishes.
    public var advertisement: MeshAdvertisement {
        MeshAdvertisement(
            nodeID: nodeID, incarnation: incarnation, role: configuration.role, name: configuration.name,
            uavNumber: node.mesh.uavNumber, fingerprint: fingerprint)
    }

    /// The bound socket and the process's Avahi client; the configured static peers are dialled from now on.
    func attach(_ transport: UDPTransport, discovery: AvahiDiscovery?) {
        self.transport = transport
        self.discovery = discovery
        for text in configuration.staticPeers {
            guard let endpoint = PeerEndpoint(parsing: text), let address = try? endpoint.socketAddress() else {
                continue
            }
            node.addStaticPeer(address)
        }
    }

    /// The wall clock, microseconds since the Unix epoch.
    static var wallClockMicros: UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }

    // MARK: - Events in

    func receive(_ datagram: UDPTransport.Datagram) {
        // The group datagrams that came before it first: a station's target goes by group and the follow command
        // after it by unicast; handled the other way round, the drone would have no target to follow.
        receiveHeld()
        let t = now
        let waited = clock.now - datagram.arrivedAt
        noteOwnDelay(waited, now: t)
        apply(handle(datagram, waited: waited, now: t), now: t)
    }

    /// The group datagrams that arrived since the last look (`UDPTransport.takeHeld`), handled in one go with one
    /// batch of replies. Called at every mesh and coordinator tick and before every other datagram: a group datagram
    /// waits at most until the next of those (both ticks come at least every 50 ms), and wakes no thread of its own —
    /// on a link with N neighbours, most of what a node receives is their group datagrams. Their wait is not the node's
    /// lateness (the ticks measure that); it is counted in `groupWaits`.
    func receiveHeld() {
        guard let held = transport?.takeHeld(), !held.isEmpty else { return }
        let t = now
        let reading = clock.now
        var effects: [NodeCore<SocketAddress>.Effect] = []
        for datagram in held {
            let waited = reading - datagram.arrivedAt
            groupWaits.record(waited)
            effects += handle(datagram, waited: waited, now: t)
        }
        apply(effects, now: t)
    }

    /// One datagram through the node core: counted, then handled with the instant it was read from the socket.
    private func handle(
        _ datagram: UDPTransport.Datagram, waited: Duration, now t: MeshInstant
    ) -> [NodeCore<SocketAddress>.Effect] {
        traffic.received(datagram.bytes.count, now: t)
        tally.received(datagram.bytes)
        let arrived = waited > .zero && waited < t - MeshInstant(nanoseconds: 0) ? t - waited : t
        return node.onDatagram(datagram.bytes, from: datagram.from, now: t, arrivedAt: arrived)
    }

    /// The mesh layer's timer: handshakes, heartbeats, suspicion and loss, probes, retransmissions. `due`: the
    /// instant it was scheduled for. Returns when the next is due: the core's next deadline, but at least
    /// `NodeTickService.meshShortest` after `due` and at most `meshLongest` (an event may bring it forward:
    /// `MeshAlarm`).
    func meshTick(due: ContinuousClock.Instant) -> ContinuousClock.Instant {
        let late = clock.now - due
        inMeshTick = true
        receiveHeld()  // before the tick's checks: what was heard counts
        let t = now
        noteOwnDelay(late, now: t)
        meshTicks &+= 1
        apply(node.onMeshTick(now: t, wallClockMicros: Self.wallClockMicros), now: t)
        inMeshTick = false
        _ = node.takeMeshWakeHint()  // the deadline below covers what the tick scheduled
        let start = clock.now
        // At least `meshShortest` after this tick ends, even when it ran late or something is overdue: a node behind
        // does not tick back to back (as in `Clock.every`), and events do not bring the next one closer than that
        // either (`bringMeshTickForward`): at most 100 ticks a second, as before.
        let shortest = start.advanced(by: NodeTickService.meshShortest)
        meshTickNotBefore = shortest
        let longest = start.advanced(by: NodeTickService.meshLongest)
        guard let next = node.nextMeshDeadline(now: t) else { return longest }
        return min(max(instant(of: next), shortest), longest)
    }

    /// The same moment on the shell's clock.
    func instant(of t: MeshInstant) -> ContinuousClock.Instant {
        started.advanced(by: .nanoseconds(Int64(clamping: t.nanoseconds)))
    }

    /// The mesh layer's alarm (`NodeTickService`): events that schedule something sooner bring it forward.
    func attach(meshAlarm: MeshAlarm) {
        self.meshAlarm = meshAlarm
    }

    /// After an event: wakes the mesh tick sooner if the event scheduled something before it.
    func bringMeshTickForward() {
        guard !inMeshTick, let hint = node.takeMeshWakeHint(), let meshAlarm else { return }
        let at = max(instant(of: hint), meshTickNotBefore)
        meshAlarm.bringForward(to: NIODeadline.now() + TimeAmount(clock.now.duration(to: at)))
    }

    /// Tells the core how late a datagram or tick was handled; a delay of 250 ms or more is logged (at most every 10 s):
    /// the node is short of CPU, and judges its peers' silence that much more leniently.
    func noteOwnDelay(_ delay: Duration, now t: MeshInstant) {
        guard delay >= .milliseconds(1) else { return }
        node.onOwnDelay(delay, now: t)
        guard delay >= .milliseconds(250), lateWarnedAt.map({ t - $0 >= .seconds(10) }) ?? true else { return }
        lateWarnedAt = t
        let ms = Int(delay.wholeNanoseconds / 1_000_000)
        let stale = node.mesh.rejections[MeshCore<SocketAddress>.staleCategory] ?? 0
        let dropped =
            stale == 0
            ? ""
            : "; \(stale) datagrams in all waited over \(MeshCore<SocketAddress>.staleDatagramAge) and were dropped unread"
        logger.warning(
            "this node handles datagrams and timers \(ms) ms late (short of CPU): it allows its peers that much more silence before it suspects them (at most \(OwnDelay.limit.wholeNanoseconds / 1_000_000) ms)\(dropped)"
        )
    }

    /// Datagrams that reached this node but were never read (the socket's receive buffer, or the queue to this actor,
    /// was full): the silence they can have made counts as the node's own lateness (``UnreadDatagrams``). Logged at
    /// most every 10 s, with what to do about a buffer the system keeps small.
    func noteUnreadDatagrams(now t: MeshInstant) {
        guard let transport else { return }
        let buffer = transport.receiveBuffer
        // Only a new reading counts (the tick runs more often than the kernel's figures are read).
        guard let silence = unreadDatagrams.onCount(buffer.drops, reading: buffer.readings, now: t) else { return }
        node.onOwnDelay(silence, now: t)
        let total = buffer.drops
        guard unreadWarned.map({ t - $0.at >= .seconds(10) }) ?? true else { return }
        let since = total - (unreadWarned?.total ?? 0)
        unreadWarned = (t, total)
        let size = buffer.capacity.map { "\($0 / 1024) KiB" } ?? "of unknown size"
        logger.warning(
            "\(since) datagrams reached this node but were never read (in all: \(buffer.kernelDrops) dropped by the kernel, the socket's receive buffer \(size) full; \(buffer.queueDrops) by the node's queue): it is short of CPU, and allows its peers up to \(min(silence, OwnDelay.limit).wholeNanoseconds / 1_000_000) ms more silence before it suspects them"
        )
    }

    /// Tells every peer in session that this node is leaving (twice, against loss), so they see it go at once.
    func leave() {
        let t = now
        apply(node.leave(now: t), now: t)
    }

    func discovered(_ event: DiscoveryEvent) {
        let t = now
        switch event {
        case .daemonAvailable:
            avahiState = "running"
            logger.info("avahi-daemon available")
        case .daemonUnavailable(let reason):
            if avahiState == "running" { metrics.avahiLost() }
            if avahiState != reason {
                logger.warning("avahi-daemon unavailable: \(reason); discovery paused, sessions continue")
            }
            avahiState = reason
            publishedName = nil
            foundRecords.removeAll()  // browsing starts over when the daemon is back
        case .published(let name):
            publishedName = name
            recordPublished = true
            logger.info("published \(NodeConfiguration.serviceType) as '\(name)'")
            refreshTXT()
        case .renamed(let from, let to):
            logger.notice("service name '\(from)' is taken on the link; using '\(to)'")
        case .publishFailed(let reason), .lookupFailed(let reason):
            logger.error("avahi: \(reason)")
        case .found(let key):
            // Only reported to be resolved later when the node has a group channel (otherwise resolved at once).
            if configuration.usesGroup, discoveryKeys[key] == nil, foundRecords.since[key] == nil {
                logger.debug("DNS-SD record '\(key.name)' found (\(key))")
                foundRecords.found(key, now: t)
            }
        case .resolved(let record):
            foundRecords.forget(record.key)
            resolved(record, now: t)
        case .removed(let key):
            foundRecords.forget(key)
            if let (id, address) = discoveryKeys.removeValue(forKey: key) {
                logger.debug("DNS-SD record of \(id) on \(key) removed")
                apply(node.onDiscoveryRemoved(id: id, address: address, now: t), now: t)
            }
        }
    }

    private func resolved(_ record: ServiceRecord, now t: MeshInstant) {
        let ad: MeshAdvertisement
        do {
            ad = try MeshAdvertisement(txt: record.txt)
        } catch {
            logger.debug("ignoring \(record.key): \(error)")
            return
        }
        guard ad.nodeID != nodeID else { return }
        guard ad.fingerprint == fingerprint else {
            logger.debug(
                "ignoring '\(ad.name)' (\(ad.nodeID)): it belongs to another mesh (fingerprint \(ad.fingerprint))")
            return
        }
        let scope = record.isLinkLocal ? String(record.key.interfaceIndex) : nil
        guard
            let address = try? PeerEndpoint(host: record.address, port: Int(record.port), scope: scope).socketAddress()
        else { return }
        discoveryKeys[record.key] = (ad.nodeID, address)
        logger.debug("DNS-SD record of '\(ad.name)' (\(ad.nodeID)) resolved: \(address)")
        apply(
            node.onDiscovered(
                id: ad.nodeID, incarnation: ad.incarnation, name: ad.name, role: ad.role,
                uavNumber: ad.uavNumber, address: address, now: t), now: t)
        // Followed only while the peer is lost (`followLostPeers`): once is enough to dial it.
        if node.mesh.membership.peers[ad.nodeID]?.state != .lost { discovery?.stopResolving(record.key) }
    }

    /// A peer lost this long has its DNS-SD records resolved afresh and followed (`followLostPeers`): it may have
    /// come back at another address. Not at once: in a fleet short of CPU peers flap, and a fresh resolver for every
    /// loss had every avahi-daemon answer queries for all of them, feeding the shortage (BENCHMARKS §10.8).
    static let followLostAfter: Duration = .seconds(5)
    /// A peer's records are resolved afresh at most this often.
    static let followLostInterval: Duration = .seconds(30)

    /// A peer's DNS-SD records are resolved once when they appear, which is enough to dial it, and followed (an open
    /// resolver: Avahi reports a changed address or TXT record) only while the peer has been lost for a while. In
    /// session, the session carries what changes (liveness, roaming, UAV numbers), and each open resolver costs every
    /// avahi-daemon on the link queries and answers at growing intervals: for a whole fleet's records, work in
    /// proportion to N² for every daemon. Called from the shell's tick; looks once a second.
    func followLostPeers(now t: MeshInstant) {
        guard let discovery, !discoveryKeys.isEmpty, t - lostPeersCheckedAt >= .seconds(1) else { return }
        lostPeersCheckedAt = t
        for (id, peer) in node.mesh.membership.peers where peer.state == .lost {
            guard t - peer.stateSince >= Self.followLostAfter,
                recordsResolvedAgainAt[id].map({ t - $0 >= Self.followLostInterval }) ?? true
            else { continue }
            recordsResolvedAgainAt[id] = t
            logger.debug(
                "following the DNS-SD records of '\(peer.name ?? id.short)' (\(id)) again: lost for \(Self.followLostAfter)"
            )
            for (key, known) in discoveryKeys where known.id == id { discovery.resolve(key) }
        }
    }

    /// Resolves the browsed records `FoundRecords` says are due (with a group channel, PROTOCOL §1.3). Called from the
    /// shell's tick; looks once a second.
    func resolveFoundRecords(now t: MeshInstant) {
        guard let discovery, foundRecords.isCheckDue(now: t) else { return }
        var known: [String: FoundRecords.KnownPeer] = [:]
        for peer in node.mesh.membership.peers.values {
            if let name = peer.name { known[name] = .init(lostSince: peer.state == .lost ? peer.stateSince : nil) }
        }
        let due = foundRecords.due(
            now: t, known: known, hearsGroup: node.mesh.peersHeardByGroup > 0, ownName: publishedName)
        for (key, reason) in due {
            switch reason {
            case .lost:
                logger.debug("following the DNS-SD records of '\(key.name)' again: lost for \(FoundRecords.lostFor)")
            case .unknown(let after):
                logger.debug("resolving the DNS-SD record '\(key.name)': no peer of that name known after \(after)")
            }
            discovery.resolve(key)
        }
    }

    /// The peer is in session again: its records are no longer followed.
    func stopFollowingRecords(of peer: NodeID) {
        guard let discovery else { return }
        for (key, known) in discoveryKeys where known.id == peer { discovery.stopResolving(key) }
    }

    /// Brings the published TXT record up to date with the node's advertisement (its UAV number).
    func refreshTXT() {
        guard configuration.advertise else { return }
        discovery?.updateTXT(type: NodeConfiguration.serviceType, advertisement.txt)
    }

    // MARK: - Effects out

    /// Carries out the node core's effects in order: datagrams on the socket, peer changes and refusals in the log,
    /// the coordinator's directives.
    func apply(_ effects: [NodeCore<SocketAddress>.Effect], now t: MeshInstant) {
        bringMeshTickForward()
        // What goes on the socket leaves in one batch, one task for the socket's event loop (a wake-up of its thread)
        // at the end, not one per datagram and another for the flush.
        var outgoing: [UDPTransport.Outgoing] = []
        for e in effects {
            switch e {
            case .datagram(let bytes, let to):
                outgoing.append(.unicast(bytes, to: to))
                traffic.sent(bytes.count, now: t)
                tally.sent(bytes)
            case .groupDatagram(let bytes):
                outgoing.append(.group(bytes))
                let copies = transport?.groupCopies ?? 0
                for _ in 0..<copies { traffic.sent(bytes.count, now: t) }
                tally.sent(bytes, copies: copies)
            case .peerState(let peer, let name, let from, let to):
                let label = name ?? peer.short
                let line = "peer \(label) (\(peer)) \(from?.rawValue ?? "new") → \(to.rawValue)"
                event(to == .lost || to == .left ? .notice : .info, "peer", line, about: peer)
                if to == .established { stopFollowingRecords(of: peer) }
            case .rejected(let address, let reason, let log):
                guard log else { continue }
                if case .unknownReceiverIndex = reason {
                    // Normal right after a peer restarts or leaves: its last datagrams name a forgotten session.
                    logger.debug("dropped datagram from \(address.displayString): \(reason)")
                } else {
                    logger.warning("refused datagram from \(address.displayString): \(reason)")
                }
            case .note(let level, let text):
                logger.log(level: Logger.Level(rawValue: level.rawValue) ?? .info, "\(text)")
            case .malformedMessage(let type, let bytes, let from, let error):
                metrics.malformedMessage()
                // One line per peer per 5 s: a misbehaving peer must not flood the log.
                if malformedLoggedAt[from].map({ t - $0 >= .seconds(5) }) ?? true {
                    malformedLoggedAt[from] = t
                    logger.warning(
                        "dropped malformed coordinator message type 0x\(String(type, radix: 16, uppercase: true)) (\(bytes) bytes) from \(from): \(error)"
                    )
                }
            case .nodeMessage(let type, _, let from):
                // Type 0 is a reliable message that a newer one superseded, sent again empty (PROTOCOL.md §5.2).
                if type != 0 { logger.debug("ignoring reserved node-layer message type \(type) from \(from)") }
            case .coordinator(let d):
                // What it does may send too (through another `apply`): what this one queued leaves first.
                if !outgoing.isEmpty {
                    transport?.send(outgoing)
                    outgoing.removeAll()
                }
                perform(d, now: t)
            }
        }
        transport?.send(outgoing)
    }

    // MARK: - Status

    /// The mesh socket's traffic for `status`.
    func trafficReport(now t: MeshInstant) -> NodeStatus.Traffic {
        let r = traffic.rates(now: t)
        let receive = transport?.receiveBuffer
        return NodeStatus.Traffic(
            bytesInPerSecond: r.bytesIn, bytesOutPerSecond: r.bytesOut, datagramsInPerSecond: r.datagramsIn,
            datagramsOutPerSecond: r.datagramsOut, bytesIn: traffic.bytesIn, bytesOut: traffic.bytesOut,
            datagramsIn: traffic.datagramsIn, datagramsOut: traffic.datagramsOut,
            droppedByKernel: receive.map { Int($0.kernelDrops) }, droppedByQueue: receive.map { Int($0.queueDrops) },
            receiveBuffer: receive?.capacity,
            publicationPace: node.coordinator.pace.level.description)
    }

    /// The ground-control endpoint's state, for `status` and the dashboard's `/readyz`.
    func noteGroundControl(_ state: String) { groundControlState = state }

    /// The mesh layer's handshake problems (`MeshCore.handshakeProblems`), as `status` shows them.
    func handshakeProblems(now t: MeshInstant) -> [NodeStatus.HandshakeProblem] {
        node.mesh.handshakeProblems(now: t).map { address, p in
            NodeStatus.HandshakeProblem(
                address: address.displayString, problem: p.problem, category: p.category,
                msAgo: Int((t - p.at).wholeNanoseconds / 1_000_000), count: p.count)
        }
    }

    /// This node and every peer, for `fleetmesh status`: sessions from the mesh layer, UAV numbers, hops, relayed
    /// nodes and the map origin from the coordinator.
    public func status() -> NodeStatus {
        let t = now
        let mesh = node.mesh
        let local = NodeStatus.LocalNode(
            id: nodeID.hex, name: configuration.name, publishedName: publishedName, role: configuration.role.rawValue,
            uavNumber: mesh.uavNumber, incarnation: String(incarnation, radix: 16), port: transport?.port ?? 0,
            fingerprint: fingerprint, uptimeMs: Int((t.nanoseconds) / 1_000_000), avahi: avahiState,
            rejections: mesh.rejections, groundControl: groundControlState, traffic: trafficReport(now: t),
            handshakeProblems: handshakeProblems(now: t))
        let all = mesh.membership.peers.values.sorted { $0.id < $1.id }
        let peers = all.filter(\.isAuthenticated).map { p in
            NodeStatus.Peer(
                id: p.id.hex, name: p.name, role: p.role?.rawValue, uavNumber: p.uavNumber,
                address: (p.address ?? p.candidates.first)?.displayString, state: p.state.rawValue, hops: 1,
                incarnation: p.incarnation.map { String($0, radix: 16) },
                lastHeardMsAgo: p.lastHeard.map { Int((t - $0).wholeNanoseconds / 1_000_000) },
                rttMs: p.rtt.map { $0.secondsDouble * 1000 }, linkQuality: mesh.linkQuality(of: p.id, now: t),
                discoveredAtMs: mesh.firstSeen[p.id].map { Int($0.nanoseconds / 1_000_000) },
                establishedAtMs: mesh.firstEstablished[p.id].map { Int($0.nanoseconds / 1_000_000) },
                stateSinceMs: Int(p.stateSince.nanoseconds / 1_000_000))
        }
        let held = Set(peers.compactMap(\.name))
        let unverified = all.filter { !$0.isAuthenticated }.map { p in
            NodeStatus.UnverifiedAdvert(
                claimedID: p.id.hex, claimedName: p.name.flatMap { held.contains($0) ? nil : $0 },
                address: p.candidates.first?.displayString, state: p.state.rawValue,
                seenForMs: Int((t - (mesh.firstSeen[p.id] ?? t)).wholeNanoseconds / 1_000_000))
        }
        return annotate(NodeStatus(node: local, peers: peers, unverified: unverified))
    }
}
