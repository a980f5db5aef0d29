import Coordinator
import MeshTypes

/// Forwards held for `forwardHold` and sent packed (PROTOCOL.md §7.2).
extension NodeCore {
    /// Holds a flood forwarded for another origin (by group), or another origin's telemetry for `peer`, the next hop,
    /// until the next mesh tick `forwardHold` after the first held.
    mutating func hold(_ form: (type: UInt16, payload: [UInt8]), to peer: NodeID? = nil, now: MeshInstant) {
        if let peer { heldUnicast[peer, default: []].append(form) } else { heldForwards.append(form) }
        guard heldSince == nil else { return }
        heldSince = now
        heldWake = now + forwardHold
    }

    /// Sends what was held once `forwardHold` has passed since the first: telemetry packed per next hop, floods
    /// packed by group.
    mutating func sendHeldForwards(now: MeshInstant) -> [Effect] {
        guard let since = heldSince, now - since >= forwardHold else { return [] }
        heldSince = nil
        var effects: [Effect] = []
        let unicast = heldUnicast
        heldUnicast.removeAll(keepingCapacity: true)
        for peer in unicast.keys.sorted() {
            effects += carry(mesh.sendUnreliable(unicast[peer]!, to: peer, now: now), now: now)
        }
        if !heldForwards.isEmpty {
            let held = heldForwards
            heldForwards.removeAll(keepingCapacity: true)
            effects += carry(mesh.sendGroupUnreliable(held, now: now), now: now)
        }
        return effects
    }
}
