import MeshTypes

/// Reliable, ordered delivery to one peer over the unreliable secure session — pure state, time passed in.
///
/// Sender: numbers messages 1, 2, 3 …, keeps each until acknowledged, retransmits it when its timeout (from the RFC 6298
/// estimator, doubled per retransmission up to `maximumRTO`) expires, or early when a later message was selectively
/// acknowledged and it was last sent at least one smoothed RTT ago. At most `window` messages are in flight; `send`
/// throws `windowFull` beyond that (backpressure).
///
/// Receiver: delivers in sequence order exactly once, holds up to `window` messages that arrived early, drops
/// duplicates, and acknowledges with `.ack(cumulative:selective:)` — at once for out-of-order or duplicate messages,
/// after `ackEvery` in-order ones, or `ackDelay` after the first unacknowledged one.
public struct ReliableChannel: Sendable {
    /// What to do after an event.
    public enum Action: Equatable, Sendable {
        /// Put this frame into a datagram to the peer (frames of one call may share a datagram).
        case transmit(Frame)
        /// Hand this message to the application; messages come in the order the peer sent them, each once.
        case deliver(type: UInt16, payload: [UInt8])
    }

    /// Why `send` refused a message.
    public enum SendError: Error, Equatable, Sendable, CustomStringConvertible {
        /// `window` messages are already in flight; try again after acknowledgements arrive.
        case windowFull(inFlight: Int)
        /// The payload does not fit in one frame.
        case payloadTooLarge(size: Int, maximum: Int)

        /// A one-line human-readable explanation.

        public var description: String {
            switch self {
            case .windowFull(let n): "reliable channel window full: \(n) messages in flight"
            case .payloadTooLarge(let s, let m): "reliable payload of \(s) bytes exceeds the maximum of \(m)"
            }
        }
    }

    /// What a message makes obsolete: a later message with the same key (the newer link-state advertisement of one
    /// origin) supersedes an earlier one still in flight. That one keeps its sequence number, and goes again, if it
    /// must, as an empty message of type 0, which every layer ignores: an outdated copy is not worth its bytes, and
    /// under load the window holds many.
    public struct SupersedeKey: Hashable, Sendable {
        public var type: UInt16
        public var high: UInt64
        public var low: UInt64

        public init(type: UInt16, high: UInt64, low: UInt64) {
            self.type = type
            self.high = high
            self.low = low
        }
    }

    struct Outstanding: Sendable {
        let sequence: UInt64
        var type: UInt16
        var payload: [UInt8]
        let firstSentAt: MeshInstant
        var lastSentAt: MeshInstant
        var transmissions: Int
        var timeout: Duration
        var deadline: MeshInstant
    }

    struct Held: Sendable {
        let sequence: UInt64
        let type: UInt16
        let payload: [UInt8]
    }

    /// The parameters.
    public let configuration: ReliableChannelConfiguration
    /// The RTT estimator.
    public private(set) var rtt: RTTEstimator

    // Sender state.
    private var nextSequence: UInt64 = 1
    private var lowestUnacked: UInt64 = 1
    private var outstanding: [Outstanding?]
    /// No retransmission is due before this (a lower bound on the earliest deadline; nil when nothing is in flight).
    private var retransmitCheckAt: MeshInstant?
    // Receiver state.
    private var delivered: UInt64 = 0
    private var held: [Held?]
    private var heldCount = 0
    private var unacknowledged = 0
    private var ackDeadline: MeshInstant?

    /// The newest message sent with each supersede key (it may since have been acknowledged).
    private var newestByKey: [SupersedeKey: UInt64] = [:]

    /// Statistics: messages retransmitted so far.
    public private(set) var retransmissions = 0
    /// Statistics: messages in flight that a newer one superseded (each went again, if at all, empty).
    public private(set) var superseded = 0

    /// A fresh channel.
    public init(configuration: ReliableChannelConfiguration = .default) {
        self.configuration = configuration
        self.rtt = RTTEstimator(
            initial: configuration.initialRTO, minimum: configuration.minimumRTO, maximum: configuration.maximumRTO)
        self.outstanding = Array(repeating: nil, count: configuration.window)
        self.held = Array(repeating: nil, count: configuration.window)
    }

    /// Forgets everything (sequence numbers restart at 1), for when the peer restarted with a new incarnation.
    public mutating func reset() {
        self = ReliableChannel(configuration: configuration)
    }

    /// Messages sent and not yet acknowledged.
    public var inFlight: Int { Int(nextSequence - lowestUnacked) }

    /// Whether `send` would accept a message now.
    public var canSend: Bool { inFlight < configuration.window }

    /// The highest sequence delivered in order so far.
    public var deliveredThrough: UInt64 { delivered }

    /// Queues a message and returns the frame to transmit now. With `supersedes`, the message sent before it with the
    /// same key, if still in flight, is obsolete: it keeps its place, and goes again, if it must, empty (type 0).
    public mutating func send(
        type: UInt16, payload: [UInt8], now: MeshInstant, supersedes key: SupersedeKey? = nil
    ) throws(SendError) -> [Action] {
        guard canSend else { throw .windowFull(inFlight: inFlight) }
        guard payload.count <= Frame.maximumReliablePayload else {
            throw .payloadTooLarge(size: payload.count, maximum: Frame.maximumReliablePayload)
        }
        let sequence = nextSequence
        nextSequence += 1
        if let key {
            if let earlier = newestByKey[key], var o = outstanding[slot(earlier)], o.sequence == earlier,
                o.type == key.type
            {
                o.type = 0
                o.payload = []
                outstanding[slot(earlier)] = o
                superseded += 1
            }
            newestByKey[key] = sequence
        }
        let timeout = rtt.timeoutDuration
        outstanding[slot(sequence)] = Outstanding(
            sequence: sequence, type: type, payload: payload, firstSentAt: now, lastSentAt: now, transmissions: 1,
            timeout: timeout, deadline: now + timeout)
        retransmitCheckAt = min(retransmitCheckAt ?? .init(nanoseconds: .max), now + timeout)
        return [.transmit(.reliable(sequence: sequence, type: type, payload: payload))]
    }

    /// Processes a frame from the peer. Only `.reliable` and `.ack` concern the channel; other frames return nothing.
    public mutating func receive(frame: Frame, now: MeshInstant) -> [Action] {
        switch frame {
        case .reliable(let sequence, let type, let payload):
            return receiveMessage(sequence: sequence, type: type, payload: payload, now: now)
        case .ack(let cumulative, let selective):
            return receiveAck(cumulative: cumulative, selective: selective, now: now)
        default:
            return []
        }
    }

    /// Sends due acknowledgements and retransmissions.
    public mutating func tick(now: MeshInstant) -> [Action] {
        var out: [Action] = []
        if let d = ackDeadline, d <= now { out.append(takeAck()) }
        guard let check = retransmitCheckAt, check <= now else { return out }
        var earliest: MeshInstant?
        var sequence = lowestUnacked
        while sequence < nextSequence {
            let i = slot(sequence)
            if var o = outstanding[i] {
                if o.deadline <= now {
                    o.timeout = min(o.timeout * 2, configuration.maximumRTO)
                    retransmit(&o, now: now, into: &out)
                    outstanding[i] = o
                }
                earliest = min(earliest ?? o.deadline, o.deadline)
            }
            sequence += 1
        }
        retransmitCheckAt = earliest
        return out
    }

    /// Why `resume` is called: what goes again depends on what the peer may have missed.
    public enum Resumption: Sendable {
        /// The peer answered a heartbeat or completed a new session with us: it hears us. What waited at least an RTO
        /// goes again now, its timeout back to the RTO; what was sent within the RTO goes again one RTO after that
        /// send, not after a grown backoff. So each message goes at most once per RTO however often this is called.
        case heard
        /// The peer is in session again after an outage: everything in flight goes again, also what was sent just
        /// before, over a session the peer may no longer hold.
        case returned
    }

    /// The peer is known to hear us again (see `Resumption`): messages in flight go again now instead of waiting out a
    /// backoff that grew while nothing could arrive. On a healthy link no timeout has grown, so calling it on every
    /// heartbeat reply costs nothing.
    public mutating func resume(now: MeshInstant, _ why: Resumption = .heard) -> [Action] {
        guard inFlight > 0 else { return [] }
        let rto = rtt.timeoutDuration
        let spared: Duration? =
            switch why {
            case .heard: rto
            case .returned: nil
            }
        var out: [Action] = []
        var sequence = lowestUnacked
        while sequence < nextSequence {
            let i = slot(sequence)
            sequence += 1
            guard var o = outstanding[i] else { continue }
            if spared.map({ now - o.lastSentAt >= $0 }) ?? true {
                o.timeout = rto
                retransmit(&o, now: now, into: &out)
            } else if o.timeout > rto {
                // Sent just now, into the outage: it goes again one RTO after that send, not after the grown backoff.
                o.timeout = rto
                o.deadline = o.lastSentAt + rto
            } else {
                continue
            }
            outstanding[i] = o
            retransmitCheckAt = min(retransmitCheckAt ?? o.deadline, o.deadline)
        }
        return out
    }

    /// When `tick` next has work (nil: nothing pending).
    /// May be early by design after acknowledgements (a `tick` then finds nothing due and recomputes it).
    public var nextDeadline: MeshInstant? {
        switch (ackDeadline, retransmitCheckAt) {
        case (let a?, let r?): min(a, r)
        case (let a?, nil): a
        case (nil, let r): r
        }
    }

    // MARK: Receiving messages

    private mutating func receiveMessage(sequence: UInt64, type: UInt16, payload: [UInt8], now: MeshInstant) -> [Action]
    {
        let window = UInt64(configuration.window)
        // Already delivered, beyond the window, or already held: acknowledge at once so the sender stops resending.
        guard sequence > delivered, sequence - delivered <= window, held[slot(sequence)]?.sequence != sequence else {
            return [takeAck()]
        }
        // Acknowledge at once when this message is out of order or fills (part of) a gap (RFC 5681 §4.2).
        let immediate = sequence != delivered + 1 || heldCount > 0
        held[slot(sequence)] = Held(sequence: sequence, type: type, payload: payload)
        heldCount += 1
        var out: [Action] = []
        while let h = held[slot(delivered + 1)], h.sequence == delivered + 1 {
            held[slot(h.sequence)] = nil
            heldCount -= 1
            delivered = h.sequence
            out.append(.deliver(type: h.type, payload: h.payload))
        }
        unacknowledged += 1
        if immediate || unacknowledged >= configuration.ackEvery {
            out.append(takeAck())
        } else if ackDeadline == nil {
            ackDeadline = now + configuration.ackDelay
        }
        return out
    }

    /// The acknowledgement of everything received so far.
    private mutating func takeAck() -> Action {
        var selective: UInt64 = 0
        for bit in 0..<64 {
            let sequence = delivered + 1 + UInt64(bit)
            if held[slot(sequence)]?.sequence == sequence { selective |= 1 << UInt64(bit) }
        }
        unacknowledged = 0
        ackDeadline = nil
        return .transmit(.ack(cumulative: delivered, selective: selective))
    }

    // MARK: Receiving acknowledgements

    private mutating func receiveAck(cumulative: UInt64, selective: UInt64, now: MeshInstant) -> [Action] {
        // RTT sample: only from the highest sequence this ack covers, if this ack is the first to cover it and it was
        // sent once (Karn). That message most likely triggered the ack; older ones may have waited behind a hole or
        // a lost ack, which would inflate the estimate.
        let lowestBefore = lowestUnacked
        var sample: Duration?
        var highestNewlyAcked: UInt64 = 0
        func acknowledge(_ sequence: UInt64) {
            let i = slot(sequence)
            guard let o = outstanding[i], o.sequence == sequence else { return }
            if sequence > highestNewlyAcked {
                highestNewlyAcked = sequence
                sample = o.transmissions == 1 ? now - o.firstSentAt : nil
            }
            outstanding[i] = nil
        }
        // Acks for sequences never sent are ignored (a confused or stale peer).
        let cumulativeEnd = min(cumulative, nextSequence - 1)
        if cumulativeEnd >= lowestUnacked {
            for sequence in lowestUnacked...cumulativeEnd { acknowledge(sequence) }
        }
        var highestSelective: UInt64 = 0
        for bit in 0..<64 where selective & (1 << UInt64(bit)) != 0 {
            let sequence = cumulative &+ 1 &+ UInt64(bit)
            guard sequence >= lowestUnacked, sequence < nextSequence else { continue }
            acknowledge(sequence)
            highestSelective = max(highestSelective, sequence)
        }
        while lowestUnacked < nextSequence, outstanding[slot(lowestUnacked)] == nil { lowestUnacked += 1 }
        if lowestUnacked == nextSequence { retransmitCheckAt = nil }
        // …and only if the peer could have reported it earlier (within 64 of what was acknowledged before): beyond
        // that range a message received long ago is first acknowledged when a hole below it is repaired.
        let highestCovered = max(cumulativeEnd, highestSelective)
        if let sample, highestNewlyAcked == highestCovered, highestNewlyAcked <= lowestBefore + 64 {
            rtt.add(sample: sample)
        }

        // Early retransmission of holes below a selectively acknowledged message.
        var out: [Action] = []
        guard highestSelective > lowestUnacked else { return out }
        let srtt = rtt.smoothedDuration
        for sequence in lowestUnacked..<highestSelective {
            let i = slot(sequence)
            if var o = outstanding[i], now - o.lastSentAt >= srtt {
                retransmit(&o, now: now, into: &out)
                outstanding[i] = o
            }
        }
        return out
    }

    private mutating func retransmit(_ o: inout Outstanding, now: MeshInstant, into out: inout [Action]) {
        o.transmissions += 1
        o.lastSentAt = now
        o.deadline = now + o.timeout
        retransmissions += 1
        out.append(.transmit(.reliable(sequence: o.sequence, type: o.type, payload: o.payload)))
    }

    private func slot(_ sequence: UInt64) -> Int {
        Int(sequence % UInt64(configuration.window))
    }
}
