/// The secure transport's timings and limits. The defaults follow WireGuard's.
public struct SecureTransportConfiguration: Sendable, Hashable {
    /// The initiator of a session starts a new handshake once the session is this old. Default 120 s.
    public var rekeyAfter: Duration
    /// If the initiator has not rekeyed (it may have forgotten us), the responder starts one itself at this age.
    /// Default 150 s.
    public var responderRekeyAfter: Duration
    /// A session this old is never used again, for sending or receiving. Default 180 s.
    public var rejectAfter: Duration
    /// The initiator rekeys once it has sent this many messages on a session. Default 2^60.
    public var rekeyAfterMessages: UInt64
    /// No message is sent or accepted with a counter at or above this. Default 2^64 − 2^13 − 1.
    public var rejectAfterMessages: UInt64
    /// First retransmission delay of an unanswered initiation. Default 250 ms.
    public var handshakeRetransmitInitial: Duration
    /// The retransmission delay doubles up to this. Default 2 s.
    public var handshakeRetransmitMax: Duration
    /// A handshake unanswered this long is abandoned. Default 90 s.
    public var handshakeAttemptTimeout: Duration

    /// A configuration; every parameter defaults to the documented value.
    public init(
        rekeyAfter: Duration = .seconds(120),
        responderRekeyAfter: Duration = .seconds(150),
        rejectAfter: Duration = .seconds(180),
        rekeyAfterMessages: UInt64 = 1 << 60,
        rejectAfterMessages: UInt64 = UInt64.max - (1 << 13),
        handshakeRetransmitInitial: Duration = .milliseconds(250),
        handshakeRetransmitMax: Duration = .seconds(2),
        handshakeAttemptTimeout: Duration = .seconds(90)
    ) {
        self.rekeyAfter = rekeyAfter
        self.responderRekeyAfter = responderRekeyAfter
        self.rejectAfter = rejectAfter
        self.rekeyAfterMessages = rekeyAfterMessages
        self.rejectAfterMessages = rejectAfterMessages
        self.handshakeRetransmitInitial = handshakeRetransmitInitial
        self.handshakeRetransmitMax = handshakeRetransmitMax
        self.handshakeAttemptTimeout = handshakeAttemptTimeout
    }

    /// The defaults.
    public static let `default` = SecureTransportConfiguration()
}
