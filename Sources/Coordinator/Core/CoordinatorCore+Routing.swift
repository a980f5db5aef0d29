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

    /// This node's advertisement as it stands, with the given sequence number.
    func ownAdvertisement(sequence: UInt64) -> LinkStateAdvertisement {
        LinkStateAdvertisement(
            origin: nodeID, incarnation: incarnation, sequence: sequence, role: role,
            name: configuration.name, uavNumber: role == .drone ? uavNumber : nil,
            numberPinned: numberPinned, flying: isFlying, neighbours: neighbours, geofence: fenceInUse,
            controller: role == .drone ? lease?.holder : nil)
    }

    /// Floods a fresh advertisement if something changed or the refresh is due. A change of this node's own state
    /// (number, flying, controller, geofence) goes at once, a change of its neighbours at most every
    /// `linkStateMinInterval`; either reliably. A refresh of an unchanged advertisement goes without guarantee (one
    /// lost is repaired by the next, 10 s later, well within the 35 s age limit), which lets it leave once by group
    /// on a shared link instead of once per neighbour.
    mutating func originateAdvertisementIfDue(now: MeshInstant) -> [Directive] {
        let refreshDue = lastOrigination.map { now - $0 >= configuration.linkStateRefreshInterval } ?? true
        let neighboursDue =
            neighboursChanged
            && (lastOrigination.map { now - $0 >= configuration.linkStateMinInterval * pace.level.linkStateFactor }
                ?? true)
        guard ownAdvertisementDirty || neighboursDue || refreshDue else { return [] }
        let changed = ownAdvertisementDirty || neighboursChanged
        let reliability: Reliability = changed || lastOrigination == nil ? .reliable : .unreliable
        ownAdvertisementDirty = false
        neighboursChanged = false
        lastOrigination = now
        ownSequence += 1
        let lsa = ownAdvertisement(sequence: ownSequence)
        // A refresh without contents only if they are those last sent whole (a change not flagged goes whole).
        var last = lastAdvertised
        last?.sequence = lsa.sequence
        lastAdvertised = lsa
        guard reliability == .unreliable, configuration.compactRefreshes, last == lsa else {
            if reliability == .reliable || last != lsa { ownContentSince = ownSequence }
            return neighbours.map { .send(.linkState(lsa), to: $0, reliability: reliability) }
        }
        let refresh = LinkStateRefresh(lsa, unchangedSince: ownContentSince)
        return neighbours.map { .send(.linkStateRefresh(refresh), to: $0, reliability: .unreliable) }
    }

    /// This node's own advertisement's entry, then its database's, by origin.
    func databaseSummary() -> LinkStateSummary {
        var entries = [LinkStateSummary.Entry(origin: nodeID, incarnation: incarnation, sequence: ownSequence)]
        entries.reserveCapacity(database.count + 1)
        for id in database.keys.sorted() { entries.append(LinkStateSummary.Entry(database[id]!)) }
        return LinkStateSummary(entries: entries)
    }

    /// A neighbour's summary of its database (or a part of it): this node asks it for every advertisement it lists
    /// newer than this node holds, or that this node lacks, compared now (the summary may be a round trip old; what
    /// arrived by flood meanwhile is not asked for), in requests of at most `originsPerRequest`. What this node holds
    /// newer the neighbour asks for, answering this node's own summary. An entry for this node newer than its own
    /// advertisement (an earlier start's) makes it jump past it, as a copy would.
    mutating func handleSummary(_ summary: LinkStateSummary, from: NodeID) -> [Directive] {
        var wanted: [NodeID] = []
        for e in summary.entries {
            if e.origin == nodeID {
                heardOwnVersion(e)
                continue
            }
            if let held = database[e.origin], !e.supersedes(LinkStateSummary.Entry(held)) { continue }
            wanted.append(e.origin)
        }
        return wanted.chunks(of: LinkStateSummary.originsPerRequest).map {
            .send(.linkStateRequest(LinkStateRequest(origins: $0)), to: from, reliability: .reliable)
        }
    }

    /// A neighbour asks for advertisements: each one this node holds goes (its own as it stands).
    func handleRequest(_ request: LinkStateRequest, from: NodeID) -> [Directive] {
        request.origins.compactMap { origin in
            let lsa = origin == nodeID ? ownAdvertisement(sequence: ownSequence) : database[origin]
            return lsa.map { .send(.linkState($0), to: from, reliability: .reliable) }
        }
    }

    /// A version of this node's own advertisement held elsewhere (a copy, or a summary's entry): if it is not older
    /// than the current one (an earlier start's), the next origination jumps past it so that ours wins everywhere.
    mutating func heardOwnVersion(_ version: LinkStateSummary.Entry) {
        if version.incarnation == incarnation && version.sequence <= ownSequence { return }
        if version.sequence >= ownSequence {
            ownSequence = version.sequence
            ownAdvertisementDirty = true
        }
    }

    mutating func handleAdvertisement(
        _ lsa: LinkStateAdvertisement, from: NodeID, now: MeshInstant, unchangedSince: UInt64? = nil
    ) -> [Directive] {
        if lsa.origin == nodeID {
            heardOwnVersion(LinkStateSummary.Entry(lsa))
            return []
        }
        if let old = database[lsa.origin] {
            if old.isNewer(than: lsa) {
                // The sender is behind: send it ours.
                return [.send(.linkState(old), to: from, reliability: .reliable)]
            }
            guard lsa.isNewer(than: old) else { return [] }
        }
        let previous = database[lsa.origin]
        // A refresh: the same advertisement with a newer sequence number (its origin's periodic one, unchanged).
        let refresh =
            previous.map { held in
                var same = held
                same.sequence = lsa.sequence
                return same == lsa
            } ?? false
        database[lsa.origin] = lsa
        databaseHeardAt[lsa.origin] = now
        // Contents known unchanged since: a refresh without contents says from when; a whole advertisement, even one
        // like the copy held, only from itself (its origin may have changed and changed back meanwhile).
        databaseSince[lsa.origin] = unchangedSince ?? lsa.sequence
        if unchangedSince == nil { refreshRequestedAt[lsa.origin] = nil }
        // A refresh changes nothing that routes, numbers or relays are reckoned from.
        if !refresh { advertisementChanged(lsa, previous: previous) }
        var out: [Directive] = []
        if neighbours.contains(lsa.origin) { out += checkTwoWay(lsa, previous: previous, now: now) }
        if from == lsa.origin {
            // First hop: repeated after `linkStateFloodDelay` (`floodDue`). A version newer still replaces it and
            // keeps the earlier moment, so a stream of changes is not held back.
            // A refresh replacing a change still waiting here is not one: the change has not gone on yet.
            let waiting = pendingFloods[lsa.origin]
            pendingFloods[lsa.origin] = PendingFlood(
                sequence: lsa.sequence, dueAt: waiting?.dueAt ?? now + configuration.linkStateFloodDelay,
                refresh: refresh && (waiting?.refresh ?? true))
        } else {
            let waiting = pendingFloods.removeValue(forKey: lsa.origin)
            out += repeatAdvertisement(lsa, from: from, refresh: refresh && (waiting?.refresh ?? true))
            if neighbours.contains(lsa.origin), let previous, previous.incarnation != lsa.incarnation {
                // An advertisement of an origin next door, of another incarnation than the copy it replaced: an
                // earlier life's that outnumbers the origin's own. The origin must hear it to jump past it
                // (`repeatAdvertisement` never sends an origin its own).
                out.append(.send(.linkState(lsa), to: lsa.origin, reliability: .reliable))
            }
        }
        if lsa.role == .drone, previous?.uavNumber != lsa.uavNumber {
            out.append(.numberAnnounced(node: lsa.origin, number: lsa.uavNumber, previous: previous?.uavNumber))
            // The fleet picture shows the drone under its new number now, not with its next telemetry sample: a drone
            // renumbered in a clash was otherwise listed under the number it lost, beside the winner, for a sample
            // interval (100–200 ms), and a client that picked drones from the listing then addressed the winner.
            if fleet[lsa.origin]?.incarnation == lsa.incarnation { fleet[lsa.origin]!.uavNumber = lsa.uavNumber ?? 0 }
            if predictions[lsa.origin]?.incarnation == lsa.incarnation {
                predictions[lsa.origin]!.uavNumber = lsa.uavNumber ?? 0
            }
        }
        return out
    }

    /// Whether neighbour `lsa.origin` hears this node, by its advertisement: one made after the session opened that
    /// does not list this node marks the link one-way (`unheardBy`), one that lists it clears the mark. Routes are
    /// reckoned again when it changes, and outstanding commands go on their new routes: through a neighbour that hears
    /// both, while the direct link carries only one way.
    ///
    /// A new incarnation's first advertisements count as made at a session's start (a neighbour that restarts may
    /// open a new session without a down and up).
    mutating func checkTwoWay(
        _ lsa: LinkStateAdvertisement, previous: LinkStateAdvertisement?, now: MeshInstant
    ) -> [Directive] {
        let origin = lsa.origin
        if let previous, previous.incarnation != lsa.incarnation { neighbourSince[origin] = now }
        let omits = !lsa.neighbours.contains(nodeID)
        let since = neighbourSince[origin] ?? now
        let early = now - since < configuration.oneWayGrace
        // Too early to tell: the same advertisement, if nothing newer replaces it, is checked at the grace's end.
        twoWayCheckAt[origin] = omits && early ? since + configuration.oneWayGrace : nil
        let unheard = omits && !early
        guard unheard != unheardBy.contains(origin) else { return [] }
        if unheard { unheardBy.insert(origin) } else { unheardBy.remove(origin) }
        topologyChanged()
        return sendCommandsOnNewRoutes(now: now)
    }

    /// Checks again the neighbours whose advertisement without this node came too early to tell (`twoWayCheckAt`).
    mutating func checkTwoWayDue(now: MeshInstant) -> [Directive] {
        guard !twoWayCheckAt.isEmpty else { return [] }
        var out: [Directive] = []
        for (origin, at) in twoWayCheckAt.sorted(by: { $0.key < $1.key }) where at <= now {
            twoWayCheckAt[origin] = nil
            guard neighbours.contains(origin), let lsa = database[origin] else { continue }
            out += checkTwoWay(lsa, previous: lsa, now: now)
        }
        return out
    }

    /// Repeats advertisements heard from their origins whose `linkStateFloodDelay` is over.
    mutating func floodDue(now: MeshInstant) -> [Directive] {
        guard !pendingFloods.isEmpty else { return [] }
        var out: [Directive] = []
        for origin in pendingFloods.keys.sorted() where pendingFloods[origin]!.dueAt <= now {
            let pending = pendingFloods.removeValue(forKey: origin)!
            guard let lsa = database[origin], lsa.sequence == pending.sequence else { continue }
            out += repeatAdvertisement(lsa, from: origin, refresh: pending.refresh)
        }
        return out
    }

    /// Sends another node's advertisement to the neighbours that may lack it: not to the origin's neighbours as the
    /// advertisement lists them (the origin sent it to each of them reliably when it made it), nor to `from` (it sent
    /// it), nor to nodes that both we and they believe are neighbours of `from` (it floods to them itself). This keeps
    /// a full mesh's flood at one copy per link; a link one side no longer lists is not skipped, and the 10 s refresh
    /// and the database exchange on every new session repair what a stale view could still miss.
    /// A `refresh` (unchanged but for its sequence number) goes on like a prediction: only from the flood relays
    /// (`FloodRelays`), without guarantee, so by group on a shared link — one lost is repaired by the next, 10 s
    /// later, well within the 35 s age limit. Over several hops every node forwarded every refresh reliably to each
    /// neighbour before, the fleet's largest cost after the predictions (BENCHMARKS §10.14).
    mutating func repeatAdvertisement(_ lsa: LinkStateAdvertisement, from: NodeID, refresh: Bool = false)
        -> [Directive]
    {
        let refresh = refresh && configuration.selectsFloodRelays
        if refresh, !relaysFloods() { return [] }
        let originNeighbours = Set(lsa.neighbours)
        let fromNeighbours = Set(database[from]?.neighbours ?? [])
        var out: [Directive] = []
        let message: CoordinatorMessage =
            refresh && configuration.compactRefreshes
            ? .linkStateRefresh(LinkStateRefresh(lsa, unchangedSince: databaseSince[lsa.origin] ?? lsa.sequence))
            : .linkState(lsa)
        for n in neighbours where n != lsa.origin && n != from && !originNeighbours.contains(n) {
            if fromNeighbours.contains(n), database[n]?.neighbours.contains(from) == true { continue }
            out.append(.send(message, to: n, reliability: refresh ? .unreliable : .reliable))
        }
        return out
    }

    /// Drops advertisements not refreshed within `linkStateMaxAge`.
    mutating func ageDatabase(now: MeshInstant) {
        guard now >= nextAgeingAt else { return }
        nextAgeingAt = now + .seconds(1)
        let expired = databaseHeardAt.filter { now - $0.value > configuration.linkStateMaxAge }.map(\.key)
        guard !expired.isEmpty else { return }
        for id in expired {
            database[id] = nil
            databaseHeardAt[id] = nil
            databaseSince[id] = nil
        }
        topologyChanged()
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
