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
            let delivery: Directive = plaintext.isEmpty ? .keepalive(from: id) : .deliver(plaintext, from: id)
            // One array on the usual path (`before + [delivery] + after` would build three).
            return before.isEmpty && after.isEmpty ? [delivery] : before + [delivery] + after
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
        guard case .session(let id)? = indexOwners[receiverIndex] else {
            return openUnconfirmed(
                d, receiverIndex: receiverIndex, counter: counter, from: address, into: plaintext, now: now)
        }
        guard let i = peers.index(forKey: id) else {
            return .refused(.rejected(address, .unknownReceiverIndex(receiverIndex)))
        }
        // In place: reading the peer through `peers[id]` or `peers.values[i]` would copy it, retaining and releasing
        // every key and window of both its sessions (a third of the endpoint's cost per datagram).
        let limits = configuration
        let checked = peers.values[i].open(
            d, receiverIndex: receiverIndex, counter: counter, from: address, into: plaintext, now: now, limits: limits)
        switch checked {
        case .opened(let count):
            let after = pending.isEmpty ? [] : hurryHandshake(with: id, at: address, now: now)
            return .opened(count: count, from: id, before: [], after: after)
        case .refused(let reason):
            return .refused(.rejected(address, reason))
        case .noSuchSession:
            return .refused(.rejected(address, .unknownReceiverIndex(receiverIndex)))
        }
    }

    /// A transport message on a session this node answered and the initiator had not used yet: it confirms the session,
    /// which becomes the one this node sends on.
    mutating func openUnconfirmed(
        _ d: UnsafeRawBufferPointer, receiverIndex: UInt32, counter: UInt64, from address: Address,
        into plaintext: UnsafeMutableRawBufferPointer, now: MeshInstant
    ) -> TransportOutcome {
        guard case .unconfirmed(let id)? = indexOwners[receiverIndex], var list = unconfirmed[id],
            let k = list.firstIndex(where: { $0.session.localIndex == receiverIndex })
        else {
            return .refused(.rejected(address, .unknownReceiverIndex(receiverIndex)))
        }
        var u = list[k]
        guard now - u.session.createdAt < configuration.rejectAfter else {
            return .refused(.rejected(address, .sessionExpired(peer: id)))
        }
        guard counter < configuration.rejectAfterMessages, u.session.replay.canAccept(counter) else {
            return .refused(.rejected(address, .replayedCounter(peer: id, counter: counter)))
        }
        guard let count = TransportMessage.open(d, counter: counter, key: u.session.receiveKey, into: plaintext) else {
            return .refused(.rejected(address, .decryptionFailed(peer: id)))
        }
        // Authenticated. Other answers to that peer stay until they expire: the initiator may have installed several
        // (responses arriving out of order) and will send on the last one it installed, which may be confirmed after
        // this one.
        list.remove(at: k)
        unconfirmed[id] = list.isEmpty ? nil : list
        u.session.replay.record(counter)
        let before = install(u.session, peer: id, incarnation: u.incarnation, role: u.role, address: address, now: now)
        peers[id]?.lastReceived = now
        let after = pending.isEmpty ? [] : hurryHandshake(with: id, at: address, now: now)
        return .opened(count: count, from: id, before: before, after: after)
    }
}

extension SecureEndpoint.Peer {
    /// What a transport message on one of a peer's sessions came to.
    enum Opened {
        case opened(count: Int)
        case refused(RejectionReason)
        /// Neither session has that receiver index.
        case noSuchSession
    }

    /// Checks and opens a transport message on the session with local index `receiverIndex`, in place; once the tag
    /// verified (and only then) moves that session's replay window, notes the time and follows the peer's address.
    mutating func open(
        _ d: UnsafeRawBufferPointer, receiverIndex: UInt32, counter: UInt64, from address: Address,
        into plaintext: UnsafeMutableRawBufferPointer, now: MeshInstant, limits: SecureTransportConfiguration
    ) -> Opened {
        guard let slot = slot(ofLocalIndex: receiverIndex) else { return .noSuchSession }
        let peer = id
        let result =
            modify(slot) { s -> Opened in
                guard now - s.createdAt < limits.rejectAfter else { return .refused(.sessionExpired(peer: peer)) }
                guard counter < limits.rejectAfterMessages, s.replay.canAccept(counter) else {
                    return .refused(.replayedCounter(peer: peer, counter: counter))
                }
                guard let count = TransportMessage.open(d, counter: counter, key: s.receiveKey, into: plaintext) else {
                    return .refused(.decryptionFailed(peer: peer))
                }
                s.replay.record(counter)
                return .opened(count: count)
            } ?? .noSuchSession
        if case .opened = result {
            lastReceived = now
            self.address = address
        }
        return result
    }

    /// Takes the next send counter of the current session, in place: what the next transport message is sealed with,
    /// or nil when there is no current session usable at `now`.
    mutating func takeSend(now: MeshInstant, limits: SecureTransportConfiguration) -> SecureEndpoint.Outgoing? {
        let address = address
        return modify(.current) { s -> SecureEndpoint.Outgoing? in
            guard now - s.createdAt < limits.rejectAfter, s.sendCounter < limits.rejectAfterMessages else { return nil }
            s.sendCounter += 1
            return .init(remoteIndex: s.remoteIndex, counter: s.sendCounter - 1, key: s.sendKey, address: address)
        } ?? nil
    }
}
