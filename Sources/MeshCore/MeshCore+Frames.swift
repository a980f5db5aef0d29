import Membership
import MeshTypes
import NIOCore
import SecureTransport

/// A session's frames: what arrives (heartbeats, replies, reliable messages and acknowledgements) and what leaves,
/// packed into as few sealed datagrams as fit.
extension MeshCore {
    mutating func deliver(
        _ plaintext: UnsafeRawBufferPointer, from peer: NodeID, now t: MeshInstant, into out: inout [Directive]
    ) {
        let frames: [Frame]
        do {
            frames = try Frame.decodeAll(plaintext)
        } catch {
            out.append(.note(.warning, "malformed frames from \(peer): \(error)"))
            return
        }
        // What the datagram's frames call for leaves together, after all of them: heartbeat replies, retransmissions
        // and one acknowledgement (each is cumulative with the selective map, so the last one says all the earlier
        // ones said). A datagram of retransmitted messages once drew an acknowledgement datagram per message.
        var replies: [Frame] = []
        var acknowledgement: Frame?
        for frame in frames {
            switch frame {
            case .heartbeat(let id, let sent):
                if rhythm.answers(id, from: peer, interval: membership.configuration.heartbeatInterval, now: t) {
                    replies.append(.heartbeatReply(id: id, sentAtMicros: sent))
                }
                clocks[peer, default: PeerClock()].onHeartbeat(sentAtMicros: sent, now: arrival ?? t)
            case .heartbeatReply(let id, let sent):
                let rtt = Duration.microseconds(Int64((arrival ?? t).nanoseconds / 1000) - Int64(sent))
                if rtt >= .zero {
                    membership.onHeartbeatReply(
                        id: peer, rtt: rtt, asked: id & UnicastRhythm.quietBit == 0, now: t)
                    roundTrips.record(rtt)
                    clocks[peer, default: PeerClock()].onRoundTrip(rtt, now: t)
                }
                // The peer hears us: whatever waited in the reliable window through a one-way outage goes now.
                resumeChannel(with: peer, .heard, now: t, into: &out)
            case .goodbye:
                apply(membership.onGoodbye(id: peer, now: t), now: t, into: &out)
            case .echo:
                // Echoes belong to group datagrams.
                break
            case .reliable, .ack:
                guard let actions = channels[peer]?.receive(frame: frame, now: t) else { continue }
                perform(actions, peer: peer, now: t, into: &out, leaving: &replies, acknowledgement: &acknowledgement)
            case .unreliable(let type, let payload):
                handleMessage(type: type, payload: payload, from: peer, reliable: false, into: &out)
            }
        }
        if let acknowledgement { replies.append(acknowledgement) }
        if !replies.isEmpty { sendFrames(replies, to: peer, now: t, into: &out) }
    }

    /// Resends what waits in `peer`'s reliable window (`ReliableChannel.Resumption` says what goes).
    mutating func resumeChannel(
        with peer: NodeID, _ why: ReliableChannel.Resumption, now t: MeshInstant, into out: inout [Directive]
    ) {
        guard let inFlight = channels[peer]?.inFlight, inFlight > 0,
            let actions = channels[peer]?.resume(now: t, why)
        else { return }
        perform(actions, peer: peer, now: t, into: &out)
    }

    mutating func perform(
        _ actions: [ReliableChannel.Action], peer: NodeID, now t: MeshInstant, into out: inout [Directive]
    ) {
        var frames: [Frame] = []
        var acknowledgement: Frame?
        perform(actions, peer: peer, now: t, into: &out, leaving: &frames, acknowledgement: &acknowledgement)
        if let acknowledgement { frames.append(acknowledgement) }
        if !frames.isEmpty { sendFrames(frames, to: peer, now: t, into: &out) }
    }

    /// Delivers what the channel delivers and collects what it transmits into `frames`, keeping only the newest
    /// acknowledgement in `acknowledgement`: the caller sends them.
    mutating func perform(
        _ actions: [ReliableChannel.Action], peer: NodeID, now t: MeshInstant, into out: inout [Directive],
        leaving frames: inout [Frame], acknowledgement: inout Frame?
    ) {
        // An acknowledgement held back (5 ms) or a retransmission timer: due before a sleeping shell would tick.
        if let due = channels[peer]?.nextDeadline { wakeBy(due) }
        for action in actions {
            switch action {
            case .transmit(let frame):
                if case .ack = frame { acknowledgement = frame } else { frames.append(frame) }
            case .deliver(let type, let payload):
                handleMessage(type: type, payload: payload, from: peer, reliable: true, into: &out)
            }
        }
    }

    mutating func handleMessage(
        type: UInt16, payload: [UInt8], from peer: NodeID, reliable: Bool, into out: inout [Directive]
    ) {
        switch type {
        case NodeMessageType.hello:
            do {
                let hello = try HelloMessage(decoding: payload)
                membership.updateIdentity(id: peer, name: hello.name, uavNumber: hello.uavNumber)
            } catch {
                out.append(.note(.warning, "malformed hello from \(peer): \(error)"))
            }
        default:
            out.append(.message(type: type, payload: payload, from: peer, reliable: reliable))
        }
    }

    /// Sends a message without delivery guarantee (telemetry, control streams).
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func sendUnreliable(_ type: UInt16, _ payload: [UInt8], to peer: NodeID, now: MeshInstant)
        -> [Directive]
    {
        var out: [Directive] = []
        sendFrames([.unreliable(type: type, payload: payload)], to: peer, now: now, into: &out)
        return out
    }

    /// Sends messages without delivery guarantee to `peer`, packed into as few datagrams as fit.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func sendUnreliable(
        _ messages: [(type: UInt16, payload: [UInt8])], to peer: NodeID, now: MeshInstant
    ) -> [Directive] {
        var out: [Directive] = []
        sendFrames(messages.map { .unreliable(type: $0.type, payload: $0.payload) }, to: peer, now: now, into: &out)
        return out
    }

    /// Packs frames into as few datagrams as fit (`datagramBudget` bytes of plaintext) and seals them for `peer`.
    mutating func sendFrames(
        _ frames: [Frame], to peer: NodeID, now t: MeshInstant, into out: inout [Directive]
    ) {
        var batch: [Frame] = []
        var size = 0
        func flush(_ out: inout [Directive]) {
            guard !batch.isEmpty else { return }
            // Framed into a buffer on the stack and sealed straight into the datagram's array (what `endpoint.send`
            // of `Frame.encode(batch)` does, with one array instead of three).
            withUnsafeTemporaryAllocation(byteCount: size, alignment: 16) { plaintext in
                do throws(SecureTransportError) {
                    let count: Int
                    do {
                        count = try Frame.encode(batch, into: plaintext)
                    } catch {
                        out.append(.note(.debug, "cannot send to \(peer): \(error)"))
                        return
                    }
                    let framed = UnsafeRawBufferPointer(rebasing: plaintext[0..<count])
                    var to: Address?
                    let datagram = try [UInt8](
                        unsafeUninitializedCapacity: SecureEndpoint<Address>.sealedSize(plaintextCount: count)
                    ) { (buffer, n) throws(SecureTransportError) in
                        let sealed = try endpoint.seal(
                            framed, to: peer, into: UnsafeMutableRawBufferPointer(buffer), now: t)
                        n = sealed.count
                        to = sealed.address
                    }
                    out.append(.send(datagram, to: to!))
                    rhythm.peers[peer, default: .init()].sent = t
                } catch {
                    out.append(.note(.debug, "cannot send to \(peer): \(error)"))
                }
            }
            batch.removeAll()
            size = 0
        }
        for frame in frames {
            if size + frame.encodedSize > Self.datagramBudget { flush(&out) }
            batch.append(frame)
            size += frame.encodedSize
        }
        flush(&out)
    }
}
