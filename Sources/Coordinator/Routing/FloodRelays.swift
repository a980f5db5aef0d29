import MeshTypes

/// Whether this node relays unreliable floods (predictions, targets, refreshes of link-state advertisements): only
/// the nodes of a small connected set that every node is in or next to — a connected dominating set — forward them;
/// every other node receives each flood from one of them and keeps it to itself. Over several radio hops a flood then
/// costs about one transmission per relay instead of one per node (BENCHMARKS §10.15: 0.33–0.46 × the bytes over a
/// simulated field; §10.14: before, every drone's 5 Hz prediction crossed every node once).
///
/// A node is marked when two of its neighbours are not neighbours of each other (it joins them; Wu and Li's marking,
/// 1999), and unmarked again
/// when marked neighbours of higher priority (more neighbours, then the higher NodeID), connected among themselves,
/// together reach all its neighbours (Dai and Wu's rule k, 2004). Decided from the link-state database alone; a neighbour
/// whose advertisement this node lacks can neither be joined through nor be relied on, so the node stays a relay when
/// in doubt. On one link (everyone hears everyone) no node is marked: the origin's own transmission reaches all.
enum FloodRelays {
    /// Whether `me`, with `ownNeighbours`, relays floods, given the others' advertisements in `database`.
    static func isRelay(me: NodeID, ownNeighbours: [NodeID], database: [NodeID: LinkStateAdvertisement]) -> Bool {
        let mine = Set(ownNeighbours).subtracting([me])
        guard mine.count >= 2 else { return false }
        var theirs: [NodeID: Set<NodeID>] = [:]
        for n in mine {
            guard let lsa = database[n] else { return true }
            theirs[n] = Set(lsa.neighbours)
        }
        guard isMarked(mine, adjacent: { a, b in theirs[a]!.contains(b) || theirs[b]!.contains(a) }) else {
            return false
        }
        // A neighbour is relied on only if it is marked itself, by its own advertised neighbours (all known).
        func marked(_ u: NodeID) -> Bool {
            let around = theirs[u]!.subtracting([u])
            var lists: [NodeID: Set<NodeID>] = [:]
            for x in around {
                if x == me {
                    lists[x] = mine
                } else if let lsa = database[x] {
                    lists[x] = Set(lsa.neighbours)
                } else {
                    return false
                }
            }
            return isMarked(around) { a, b in lists[a]!.contains(b) || lists[b]!.contains(a) }
        }
        // Priority: more neighbours first, then the higher NodeID (every node works out the same order).
        func outranks(_ u: NodeID) -> Bool {
            let du = theirs[u]!.subtracting([u]).count
            return du != mine.count ? du > mine.count : u > me
        }
        let higher = Set(mine.filter { outranks($0) && marked($0) })
        // Unmarked again when the higher-priority marked neighbours that are connected among themselves together
        // reach every neighbour of this node (Dai and Wu's rule k, within one hop).
        var unvisited = higher
        while let seed = unvisited.min() {
            unvisited.remove(seed)
            var component: Set<NodeID> = [seed]
            var frontier = [seed]
            while let u = frontier.popLast() {
                for w in unvisited where theirs[u]!.contains(w) || theirs[w]!.contains(u) {
                    unvisited.remove(w)
                    component.insert(w)
                    frontier.append(w)
                }
            }
            var reached = component
            for u in component { reached.formUnion(theirs[u]!) }
            if mine.isSubset(of: reached) { return false }
        }
        return true
    }

    /// Whether two of `neighbours` are not adjacent to each other.
    static func isMarked(_ neighbours: Set<NodeID>, adjacent: (NodeID, NodeID) -> Bool) -> Bool {
        let sorted = neighbours.sorted()
        for (i, a) in sorted.enumerated() {
            for b in sorted[(i + 1)...] where !adjacent(a, b) { return true }
        }
        return false
    }
}
