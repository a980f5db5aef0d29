/// The receiving side of MAVLink 2 signing: checks signatures and per-stream timestamp order.
///
/// Rules (MAVLink 2 message signing):
/// 1. The signature must equal the first 48 bits of SHA-256(key ‖ header ‖ payload ‖ CRC ‖ link id ‖ timestamp).
/// 2. A stream is (system id, component id, link id). For a known stream the timestamp must be strictly greater
///    than the last accepted one (equal or older: replay). For a new stream the timestamp may be at most
///    60 s (6,000,000 units) behind local time `now`.
/// 3. Unsigned frames are rejected unless the policy accepts them (or their id is in `unsignedMessageIDs`).
/// Rejected frames never change stream state. Time is injected through `now`.
public struct MAVLinkSignatureVerifier: Sendable {
    /// How unsigned frames are treated.
    public enum Policy: Sendable, Hashable {
        /// Every frame must be signed (except ids in `unsignedMessageIDs`).
        case requireSigned
        /// Unsigned frames pass; signed frames are still verified.
        case acceptUnsigned
    }

    /// Why a frame was rejected.
    public enum Rejection: Error, Hashable, Sendable {
        /// The frame is unsigned and the policy requires signing.
        case unsigned(messageID: UInt32)
        /// The signed flag is set but no trailer is present.
        case missingSignature
        /// The signature does not match the key.
        case badSignature(expected: UInt64, found: UInt64)
        /// Timestamp not greater than the last one accepted on this stream (replay or reordering).
        case timestampNotIncreasing(stream: StreamID, last: MAVLinkTimestamp, found: MAVLinkTimestamp)
        /// First frame of a stream more than ``MAVLinkSignatureVerifier/newStreamTolerance`` behind `now`.
        case timestampTooOld(stream: StreamID, now: MAVLinkTimestamp, found: MAVLinkTimestamp)
        /// The stream table is full (see `maxStreams`).
        case tooManyStreams(limit: Int)
    }

    /// How a frame was accepted.
    public enum Acceptance: Sendable, Hashable {
        /// Signature and timestamp checked.
        case signed(StreamID, MAVLinkTimestamp)
        /// Unsigned frame let through by policy.
        case unsigned
    }

    /// One signing stream.
    public struct StreamID: Sendable, Hashable {
        /// Sender system id.
        public var systemID: UInt8
        /// Sender component id.
        public var componentID: UInt8
        /// Link id from the trailer.
        public var linkID: UInt8

        /// Creates a stream id.
        public init(systemID: UInt8, componentID: UInt8, linkID: UInt8) {
            self.systemID = systemID
            self.componentID = componentID
            self.linkID = linkID
        }
    }

    /// How far behind local time a new stream's first timestamp may be: 60 s.
    public static let newStreamTolerance: UInt64 = 6_000_000

    /// The shared secret.
    public var key: MAVLinkSigningKey
    /// Treatment of unsigned frames.
    public var policy: Policy
    /// Message ids accepted unsigned even under `.requireSigned` (e.g. RADIO_STATUS from a radio modem).
    public var unsignedMessageIDs: Set<UInt32>
    /// Maximum number of streams remembered; new streams beyond it are rejected.
    public var maxStreams: Int
    /// Last accepted timestamp per stream.
    public private(set) var streams: [StreamID: MAVLinkTimestamp] = [:]
    /// Frames accepted so far.
    public private(set) var acceptedCount = 0
    /// Frames rejected so far.
    public private(set) var rejectedCount = 0

    /// Creates a verifier.
    public init(
        key: MAVLinkSigningKey, policy: Policy = .requireSigned, unsignedMessageIDs: Set<UInt32> = [],
        maxStreams: Int = 256
    ) {
        self.key = key
        self.policy = policy
        self.unsignedMessageIDs = unsignedMessageIDs
        self.maxStreams = maxStreams
    }

    /// Checks `frame` at local time `now`; on success records its timestamp for the stream.
    public mutating func verify(_ frame: MAVLinkFrame, now: MAVLinkTimestamp) throws(Rejection) -> Acceptance {
        do {
            let result = try check(frame, now: now)
            acceptedCount += 1
            return result
        } catch {
            rejectedCount += 1
            throw error
        }
    }

    private mutating func check(_ frame: MAVLinkFrame, now: MAVLinkTimestamp) throws(Rejection) -> Acceptance {
        guard frame.isSigned else {
            if policy == .acceptUnsigned || unsignedMessageIDs.contains(frame.messageID) { return .unsigned }
            throw .unsigned(messageID: frame.messageID)
        }
        guard let signature = frame.signature else { throw .missingSignature }
        let expected = MAVLinkSigning.signatureValue(
            key: key, signedBytes: frame.bytesBeforeSignature,
            linkID: signature.linkID, timestamp: signature.timestamp)
        guard expected == signature.value else { throw .badSignature(expected: expected, found: signature.value) }
        let stream = StreamID(systemID: frame.systemID, componentID: frame.componentID, linkID: signature.linkID)
        if let last = streams[stream] {
            guard signature.timestamp > last else {
                throw .timestampNotIncreasing(stream: stream, last: last, found: signature.timestamp)
            }
        } else {
            guard signature.timestamp.rawValue &+ Self.newStreamTolerance >= now.rawValue else {
                throw .timestampTooOld(stream: stream, now: now, found: signature.timestamp)
            }
            guard streams.count < maxStreams else { throw .tooManyStreams(limit: maxStreams) }
        }
        streams[stream] = signature.timestamp
        return .signed(stream, signature.timestamp)
    }
}
