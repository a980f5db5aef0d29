import MeshTypes

/// One-way links: a neighbour this node hears but that does not hear it (ARCHITECTURE "Routing").
extension CoordinatorCore {
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
            out += checkTwoWay(lsa, previous: lsa, now: now)  // the same advertisement: no new incarnation
        }
        return out
    }
}
