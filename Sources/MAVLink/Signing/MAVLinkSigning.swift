import Crypto

/// What signs one outgoing frame: key, link id and the exact timestamp to put in the trailer.
public struct MAVLinkSignatureParameters: Sendable, Hashable {
    /// The secret key.
    public var key: MAVLinkSigningKey
    /// The link id written into the trailer.
    public var linkID: UInt8
    /// The timestamp written into the trailer.
    public var timestamp: MAVLinkTimestamp

    /// Creates signing parameters.
    public init(key: MAVLinkSigningKey, linkID: UInt8, timestamp: MAVLinkTimestamp) {
        self.key = key
        self.linkID = linkID
        self.timestamp = timestamp
    }
}

/// The sending side of MAVLink 2 signing: a key, a link id and a timestamp that never repeats.
///
/// Time is injected: each ``nextParameters(now:)`` call returns `max(now, last + 1)`, so frames sent in the
/// same 10 µs tick (or after the clock stepped back) still carry strictly rising timestamps.
public struct MAVLinkSigning: Sendable {
    /// The secret key.
    public var key: MAVLinkSigningKey
    /// The link id this signer writes.
    public var linkID: UInt8
    /// The last timestamp handed out, if any.
    public private(set) var lastTimestamp: MAVLinkTimestamp?

    /// Creates a signer; `lastTimestamp` may be restored from persistent storage to survive restarts.
    public init(key: MAVLinkSigningKey, linkID: UInt8, lastTimestamp: MAVLinkTimestamp? = nil) {
        self.key = key
        self.linkID = linkID
        self.lastTimestamp = lastTimestamp
    }

    /// Parameters for the next frame: the timestamp is `now`, or one more than the last one if that is later.
    public mutating func nextParameters(now: MAVLinkTimestamp) -> MAVLinkSignatureParameters {
        var ts = now
        if let last = lastTimestamp, ts <= last { ts = MAVLinkTimestamp(rawValue: last.rawValue &+ 1) }
        lastTimestamp = ts
        return MAVLinkSignatureParameters(key: key, linkID: linkID, timestamp: ts)
    }

    /// The 48-bit signature: the first 6 bytes of SHA-256(key ‖ header ‖ payload ‖ CRC ‖ link id ‖ timestamp),
    /// as a little-endian number. `signedBytes` is header (with start marker) ‖ payload ‖ CRC.
    public static func signatureValue(
        key: MAVLinkSigningKey, signedBytes: [UInt8], linkID: UInt8,
        timestamp: MAVLinkTimestamp
    ) -> UInt64 {
        var hasher = SHA256()
        key.bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        signedBytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        var tail = [UInt8](repeating: 0, count: 7)
        tail[0] = linkID
        for i in 0..<6 { tail[1 + i] = UInt8(truncatingIfNeeded: timestamp.rawValue >> (8 * UInt64(i))) }
        tail.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        let digest = hasher.finalize()
        var value: UInt64 = 0
        digest.withUnsafeBytes { raw in
            for i in 0..<6 { value |= UInt64(raw[i]) << (8 * UInt64(i)) }
        }
        return value
    }

    /// The signature trailer for `frame` (whose checksum must already be set) under `parameters`.
    public static func signature(for frame: MAVLinkFrame, parameters: MAVLinkSignatureParameters) -> MAVLinkSignature {
        let value = signatureValue(
            key: parameters.key, signedBytes: frame.bytesBeforeSignature,
            linkID: parameters.linkID, timestamp: parameters.timestamp)
        return MAVLinkSignature(linkID: parameters.linkID, timestamp: parameters.timestamp, value: value)
    }
}
