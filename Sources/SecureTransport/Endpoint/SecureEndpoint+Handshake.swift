import Crypto
import MeshTypes

extension SecureEndpoint {
    /// Builds and records a fresh initiation to `address` (replacing any pending one there) and returns its bytes.
    mutating func startInitiation(
        to address: Address, expecting: NodeID?, startedAt: MeshInstant, now: MeshInstant,
        retransmitDelay: Duration, wallClockMicros: UInt64
    ) -> [UInt8] {
        replacePending(where: { $0.address == address }, now: now)
        let index = freshIndex()
        replaced[index] = nil
        let ephemeral = freshEphemeral()
        // Strictly increasing even if the wall clock steps back or two initiations share a microsecond.
        lastSentTimestamp = max(wallClockMicros, lastSentTimestamp &+ 1)
        let initiation = HandshakeInitiation(
            senderIndex: index, sender: localID, incarnation: incarnation, role: role,
            ephemeralPublicKey: ephemeral.publicKey, timestamp: lastSentTimestamp)
        var message = initiation.encodedBody()
        message += crypto.mac(message)
        let spaced = max(retransmitDelay, initiationSpacing(to: address, expecting: expecting, now: now))
        pending.append(
            PendingInitiation(
                address: address, expected: expecting, localIndex: index, privateKey: ephemeral.privateKey,
                message: message,
                startedAt: startedAt, nextRetransmitAt: now + spaced, retransmitDelay: spaced))
        indexOwners[index] = .pending
        return message
    }

    /// A handshake to `peer` is pending and `peer` was just heard from `address` (an authenticated datagram, or its
    /// own initiation that lost the tie-break): the path works now, so a fresh initiation leaves at once, to that
    /// address, with the backoff started over — at most one every `handshakeRetransmitInitial`. Without this, a
    /// handshake started during an outage waits out its backoff (up to 2 s) after the link is back, and the peer's
    /// own probes, which lose the tie-break to it, are ignored meanwhile.
    mutating func hurryHandshake(with peer: NodeID, at address: Address, now: MeshInstant) -> [Directive] {
        guard let p = pending.first(where: { $0.expected == peer }),
            now - p.lastSentAt >= initiationSpacing(to: p.address, expecting: peer, now: now),
            now - p.startedAt < configuration.handshakeAttemptTimeout
        else { return [] }
        replacePending(where: { $0.expected == peer }, now: now)
        let message = startInitiation(
            to: address, expecting: peer, startedAt: p.startedAt, now: now,
            retransmitDelay: configuration.handshakeRetransmitInitial, wallClockMicros: wallClock(now))
        return [.send(message, to: address)]
    }

    /// `peer` was heard outside its sessions (an authenticated group datagram): a handshake pending to it leaves again
    /// now, as when a session's datagram is heard (`hurryHandshake`). A peer whose sessions expired during an outage
    /// (its rekey unanswered) is heard only by group afterwards, and would otherwise wait out the backoff.
    public mutating func heardElsewhere(_ peer: NodeID, now: MeshInstant) -> [Directive] {
        guard let p = pending.first(where: { $0.expected == peer }) else { return [] }
        return hurryHandshake(with: peer, at: p.address, now: now)
    }

    /// The rejection of a handshake datagram of the wrong length or protocol version; nil when both are right.
    func framingRejection(
        of d: [UInt8], size: Int, message: String, claimed: NodeID?, from address: Address
    ) -> Directive? {
        guard d.count == size else {
            let e = WireError("\(message): expected \(size) bytes, found \(d.count)")
            return .rejected(address, .malformed(e, claimedPeer: claimed))
        }
        guard d[1] == ProtocolVersion.current else {
            return .rejected(address, .unsupportedVersion(d[1], claimedPeer: claimed))
        }
        return nil
    }

    mutating func handleInitiation(_ d: [UInt8], from address: Address, now: MeshInstant) -> [Directive] {
        let claimed = HandshakeInitiation.claimedSender(in: d)
        if let r = framingRejection(
            of: d, size: HandshakeInitiation.size, message: "handshake initiation", claimed: claimed, from: address)
        {
            return [r]
        }
        guard crypto.verify(mac: d[HandshakeInitiation.macOffset...], over: Array(d[..<HandshakeInitiation.macOffset]))
        else {
            return [.rejected(address, .wrongMeshKey(claimedPeer: claimed))]
        }
        let initiation: HandshakeInitiation
        do {
            initiation = try HandshakeInitiation.decode(d)
        } catch {
            return [.rejected(address, .malformed(error, claimedPeer: claimed))]
        }
        let sender = initiation.sender
        guard sender != localID else { return [.rejected(address, .ownNodeID)] }
        if let highest = highestTimestamps[sender], initiation.timestamp <= highest {
            return [
                .rejected(
                    address,
                    .replayedInitiation(
                        claimedPeer: sender, timestamp: initiation.timestamp, highestAccepted: highest))
            ]
        }
        // Simultaneous initiations: the one from the lower NodeID wins. The winner ignores the loser's; the loser
        // drops its own pending initiation and answers. A pending initiation to that peer counts at any of its
        // addresses (two nodes probing each other over IPv4 and IPv6 must still complete only one handshake: two at
        // once, installed in different orders on the two sides, can leave each sending on a session the other has
        // just dropped).
        let simultaneous: (PendingInitiation) -> Bool = {
            $0.expected == sender || ($0.expected == nil && $0.address == address)
        }
        if pending.contains(where: simultaneous) {
            // The winner's own initiation may have been lost (or be waiting out its backoff, up to 2 s): the
            // loser's proves the path works now, so the winner sends a fresh one at once, there.
            if localID < sender { return hurryHandshake(with: sender, at: address, now: now) }
            removePending(where: simultaneous)
        }

        let localIndex = freshIndex()
        let ephemeral = freshEphemeral()
        let response = HandshakeResponse(
            senderIndex: localIndex, receiverIndex: initiation.senderIndex, sender: localID, incarnation: incarnation,
            role: role, ephemeralPublicKey: ephemeral.publicKey)
        var message = response.encodedBody()
        message += crypto.mac(d, message)
        guard
            let keys = crypto.sessionKeys(
                privateKey: ephemeral.privateKey, peerPublicKey: initiation.ephemeralPublicKey, initiation: d,
                response: message)
        else {
            return [.rejected(address, .invalidEphemeralKey(claimedPeer: sender))]
        }
        highestTimestamps[sender] = initiation.timestamp
        let session = Session(
            localIndex: localIndex, remoteIndex: initiation.senderIndex, sendKey: keys.responderToInitiator,
            receiveKey: keys.initiatorToResponder, createdAt: now, isInitiator: false)
        // Held aside until the initiator uses it. Newer initiations from the same peer are kept beside it (the
        // initiator may confirm any of them); beyond `unconfirmedPerPeer` the oldest is dropped.
        var list = unconfirmed[sender] ?? []
        list.append(UnconfirmedSession(session: session, incarnation: initiation.incarnation, role: initiation.role))
        while list.count > Self.unconfirmedPerPeer { indexOwners[list.removeFirst().session.localIndex] = nil }
        unconfirmed[sender] = list
        indexOwners[localIndex] = .unconfirmed(sender)
        return [.send(message, to: address)]
    }

    mutating func handleResponse(_ d: [UInt8], from address: Address, now: MeshInstant) -> [Directive] {
        let claimed = HandshakeResponse.claimedSender(in: d)
        if let r = framingRejection(
            of: d, size: HandshakeResponse.size, message: "handshake response", claimed: claimed, from: address)
        {
            return [r]
        }
        let receiverIndex = d.bigEndianUInt32(at: 6)
        guard indexOwners[receiverIndex] == .pending,
            let position = pending.firstIndex(where: { $0.localIndex == receiverIndex })
        else {
            noteLateAnswer(d, receiverIndex: receiverIndex, now: now)
            return [.rejected(address, .unknownReceiverIndex(receiverIndex))]
        }
        let p = pending[position]
        guard
            crypto.verify(
                mac: d[HandshakeResponse.macOffset...], over: p.message, Array(d[..<HandshakeResponse.macOffset]))
        else {
            return [.rejected(address, .wrongMeshKey(claimedPeer: claimed))]
        }
        let response: HandshakeResponse
        do {
            response = try HandshakeResponse.decode(d)
        } catch {
            return [.rejected(address, .malformed(error, claimedPeer: claimed))]
        }
        let sender = response.sender
        guard sender != localID else {
            removePending { $0.localIndex == receiverIndex }
            return [.rejected(address, .ownNodeID)]
        }
        if let expected = p.expected, expected != sender {
            removePending { $0.localIndex == receiverIndex }
            return [.rejected(address, .nodeIDMismatch(expected: expected, found: sender))]
        }
        guard
            let keys = crypto.sessionKeys(
                privateKey: p.privateKey, peerPublicKey: response.ephemeralPublicKey, initiation: p.message, response: d
            )
        else {
            removePending { $0.localIndex == receiverIndex }
            return [.rejected(address, .invalidEphemeralKey(claimedPeer: sender))]
        }
        pending.remove(at: position)
        let session = Session(
            localIndex: receiverIndex, remoteIndex: response.senderIndex, sendKey: keys.initiatorToResponder,
            receiveKey: keys.responderToInitiator, createdAt: now, isInitiator: true)
        indexOwners[receiverIndex] = .session(sender)
        var out = install(
            session, peer: sender, incarnation: response.incarnation, role: response.role,
            address: address, now: now)
        // An immediate keepalive on the new session confirms it to the responder, which only then counts it (and, for
        // a rekey, keeps sending on the old session until then).
        if let keepalive = try? send([], to: sender, now: now) { out += keepalive }
        return out
    }

    /// Puts a freshly made, confirmed session into the peer table and says what the shell should learn: the initiator
    /// calls it on a valid response, the responder on the initiator's first authenticated transport message.
    mutating func install(
        _ session: Session, peer id: NodeID, incarnation peerIncarnation: Incarnation, role peerRole: NodeRole,
        address: Address, now: MeshInstant
    ) -> [Directive] {
        indexOwners[session.localIndex] = .session(id)
        if var peer = peers[id], peer.incarnation == peerIncarnation {
            peer.address = address
            peer.role = peerRole
            let currentUsable = peer.current.map { !isExpired($0, now) } ?? false
            let out: Directive
            if let old = peer.previous { indexOwners[old.localIndex] = nil }
            if currentUsable {
                // The replaced session keeps decrypting what is still in flight on it until it expires.
                peer.previous = peer.current
                out = .rekeyed(id)
            } else {
                if let c = peer.current { indexOwners[c.localIndex] = nil }
                peer.previous = nil
                out = .established(
                    PeerInfo(
                        id: id, incarnation: peerIncarnation, role: peerRole, address: address, previousIncarnation: nil
                    ))
            }
            peer.current = session
            peers[id] = peer
            sessionSweepAt = nil
            return [out]
        }
        let previousIncarnation = peers[id]?.incarnation
        if let old = peers[id] {
            for s in old.allSessions { indexOwners[s.localIndex] = nil }
        }
        peers[id] = Peer(
            id: id, incarnation: peerIncarnation, role: peerRole, address: address, current: session,
            establishedAt: now, lastReceived: nil)
        sessionSweepAt = nil
        return [
            .established(
                PeerInfo(
                    id: id, incarnation: peerIncarnation, role: peerRole, address: address,
                    previousIncarnation: previousIncarnation))
        ]
    }
}
