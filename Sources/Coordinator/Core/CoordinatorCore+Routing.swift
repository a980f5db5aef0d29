import MeshTypes

extension CoordinatorCore {
    /// The neighbour layer opened a session with `peer`. The core floods its own advertisement with the new neighbour
    /// (at once, unless one left within `linkStateMinInterval`: then with the next) and sends `peer` a summary of its
    /// link-state database (`LinkStateSummary`).
    public mutating func onNeighbourUp(_ peer: NodeID, now: MeshInstant) -> [Directive] {
        guard peer != nodeID, !neighbours.contains(peer) else { return [] }
        neighbours.append(peer)
        neighbours.sort()
        neighbourSince[peer] = now
        unheardBy.remove(peer)
        twoWayCheckAt[peer] = nil
        topologyChanged()
        neighboursChanged = true
        var out = originateAdvertisementIfDue(now: now)
        if !out.contains(where: { if case .send(.linkState, peer, _) = $0 { true } else { false } }) {
            // The new neighbour hears this node's advertisement now (its number, name, role), not only with the next
            // origination up to `linkStateMinInterval` later: it already gets this node's telemetry, and a station
            // that shows a drone must be able to command it. It forwards it only after `linkStateFloodDelay`, by
            // when the origination with this neighbour in it has usually replaced it.
            out.append(.send(.linkState(ownAdvertisement(sequence: ownSequence)), to: peer, reliability: .reliable))
        }
        // Which advertisements this node holds, not the advertisements: `peer` asks for those it lacks or holds older
        // when the summary arrives, and this node does the same with `peer`'s summary (`handleSummary`). That an origin
        // listed `peer` when it made its advertisement is no proof `peer` has it now (it may have restarted since).
        for part in databaseSummary().entries.chunks(of: LinkStateSummary.entriesPerMessage) {
            out.append(.send(.linkStateSummary(LinkStateSummary(entries: part)), to: peer, reliability: .reliable))
        }
        out += announceMapOrigin(now: now)
        out += handGeofence(to: peer)
        out += sendCommandsOnNewRoutes(now: now)
        return out
    }

    /// The neighbour layer lost its session with `peer`.
    public mutating func onNeighbourDown(_ peer: NodeID, now: MeshInstant) -> [Directive] {
        guard let i = neighbours.firstIndex(of: peer) else { return [] }
        neighbours.remove(at: i)
        neighbourSince[peer] = nil
        unheardBy.remove(peer)
        twoWayCheckAt[peer] = nil
        topologyChanged()
        neighboursChanged = true
        return []
    }

    /// A message arrived from neighbour `from`.
    public mutating func onMessage(_ message: CoordinatorMessage, from: NodeID, now: MeshInstant) -> [Directive] {
        switch message {
        case .linkState(let lsa): return handleAdvertisement(lsa, from: from, now: now)
        case .linkStateSummary(let summary): return handleSummary(summary, from: from)
        case .linkStateRequest(let request): return handleRequest(request, from: from)
        case .linkStateRefresh(let refresh): return handleRefresh(refresh, from: from, now: now)
        case .routed(let env, let payload): return handleRouted(env, payload, from: from, now: now)
        }
    }

    /// Recomputes routes if the topology changed since the last computation.
    public mutating func refreshRoutes() {
        guard routesDirty else { return }
        routesStore = ShortestPaths.compute(
            from: nodeID, neighbours: unheardBy.isEmpty ? neighbours : neighbours.filter { !unheardBy.contains($0) },
            database: database, hopLimit: configuration.hopLimit)
        hopsToCache = [:]
        stationReachable = routesStore.keys.contains { database[$0]?.role == .station }
        routesDirty = false
    }

    /// The neighbour a message to `node` leaves through now (nil: no route, or `node` is this node).
    mutating func nextHop(to node: NodeID) -> NodeID? {
        guard node != nodeID else { return nil }
        refreshRoutes()
        return routesStore[node]?.nextHop
    }

    mutating func topologyChanged() {
        routesDirty = true
        numberingDirty = true
        relaysFloodsCache = nil
    }

    /// Creates a routed message from this node and sends it on its way (or delivers it here if addressed to us).
    mutating func sendRouted(_ payload: MeshPayload, to destination: Destination, now: MeshInstant) -> [Directive] {
        messageSequence += 1
        let env = Envelope(
            origin: nodeID, originIncarnation: incarnation, sequence: messageSequence,
            destination: destination, ttl: configuration.hopLimit)
        switch destination {
        case .broadcast:
            return neighbours.map { .send(.routed(env, payload), to: $0, reliability: payload.reliability) }
        case .node(let d):
            if d == nodeID { return deliverLocally(env, payload, now: now) }
            return routeCopies(env, payload, to: [d], except: nil)
        case .nodes(let ds):
            let here = ds.contains(nodeID) ? deliverLocally(env, payload, now: now) : []
            return here + routeCopies(env, payload, to: ds.filter { $0 != nodeID }, except: nil)
        }
    }

    /// Hops from every node to `target` over the database (0 for the target itself), within the hop limit; reckoned
    /// again with the routes (`refreshRoutes`).
    mutating func hops(to target: NodeID) -> [NodeID: UInt8] {
        if let known = hopsToCache[target] { return known }
        guard let lsa = database[target] else { return [:] }
        var hops = ShortestPaths.compute(
            from: target, neighbours: lsa.neighbours, database: database, hopLimit: configuration.hopLimit
        ).mapValues(\.hops)
        hops[target] = 0
        hopsToCache[target] = hops
        return hops
    }

    /// Sends a routed message on towards `targets`: one copy per next hop, addressed to the one target behind it
    /// (`.node`) or to all of them (`.nodes`), none back to `from` (split horizon) and none to a target without a
    /// route. One target goes by its route; several by as few neighbours as possible, each one hop closer to every
    /// target its copy lists.
    mutating func routeCopies(_ env: Envelope, _ payload: MeshPayload, to targets: [NodeID], except from: NodeID?)
        -> [Directive]
    {
        refreshRoutes()
        if targets.count == 1 {
            guard let r = routesStore[targets[0]], r.nextHop != from else { return [] }
            var copy = env
            copy.destination = .node(targets[0])
            return [.send(.routed(copy, payload), to: r.nextHop, reliability: payload.reliability)]
        }
        // Each target's neighbours one hop closer to it (its route's next hop among them); then, as long as targets
        // are left, the neighbour closer to most of them takes them all (the lower NodeID on a tie): two stations side
        // by side share every hop their shortest paths allow, not only those their first shortest paths share.
        var closer: [NodeID: [NodeID]] = [:]
        for d in targets {
            guard let r = routesStore[d], r.nextHop != from else { continue }
            let toD = hops(to: d)
            let ways = neighbours.filter { n in n != from && toD[n].map { $0 + 1 == r.hops } ?? false }
            closer[d] = ways.isEmpty ? [r.nextHop] : ways
        }
        var behind: [NodeID: [NodeID]] = [:]
        var left = Set(closer.keys)
        while !left.isEmpty {
            var served: [NodeID: Int] = [:]
            for d in left { for n in closer[d]! { served[n, default: 0] += 1 } }
            let best = served.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }!.key
            for d in left where closer[d]!.contains(best) {
                behind[best, default: []].append(d)
                left.remove(d)
            }
        }
        return behind.keys.sorted().map { hop in
            let ds = behind[hop]!.sorted()
            var copy = env
            copy.destination = ds.count == 1 ? .node(ds[0]) : .nodes(ds)
            return .send(.routed(copy, payload), to: hop, reliability: payload.reliability)
        }
    }

    mutating func handleRouted(_ env: Envelope, _ payload: MeshPayload, from: NodeID, now: MeshInstant) -> [Directive] {
        guard env.origin != nodeID else { return [] }
        switch env.destination {
        case .broadcast:
            if var w = duplicateWindows[env.origin] {
                let fresh = w.accept(env.sequence, incarnation: env.originIncarnation)
                duplicateWindows[env.origin] = w
                guard fresh else {
                    // Only a relay holds floods to forward (`NodeCore.pruneHeldFlood`).
                    guard payload.reliability == .unreliable, configuration.prunesRepeatedFloods, relaysFloods() else {
                        return []
                    }
                    return [.floodRepeated(origin: env.origin, sequence: env.sequence, by: from)]
                }
            } else {
                duplicateWindows[env.origin] = DuplicateWindow(incarnation: env.originIncarnation, first: env.sequence)
            }
            var out = deliverLocally(env, payload, now: now)
            let unreliable = payload.reliability == .unreliable
            // An unreliable flood goes on only from the relays (`FloodRelays`); reliable floods keep every copy, so a
            // stale advertisement can never cost one.
            if env.ttl > 1, !unreliable || (relaysFloods() && worthForwarding(payload)) {
                var fwd = env
                fwd.ttl -= 1
                let message = CoordinatorMessage.routed(fwd, payload)
                // An unreliable flood is not repeated to the previous hop's own neighbours: it sent them the message
                // itself. In a full mesh nobody forwards; in a line every node does.
                let covered: Set<NodeID> = unreliable ? Set(database[from]?.neighbours ?? []) : []
                for n in neighbours where n != from && !covered.contains(n) {
                    out.append(.send(message, to: n, reliability: payload.reliability))
                }
            }
            return out
        case .node(let d):
            if d == nodeID { return deliverLocally(env, payload, now: now) }
            guard env.ttl > 1 else { return [] }
            var fwd = env
            fwd.ttl -= 1
            // Split horizon: never hand a message back to the neighbour it came from.
            return routeCopies(fwd, payload, to: [d], except: from)
        case .nodes(let ds):
            // Delivered here if listed; the rest go on, one copy per next hop (split where their routes part).
            let here = ds.contains(nodeID) ? deliverLocally(env, payload, now: now) : []
            guard env.ttl > 1 else { return here }
            var fwd = env
            fwd.ttl -= 1
            return here + routeCopies(fwd, payload, to: ds.filter { $0 != nodeID }, except: from)
        }
    }

    mutating func deliverLocally(_ env: Envelope, _ payload: MeshPayload, now: MeshInstant) -> [Directive] {
        if database[env.origin]?.role == .station { stationHeardAt = max(stationHeardAt, now) }
        switch payload {
        case .telemetry(let n, let s):
            // Only stations keep fleet pictures (a drone's telemetry for its stations next door reaches every node
            // on the link at once, PROTOCOL.md §6.3).
            return role == .station ? receiveTelemetry(env, n, s, now: now) : []
        case .prediction(let n, let p):
            receivePrediction(env, n, p, now: now)
            return []
        case .target(let t): return receiveTarget(env, t)
        case .command(let req): return receiveCommand(env, req, now: now)
        case .commandAnswer(let counter, let inc, let answer):
            return inc == incarnation ? receiveAnswer(counter, answer, now: now) : []
        case .manualControl(let n, let takeover, let m): return receiveManualControl(env, n, takeover, m, now: now)
        case .failsafeReport(let r): return role == .station ? [.failsafeReported(r, from: env.origin)] : []
        case .avoidanceReport(let r): return role == .station ? [.avoidanceReported(r, from: env.origin)] : []
        case .leaseRevoked(let n, let holder):
            controlled[env.origin] = nil
            return [.controlLost(uavNumber: n, to: holder)]
        case .leaseUpdate(let n, let release): return receiveLeaseUpdate(env, n, release: release, now: now)
        case .mapOrigin(let a): return receiveMapOrigin(env, a, now: now)
        case .geofence(let a): return receiveGeofence(env, a, now: now)
        }
    }
}

/// Another node's advertisement waiting to be repeated (`CoordinatorCore.floodDue`).
struct PendingFlood: Sendable {
    /// The version waiting (it came from its origin).
    var sequence: UInt64
    var dueAt: MeshInstant
    /// Whether it only refreshes what was held before (goes on without guarantee, from the relays only).
    var refresh: Bool
}
