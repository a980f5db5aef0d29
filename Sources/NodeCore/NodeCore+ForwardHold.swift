import Coordinator
import MeshTypes

/// Forwards held for `forwardHold` and sent packed (PROTOCOL.md §7.2).
extension NodeCore {
    /// Holds a flood forwarded for another origin (by group), or another origin's telemetry for `peer`, the next hop,
    /// until the next mesh tick `heldFor` (one to three times `forwardHold`) after the first held. A flood (`flood`: its
    /// key and the neighbours it is addressed to) may be dropped before it leaves (`pruneHeldFlood`).
    mutating func hold(
        _ form: (type: UInt16, payload: [UInt8]), to peer: NodeID? = nil,
        flood: (key: HeldFloodKey, for: Set<NodeID>)? = nil, now: MeshInstant
    ) {
        if let peer {
            heldUnicast[peer, default: []].append(form)
        } else {
            if let flood { heldFloods[flood.key] = HeldFlood(index: heldForwards.count, unserved: flood.for) }
            heldForwards.append(form)
        }
        guard heldSince == nil else { return }
        heldSince = now
        // One, two or three times `forwardHold`, by the node's id and the moment: relays that got a flood at the same
        // instant do not all send it in the same one, and the later ones hear the earlier ones' copies first
        // (`pruneHeldFlood`). Measured over a simulated field of 100 drones: docs/BENCHMARKS.md §10.18.
        heldFor = forwardHold * (1 + Int((coordinator.nodeID.low ^ (now.nanoseconds / 10_000_000)) % 3))
        heldWake = now + heldFor
    }

    /// Sends what was held once `heldFor` has passed since the first: telemetry packed per next hop, floods packed by
    /// group.
    mutating func sendHeldForwards(now: MeshInstant) -> [Effect] {
        guard let since = heldSince, now - since >= heldFor else { return [] }
        heldSince = nil
        var effects: [Effect] = []
        let unicast = heldUnicast
        heldUnicast.removeAll(keepingCapacity: true)
        for peer in unicast.keys.sorted() {
            effects += carry(mesh.sendUnreliable(unicast[peer]!, to: peer, now: now), now: now)
        }
        if !heldForwards.isEmpty {
            let held = takeHeldForwards()
            if !held.isEmpty { effects += carry(mesh.sendGroupUnreliable(held, now: now), now: now) }
        }
        return effects
    }

    /// The held floods still to go (the pruned ones left out), emptying the hold.
    mutating func takeHeldForwards() -> [(type: UInt16, payload: [UInt8])] {
        var held = heldForwards
        heldForwards.removeAll(keepingCapacity: true)
        if !prunedForwards.isEmpty {
            held = held.indices.filter { !prunedForwards.contains($0) }.map { held[$0] }
            prunedForwards.removeAll(keepingCapacity: true)
        }
        heldFloods.removeAll(keepingCapacity: true)
        return held
    }

    /// A flood this node holds to forward was heard again from `neighbour`: every neighbour of that one has it. Once
    /// no neighbour it was for is left unserved, it does not leave (a relay over a dense field otherwise repeats what
    /// the relays around it have just sent to the same nodes).
    mutating func pruneHeldFlood(_ key: HeldFloodKey, heardFrom neighbour: NodeID) {
        guard var h = heldFloods[key] else { return }
        h.unserved.remove(neighbour)
        if let around = coordinator.advertisement(of: neighbour)?.neighbours {
            h.unserved.subtract(around)
        }
        if h.unserved.isEmpty {
            prunedForwards.insert(h.index)
            floodsPruned += 1
            heldFloods[key] = nil
        } else {
            heldFloods[key] = h
        }
    }
}
