import MeshTypes

extension CoordinatorCore {
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
}
