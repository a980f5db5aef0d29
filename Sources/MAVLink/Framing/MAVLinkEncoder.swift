/// Builds frames: pure static builders, plus a small stateful sender (sequence counter and signer).
///
/// MAVLink 2 frames carry the payload with trailing zero bytes removed (at least one byte is kept),
/// the checksum over header and truncated payload plus CRC_EXTRA, and — when signing — the signed flag
/// and the 13-byte trailer.
public struct MAVLinkEncoder: Sendable {
    /// Errors building a frame.
    public enum Error: Swift.Error, Hashable, Sendable {
        /// The message id has no CRC_EXTRA in the dialect, so no valid checksum can be made.
        case unknownMessageID(UInt32)
        /// MAVLink 1 carries only 8-bit message ids.
        case messageIDTooLargeForMAVLink1(UInt32)
        /// A payload longer than 255 bytes.
        case payloadTooLong(Int)
    }

    /// System id written into every frame.
    public var systemID: UInt8
    /// Component id written into every frame.
    public var componentID: UInt8
    /// The sequence number of the next frame.
    public var sequence: UInt8
    /// When set, every frame is signed with rising timestamps.
    public var signing: MAVLinkSigning?
    /// Used to find CRC_EXTRA for ``MAVLinkMessage`` values.
    public var dialect: MAVLinkDialect

    /// Creates a sender.
    public init(
        systemID: UInt8, componentID: UInt8, sequence: UInt8 = 0, signing: MAVLinkSigning? = nil,
        dialect: MAVLinkDialect = .common
    ) {
        self.systemID = systemID
        self.componentID = componentID
        self.sequence = sequence
        self.signing = signing
        self.dialect = dialect
    }

    /// The next frame for `message`; `now` is used only to timestamp signatures.
    public mutating func frame(for message: some MAVLinkMessageType, now: MAVLinkTimestamp) -> MAVLinkFrame {
        let params = signing?.nextParameters(now: now)
        defer { sequence &+= 1 }
        return Self.frame(for: message, sysid: systemID, compid: componentID, seq: sequence, signing: params)
    }

    /// The next frame for a ``MAVLinkMessage`` (including `.unknown` ids the dialect knows).
    public mutating func frame(for message: MAVLinkMessage, now: MAVLinkTimestamp) throws(Error) -> MAVLinkFrame {
        guard let info = dialect.info(for: message.id) else { throw .unknownMessageID(message.id) }
        let payload = message.encodedPayload()
        guard payload.count <= 255 else { throw .payloadTooLong(payload.count) }
        let params = signing?.nextParameters(now: now)
        defer { sequence &+= 1 }
        return Self.frame(
            messageID: info.id, crcExtra: info.crcExtra, payload: payload, sysid: systemID,
            compid: componentID, seq: sequence, signing: params)
    }

    /// The serialized bytes of the next frame for `message`.
    public mutating func encode(_ message: some MAVLinkMessageType, now: MAVLinkTimestamp) -> [UInt8] {
        frame(for: message, now: now).bytes
    }

    /// A MAVLink 2 frame for `message` (pure: every header value and the signing timestamp are given).
    public static func frame(
        for message: some MAVLinkMessageType, sysid: UInt8, compid: UInt8, seq: UInt8,
        signing: MAVLinkSignatureParameters? = nil
    ) -> MAVLinkFrame {
        frame(
            messageID: type(of: message).id, crcExtra: type(of: message).crcExtra,
            payload: message.encodedPayload(), sysid: sysid, compid: compid, seq: seq, signing: signing)
    }

    /// A MAVLink 2 frame from a raw payload (truncated here), `crcExtra` and header values.
    /// Payload bytes beyond 255 are not sent.
    public static func frame(
        messageID: UInt32, crcExtra: UInt8, payload: [UInt8], sysid: UInt8, compid: UInt8,
        seq: UInt8, compatFlags: UInt8 = 0,
        signing: MAVLinkSignatureParameters? = nil
    ) -> MAVLinkFrame {
        var length = min(payload.count, 255)
        while length > 1 && payload[length - 1] == 0 { length -= 1 }
        let body = length == payload.count ? payload : Array(payload[0..<length])
        var frame = MAVLinkFrame(
            version: .v2, incompatFlags: signing == nil ? 0 : MAVLinkFrame.incompatFlagSigned,
            compatFlags: compatFlags, sequence: seq, systemID: sysid, componentID: compid,
            messageID: messageID & 0xFF_FFFF, payload: body, checksum: 0)
        frame.checksum = frame.computeChecksum(crcExtra: crcExtra)
        if let signing { frame.signature = MAVLinkSigning.signature(for: frame, parameters: signing) }
        return frame
    }

    /// A MAVLink 1 frame for `message`: the payload without extension fields, untruncated.
    /// - Throws: ``Error/messageIDTooLargeForMAVLink1(_:)`` for ids above 255.
    public static func mavlink1Frame<M: MAVLinkMessageType>(
        for message: M, sysid: UInt8, compid: UInt8,
        seq: UInt8
    ) throws(Error) -> MAVLinkFrame {
        guard M.id <= 255 else { throw .messageIDTooLargeForMAVLink1(M.id) }
        let payload = Array(message.encodedPayload().prefix(M.minPayloadLength))
        var frame = MAVLinkFrame(
            version: .v1, sequence: seq, systemID: sysid, componentID: compid,
            messageID: M.id, payload: payload, checksum: 0)
        frame.checksum = frame.computeChecksum(crcExtra: M.crcExtra)
        return frame
    }
}
