import MeshTypes

extension CoordinatorCore {
    /// The local vehicle took off (`true`) or landed (`false`). Flying drones keep their number in clashes.
    public mutating func onFlyingChanged(_ flying: Bool, now: MeshInstant) -> [Directive] {
        guard flying != isFlying else { return [] }
        isFlying = flying
        ownAdvertisementDirty = true
        numberingDirty = true
        return []
    }

    /// Whether a drone described by (pinned, flying, id) keeps a shared number over another: pinned first,
    /// then flying, then the lower NodeID.
    static func keepsNumber(
        _ a: (pinned: Bool, flying: Bool, id: NodeID), over b: (pinned: Bool, flying: Bool, id: NodeID)
    ) -> Bool {
        if a.pinned != b.pinned { return a.pinned }
        if a.flying != b.flying { return a.flying }
        return a.id < b.id
    }

    /// Claims, keeps or gives up this drone's number, and reports pinned clashes (every node reports them).
    mutating func evaluateNumbering(now: MeshInstant) -> [Directive] {
        guard numberingDirty else { return [] }
        numberingDirty = false
        refreshRoutes()
        var out = reportPinnedClashes()
        guard role == .drone else { return out }

        guard let mine = uavNumber else {
            guard now >= claimAllowedAt else {
                numberingDirty = true
                return out
            }
            out += takeFreeNumber(reason: .claimed)
            return out
        }
        let me = (pinned: numberPinned, flying: isFlying, id: nodeID)
        var winner: NodeID?
        for rival in claimants(of: mine) where rival != nodeID {
            guard let lsa = database[rival] else { continue }
            if !Self.keepsNumber(me, over: (lsa.numberPinned, lsa.flying, rival)) {
                if winner == nil || rival < winner! { winner = rival }
            }
        }
        if let winner, !numberPinned {
            out += takeFreeNumber(reason: .lostClash(to: winner))
        }
        return out
    }

    /// Picks a number no known drone claims (else none claimed by a reachable drone), starting at a point derived
    /// from the NodeID so that simultaneous claimants spread out.
    mutating func takeFreeNumber(reason: NumberChangeReason) -> [Directive] {
        var reachable = Set<UInt8>()
        var known = Set<UInt8>()
        for (id, lsa) in database where lsa.role == .drone {
            guard let n = lsa.uavNumber else { continue }
            known.insert(n)
            if routesStore[id] != nil { reachable.insert(n) }
        }
        if case .lostClash = reason, let n = uavNumber {
            known.insert(n)
            reachable.insert(n)
        }
        renumberAttempt += 1
        let start = Int(Self.mix(nodeID.high ^ nodeID.low &+ renumberAttempt &* 0x9E37_79B9_7F4A_7C15) % 250)
        var choice: UInt8?
        for avoid in [known, reachable] {
            for i in 0..<250 {
                let n = UInt8((start + i) % 250 + 1)
                if !avoid.contains(n) {
                    choice = n
                    break
                }
            }
            if choice != nil { break }
        }
        let old = uavNumber
        guard let new = choice else {
            uavNumber = nil
            ownAdvertisementDirty = true
            var out: [Directive] = []
            if old != nil { out.append(.uavNumberChanged(from: old, to: nil, reason: .exhausted)) }
            if !reportedExhausted {
                reportedExhausted = true
                out.append(.numberConflict(.exhausted))
            }
            numberingDirty = true
            return out
        }
        reportedExhausted = false
        uavNumber = new
        ownAdvertisementDirty = true
        return [.persistUAVNumber(new), .uavNumberChanged(from: old, to: new, reason: reason)]
    }

    /// Reports every set of two or more reachable drones pinned to the same number, once per set.
    mutating func reportPinnedClashes() -> [Directive] {
        var pinned: [UInt8: [NodeID]] = [:]
        if role == .drone, numberPinned, let n = uavNumber { pinned[n] = [nodeID] }
        for (id, _) in routesStore {
            if let lsa = database[id], lsa.role == .drone, lsa.numberPinned, let n = lsa.uavNumber {
                pinned[n, default: []].append(id)
            }
        }
        var out: [Directive] = []
        var current = Set<[NodeID]>()
        for n in pinned.keys.sorted() {
            let nodes = pinned[n]!.sorted()
            guard nodes.count > 1 else { continue }
            current.insert(nodes)
            if !reportedPinnedClashes.contains(nodes) {
                out.append(.numberConflict(.pinnedClash(number: n, nodes: nodes)))
            }
        }
        reportedPinnedClashes = current
        return out
    }

    /// SplitMix64's finaliser: a cheap, well-spread hash.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
