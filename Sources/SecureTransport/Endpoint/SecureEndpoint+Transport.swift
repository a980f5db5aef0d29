import MeshTypes

extension SecureEndpoint {
    mutating func handleTransport(_ d: [UInt8], from address: Address, now: MeshInstant) -> [Directive] {
        guard d.count >= TransportMessage.minimumSize else {
            return [.rejected(address, Self.tooShort(d.count))]
        }
        var outcome: TransportOutcome?
        let plaintext = d.withUnsafeBytes { datagram in
            [UInt8](unsafeUninitializedCapacity: datagram.count - TransportMessage.minimumSize) { buffer, count in
                let o = openTransport(datagram, from: address, into: UnsafeMutableRawBufferPointer(buffer), now: now)
                if case .opened(let n, _, _, _) = o { count = n }
                outcome = o
            }
        }
        switch outcome! {
        case .refused(let directive): return [directive]
        case .opened(_, let id, let before, let after):
            return before + [plaintext.isEmpty ? .keepalive(from: id) : .deliver(plaintext, from: id)] + after
        }
    }

    /// What a transport message came to.
    enum TransportOutcome {
        /// Authenticated: `count` bytes of plaintext from `peer` are in the buffer. `before` are the directives that
        /// precede its delivery (a session confirmed by it), `after` those that follow (a handshake hurried); both are
        /// empty on the usual path.
        case opened(count: Int, from: NodeID, before: [Directive], after: [Directive])
        /// Refused (a `.rejected` directive).
        case refused(Directive)
    }

    static func tooShort(_ count: Int) -> RejectionReason {
        let e = WireError("transport message: expected at least \(TransportMessage.minimumSize) bytes, found \(count)")
        return .malformed(e, claimedPeer: nil)
    }

    /// Checks and opens a transport message (type 3, at least `minimumSize` bytes) into `plaintext` (room for
    /// `d.count - minimumSize` bytes, checked by the caller), then moves the session's replay window. Shared by
    /// `receive` and `open(_:from:into:now:)`; allocates nothing on the usual path (a confirmed session).
    mutating func openTransport(
        _ d: UnsafeRawBufferPointer, from address: Address, into plaintext: UnsafeMutableRawBufferPointer,
        now: MeshInstant
    ) -> TransportOutcome {
        let receiverIndex = d.bigEndianUInt32(at: 1)
        let counter = d.bigEndianUInt64(at: 5)
        guard let target = lookUpReceiver(receiverIndex, counter: counter) else {
            return .refused(.rejected(address, .unknownReceiverIndex(receiverIndex)))
        }
        let id = target.peer
        let slot = target.slot
        guard now - target.createdAt < configuration.rejectAfter else {
            return .refused(.rejected(address, .sessionExpired(peer: id)))
        }
        guard counter < configuration.rejectAfterMessages, target.counterAcceptable else {
            return .refused(.rejected(address, .replayedCounter(peer: id, counter: counter)))
        }
        guard let count = TransportMessage.open(d, counter: counter, key: target.key, into: plaintext) else {
            return .refused(.rejected(address, .decryptionFailed(peer: id)))
        }
        // Authenticated: now (and only now) move the window, note the time and follow the peer's address.
        var before: [Directive] = []
        if let slot, let i = target.peerIndex {
            peers.values[i].noteAuthenticated(slot: slot, counter: counter, from: address, at: now)
        } else if var list = unconfirmed[id], let k = list.firstIndex(where: { $0.session.localIndex == receiverIndex })
        {
            // The initiator uses a session we answered: it is confirmed and becomes the one we send on. Other answers
            // to that peer stay until they expire: the initiator may have installed several (responses arriving out
            // of order) and will send on the last one it installed, which may be confirmed after this one.
            var u = list.remove(at: k)
            unconfirmed[id] = list.isEmpty ? nil : list
            u.session.replay.record(counter)
            before = install(u.session, peer: id, incarnation: u.incarnation, role: u.role, address: address, now: now)
            peers[id]?.lastReceived = now
        }
        let after = pending.isEmpty ? [] : hurryHandshake(with: id, at: address, now: now)
        return .opened(count: count, from: id, before: before, after: after)
    }

    /// What a transport message's receiver index leads to. Only plain values are returned, so no copy of the session
    /// (and its replay bitmap) is alive when the window is updated in place — that would force a copy of the bitmap.
    struct ReceiveTarget {
        var peer: NodeID
        /// The slot of a confirmed session; nil for the unconfirmed responder session.
        var slot: Slot?
        /// Where the peer of a confirmed session is in `peers` (valid until `peers` changes).
        var peerIndex: [NodeID: Peer].Index?
        var key: SessionKey
        var createdAt: MeshInstant
        var counterAcceptable: Bool
    }

    func lookUpReceiver(_ index: UInt32, counter: UInt64) -> ReceiveTarget? {
        switch indexOwners[index] {
        case .session(let owner)?:
            guard let i = peers.index(forKey: owner), let slot = peers.values[i].slot(ofLocalIndex: index),
                let s = peers.values[i].session(slot)
            else {
                return nil
            }
            return ReceiveTarget(
                peer: owner, slot: slot, peerIndex: i, key: s.receiveKey, createdAt: s.createdAt,
                counterAcceptable: s.replay.canAccept(counter))
        case .unconfirmed(let owner)?:
            guard let u = unconfirmed[owner]?.first(where: { $0.session.localIndex == index }) else { return nil }
            return ReceiveTarget(
                peer: owner, slot: nil, peerIndex: nil, key: u.session.receiveKey, createdAt: u.session.createdAt,
                counterAcceptable: u.session.replay.canAccept(counter))
        case .pending?, nil:
            return nil
        }
    }
}
