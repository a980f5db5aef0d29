import Coordinator
import MeshTypes

extension MeshSimulation {
    /// Hop distances from node `i` over usable links (alive nodes only), up to `limit`.
    public func trueDistances(from i: Int, limit: Int) -> [Int: Int] {
        guard cores[i] != nil else { return [:] }
        var dist = [i: 0]
        var frontier = [i]
        var d = 0
        while !frontier.isEmpty && d < limit {
            d += 1
            var next: [Int] = []
            for u in frontier {
                for l in linksOf[u] where links[l].usable {
                    let v = links[l].other(u)
                    if dist[v] == nil {
                        dist[v] = d
                        next.append(v)
                    }
                }
            }
            frontier = next
        }
        return dist
    }

    /// Number violations now: two drones within reach of each other with the same number (unless both are
    /// pinned — that clash is reported, not resolved), or a drone without a number while numbers are free.
    public func numberViolations() -> [String] {
        var out: [String] = []
        let limit = Int(cores.compactMap { $0 }.first?.configuration.hopLimit ?? 8)
        for i in specs.indices where specs[i].role == .drone {
            guard let ci = cores[i] else { continue }
            let reach = trueDistances(from: i, limit: limit)
            let dronesInReach = reach.keys.filter { specs[$0].role == .drone }.sorted()
            guard let ni = ci.uavNumber else {
                if dronesInReach.count <= 250 { out.append("drone \(i) has no UAV number") }
                continue
            }
            for j in dronesInReach where j > i {
                guard let cj = cores[j], cj.uavNumber == ni else { continue }
                if ci.numberPinned && cj.numberPinned { continue }
                out.append("drones \(i) and \(j) both hold UAV number \(ni)")
            }
        }
        return out
    }

    /// Route violations now: for every pair of alive nodes within the hop limit, the route must exist with the
    /// true hop count, and following next hops must reach the destination over usable links without revisiting a
    /// node (loop freedom); nodes out of reach must have no route.
    public func routeViolations() -> [String] {
        var out: [String] = []
        for a in specs.indices {
            guard let ca = cores[a] else { continue }
            let limit = Int(ca.configuration.hopLimit)
            let reach = trueDistances(from: a, limit: limit)
            for b in specs.indices where b != a {
                let route = ca.route(to: ids[b])
                guard let d = reach[b] else {
                    if route != nil { out.append("node \(a) has a route to unreachable node \(b)") }
                    continue
                }
                guard let route else {
                    out.append("node \(a) has no route to node \(b) at \(d) hops")
                    continue
                }
                if Int(route.hops) != d {
                    out.append("node \(a) routes to \(b) in \(route.hops) hops, true distance \(d)")
                }
                var visited: Set<Int> = [a]
                var at = a
                var hops = 0
                while at != b {
                    guard let r = cores[at]?.route(to: ids[b]), let next = indexOf[r.nextHop] else {
                        out.append("path \(a)→\(b) dead-ends at \(at)")
                        break
                    }
                    guard let l = linkIndex(at, next), links[l].usable else {
                        out.append("path \(a)→\(b): \(at) forwards to \(next) over a link that is down")
                        break
                    }
                    guard visited.insert(next).inserted else {
                        out.append("routing loop on path \(a)→\(b) at \(next)")
                        break
                    }
                    at = next
                    hops += 1
                    if hops > limit {
                        out.append("path \(a)→\(b) exceeds the hop limit")
                        break
                    }
                }
            }
        }
        return out
    }

    /// Lease violations now: a lease held by a node that is not a station, or a station that believes it controls a
    /// drone whose lease it does not hold (so two stations can never both believe they control one drone once
    /// settled; a drone's own lease names one station by construction).
    public func leaseViolations() -> [String] {
        var out: [String] = []
        for i in specs.indices {
            guard let holder = cores[i]?.leaseHolder else { continue }
            if let h = indexOf[holder], specs[h].role != .station {
                out.append("drone \(i) leased to non-station \(h)")
            }
        }
        for s in specs.indices {
            guard let controlled = cores[s]?.controlledDrones else { continue }
            for node in controlled.keys.sorted() {
                guard let d = indexOf[node], let drone = cores[d] else { continue }
                if drone.leaseHolder != ids[s] {
                    out.append(
                        "station \(s) believes it controls drone \(d), whose lease is held by \(drone.leaseHolder.map { String(describing: indexOf[$0]!) } ?? "nobody")"
                    )
                }
            }
        }
        return out
    }

    /// Map origin violations now: two alive nodes connected to each other (within the hop limit) that agree on
    /// different map origins, or a node connected to a station announcing one that agrees on none. Holds once
    /// announcements have had a period to flood; not part of `settledViolations`, because a node that heard a
    /// better-ranked origin before a partition keeps it.
    public func mapOriginViolations() -> [String] {
        var out: [String] = []
        let limit = Int(cores.compactMap { $0 }.first?.configuration.hopLimit ?? 8)
        for i in cores.indices {
            guard let a = cores[i] else { continue }
            for (j, _) in trueDistances(from: i, limit: limit) where j > i {
                guard let b = cores[j] else { continue }
                let (x, y) = (a.agreedMapOrigin, b.agreedMapOrigin)
                if x?.announcedBy != y?.announcedBy || x?.announcement != y?.announcement {
                    out.append(
                        "nodes \(i) and \(j) are connected but agree on different map origins: "
                            + "\(x.map { "\($0.announcedBy.short) epoch \($0.announcement.epoch)" } ?? "none") vs "
                            + "\(y.map { "\($0.announcedBy.short) epoch \($0.announcement.epoch)" } ?? "none")")
                }
                for (k, c) in [(i, a), (j, b)] where c.ownMapOrigin != nil {
                    let other = k == i ? b : a
                    if other.agreedMapOrigin == nil {
                        out.append("node \(k == i ? j : i) is connected to station \(k) but has no map origin")
                    }
                }
            }
        }
        return out
    }

    /// All invariants that must hold once the world has settled (no faults for a while).
    public func settledViolations() -> [String] {
        numberViolations() + routeViolations() + leaseViolations()
    }

    /// Runs in steps of `step` until numbers are settled (no violations) or `limit` passes; returns the virtual time
    /// it took, or nil.
    public func runUntilNumbersSettle(step: Duration = .milliseconds(50), limit: Duration = .seconds(60)) -> Duration? {
        let start = now
        while now - start < limit {
            if numberViolations().isEmpty { return now - start }
            run(for: step)
        }
        return numberViolations().isEmpty ? now - start : nil
    }
}
