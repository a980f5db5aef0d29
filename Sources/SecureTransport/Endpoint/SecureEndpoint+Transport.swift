import MeshTypes

extension SecureEndpoint {
    mutating func handleTransport(_ d: [UInt8], from address: Address, now: MeshInstant) -> [Directive] {
        guard d.count >= TransportMessage.minimumSize else {
            let e = WireError(
                "transport message: expected at least \(TransportMessage.minimumSize) bytes, found \(d.count)")
            return [.rejected(address, .malformed(e, claimedPeer: nil))]
        }
        let receiverIndex = d.bigEndianUInt32(at: 1)
        let counter = d.bigEndianUInt64(at: 5)
        guard let target = lookUpReceiver(receiverIndex, counter: counter) else {
            return [.rejected(address, .unknownReceiverIndex(receiverIndex))]
        }
        let id = target.peer
        let slot = target.slot
        guard now - target.createdAt < configuration.rejectAfter else {
            return [.rejected(address, .sessionExpired(peer: id))]
        }
        guard counter < configuration.rejectAfterMessages, target.counterAcceptable else {
            return [.rejected(address, .replayedCounter(peer: id, counter: counter))]
        }
        guard let plaintext = TransportMessage.open(d, counter: counter, key: target.key) else {
            return [.rejected(address, .decryptionFailed(peer: id))]
        }
        // Authenticated: now (and only now) move the window, note the time and follow the peer's address.
        var out: [Directive] = []
        if let slot {
            peers[id]?.noteAuthenticated(slot: slot, counter: counter, from: address, at: now)
        } else if var list = unconfirmed[id], let k = list.firstIndex(where: { $0.session.localIndex == receiverIndex })
        {
            // The initiator uses a session we answered: it is confirmed and becomes the one we send on. Other answers
            // to that peer stay until they expire: the initiator may have installed several (responses arriving out
            // of order) and will send on the last one it installed, which may be confirmed after this one.
            var u = list.remove(at: k)
            unconfirmed[id] = list.isEmpty ? nil : list
            u.session.replay.record(counter)
            out += install(u.session, peer: id, incarnation: u.incarnation, role: u.role, address: address, now: now)
            peers[id]?.lastReceived = now
        }
        out.append(plaintext.isEmpty ? .keepalive(from: id) : .deliver(plaintext, from: id))
        if !pending.isEmpty { out += hurryHandshake(with: id, at: address, now: now) }
        return out
    }

    /// What a transport message's receiver index leads to. Only plain values are returned, so no copy of the session
    /// (and its replay bitmap) is alive when the window is updated in place — that would force a copy of the bitmap.
    struct ReceiveTarget {
        var peer: NodeID
        /// The slot of a confirmed session; nil for the unconfirmed responder session.
        var slot: Slot?
        var key: SessionKey
        var createdAt: MeshInstant
        var counterAcceptable: Bool
    }

    func lookUpReceiver(_ index: UInt32, counter: UInt64) -> ReceiveTarget? {
        switch indexOwners[index] {
        case .session(let owner)?:
            guard let slot = peers[owner]?.slot(ofLocalIndex: index), let s = peers[owner]?.session(slot) else {
                return nil
            }
            return ReceiveTarget(
                peer: owner, slot: slot, key: s.receiveKey, createdAt: s.createdAt,
                counterAcceptable: s.replay.canAccept(counter))
        case .unconfirmed(let owner)?:
            guard let u = unconfirmed[owner]?.first(where: { $0.session.localIndex == index }) else { return nil }
            return ReceiveTarget(
                peer: owner, slot: nil, key: u.session.receiveKey, createdAt: u.session.createdAt,
                counterAcceptable: u.session.replay.canAccept(counter))
        case .pending?, nil:
            return nil
        }
    }
}
