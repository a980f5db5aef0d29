import MeshTypes

/// Refreshes without contents (`LinkStateRefresh`, PROTOCOL.md §7.1b), and what a changed advertisement makes the core
/// reckon again.
extension CoordinatorCore {
    /// A refresh without contents (`LinkStateRefresh`): the stored advertisement it covers takes its sequence number
    /// and goes on as a refresh would (`handleAdvertisement`); one stored older than the contents it stands for, of
    /// another incarnation, or none, is asked for whole from the neighbour it came from (once a second at most).
    mutating func handleRefresh(_ refresh: LinkStateRefresh, from: NodeID, now: MeshInstant) -> [Directive] {
        let version = LinkStateSummary.Entry(
            origin: refresh.origin, incarnation: refresh.incarnation, sequence: refresh.sequence)
        if refresh.origin == nodeID {
            heardOwnVersion(version)
            return []
        }
        guard let held = database[refresh.origin], refresh.covers(held) else {
            if let held = database[refresh.origin], !version.supersedes(LinkStateSummary.Entry(held)) { return [] }
            // Once a second at most per origin: the relays around this node each pass the same refresh on, and the
            // answer to the first request comes reliably.
            if let asked = refreshRequestedAt[refresh.origin], now - asked < .seconds(1) { return [] }
            refreshRequestedAt[refresh.origin] = now
            return [
                .send(.linkStateRequest(LinkStateRequest(origins: [refresh.origin])), to: from, reliability: .reliable)
            ]
        }
        var refreshed = held
        refreshed.sequence = refresh.sequence
        guard refreshed.isNewer(than: held) else { return [] }
        return handleAdvertisement(refreshed, from: from, now: now, unchangedSince: refresh.unchangedSince)
    }

    /// `lsa` replaced `previous` (nil: the first of its origin): routes and numbers are reckoned again; whether this
    /// node relays floods only when the origin is within two hops and its neighbours changed — `FloodRelays` reads
    /// no other advertisement, and over a large field advertisements from further away arrive all the time.
    mutating func advertisementChanged(_ lsa: LinkStateAdvertisement, previous: LinkStateAdvertisement?) {
        routesDirty = true
        numberingDirty = true
        guard relaysFloodsCache != nil, previous?.neighbours != lsa.neighbours else { return }
        let origin = lsa.origin
        let near =
            neighbours.contains(origin)
            || neighbours.contains { lsa.neighbours.contains($0) || previous?.neighbours.contains($0) == true }
            || neighbours.contains { database[$0]?.neighbours.contains(origin) == true }
        if near { relaysFloodsCache = nil }
    }
}
