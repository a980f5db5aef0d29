import MeshTypes

/// Breadth-first shortest paths over the link-state database.
///
/// An edge u–v counts only when both advertisements list each other (for this node's own edges, `neighbours`: those
/// it has a session with and that hear it, `CoordinatorCore.unheardBy`). Neighbours are expanded in NodeID order, so
/// every node with the same database computes the same tree: the next hop is the first hop of the lexicographically
/// first shortest path.
enum ShortestPaths {
    static func compute(
        from me: NodeID, neighbours: [NodeID], database: [NodeID: LinkStateAdvertisement],
        hopLimit: UInt8
    ) -> [NodeID: Route] {
        var routes: [NodeID: Route] = [:]
        var frontier: [NodeID] = []
        for n in neighbours where n != me {
            routes[n] = Route(nextHop: n, hops: 1)
            frontier.append(n)
        }
        var depth: UInt8 = 1
        while !frontier.isEmpty && depth < hopLimit {
            var next: [NodeID] = []
            for u in frontier {
                guard let lsa = database[u] else { continue }
                let first = routes[u]!.nextHop
                for v in lsa.neighbours where v != me && routes[v] == nil {
                    guard let back = database[v], back.neighbours.contains(u) else { continue }
                    routes[v] = Route(nextHop: first, hops: depth + 1)
                    next.append(v)
                }
            }
            frontier = next
            depth += 1
        }
        return routes
    }
}
