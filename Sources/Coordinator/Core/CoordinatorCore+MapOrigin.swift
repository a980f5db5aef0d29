import MeshTypes

/// Which conflict between two announcements was already reported.
struct MapOriginConflictKey: Hashable, Sendable {
    var kept: NodeID
    var keptEpoch: UInt64
    var ignored: NodeID
    var ignoredEpoch: UInt64
}

extension CoordinatorCore {
    /// The map origin this node agrees on: of every announcement heard (and a station's own), the one with the
    /// largest epoch, ties to the lowest announcing NodeID. Nil until one is known.
    public var agreedMapOrigin: AgreedMapOrigin? { agreedOrigin }

    /// Station: the origin this node announces (from the configuration or `setMapOrigin`), nil if none.
    public var ownMapOrigin: MapOriginAnnouncement? { ownOrigin }

    /// Station: sets (or replaces) the origin this node announces; it is flooded at once and then every
    /// `mapOriginInterval`. Drones do not announce origins: for them this does nothing.
    public mutating func setMapOrigin(_ announcement: MapOriginAnnouncement, now: MeshInstant) -> [Directive] {
        guard role == .station, announcement != ownOrigin else { return [] }
        ownOrigin = announcement
        var out = reevaluateMapOrigin(now: now)
        out += announceMapOrigin(now: now)
        return out
    }

    /// Station with an origin: floods it now and restarts the announcement period.
    mutating func announceMapOrigin(now: MeshInstant) -> [Directive] {
        guard role == .station, let own = ownOrigin else { return [] }
        nextMapOriginAt = now + configuration.mapOriginInterval
        if agreedOrigin?.announcedBy == nodeID { agreedOrigin?.lastHeardAt = now }
        return sendRouted(.mapOrigin(own), to: .broadcast, now: now)
    }

    /// Tick: settles the agreed origin after start, and announces this station's origin when due.
    mutating func mapOriginDue(now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        if mapOriginDirty { out += reevaluateMapOrigin(now: now) }
        if role == .station, ownOrigin != nil, now >= nextMapOriginAt { out += announceMapOrigin(now: now) }
        return out
    }

    /// An announcement from station `env.origin`: kept per announcer (a lower epoch than one already heard from it
    /// is a late copy and ignored), then the agreed origin is re-chosen.
    mutating func receiveMapOrigin(_ env: Envelope, _ a: MapOriginAnnouncement, now: MeshInstant) -> [Directive] {
        if let old = heardOrigins[env.origin], old.announcement.epoch > a.epoch { return [] }
        heardOrigins[env.origin] = AgreedMapOrigin(announcement: a, announcedBy: env.origin, lastHeardAt: now)
        return reevaluateMapOrigin(now: now)
    }

    /// Picks the winning origin; reports a change and, once per pair of announcements, a conflict.
    mutating func reevaluateMapOrigin(now: MeshInstant) -> [Directive] {
        mapOriginDirty = false
        var candidates = Array(heardOrigins.values)
        if role == .station, let own = ownOrigin {
            let heard = agreedOrigin?.announcedBy == nodeID ? agreedOrigin!.lastHeardAt : now
            candidates.append(AgreedMapOrigin(announcement: own, announcedBy: nodeID, lastHeardAt: heard))
        }
        guard var best = candidates.first else { return [] }
        for c in candidates.dropFirst() where c.outranks(best) { best = c }
        var out: [Directive] = []
        let previous = agreedOrigin
        agreedOrigin = best
        if previous?.announcedBy != best.announcedBy || previous?.announcement != best.announcement {
            out.append(.mapOriginChanged(best.announcement, announcedBy: best.announcedBy))
        }
        for c in candidates.sorted(by: { $0.announcedBy < $1.announcedBy })
        where c.announcedBy != best.announcedBy && !c.announcement.sameOrigin(as: best.announcement) {
            let key = MapOriginConflictKey(
                kept: best.announcedBy, keptEpoch: best.announcement.epoch,
                ignored: c.announcedBy, ignoredEpoch: c.announcement.epoch)
            guard reportedOriginConflicts.insert(key).inserted else { continue }
            out.append(
                .mapOriginConflict(
                    kept: best.announcement, keptBy: best.announcedBy,
                    ignored: c.announcement, ignoredBy: c.announcedBy))
        }
        return out
    }
}
