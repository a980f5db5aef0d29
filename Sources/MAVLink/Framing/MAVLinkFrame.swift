/// One MAVLink packet: header fields, the payload exactly as carried, checksum and optional signature.
///
/// MAVLink 2 layout (little-endian):
/// ```
/// 0xFD | len | incompat | compat | seq | sysid | compid | msgid (3) | payload (len) | crc (2) | [signature (13)]
/// ```
/// MAVLink 1 layout: `0xFE | len | seq | sysid | compid | msgid (1) | payload (len) | crc (2)`.
/// The checksum covers every byte after the start marker up to the payload's end, then CRC_EXTRA.
public struct MAVLinkFrame: Sendable, Hashable {
    /// Protocol version of a frame.
    public enum Version: Sendable, Hashable {
        /// MAVLink 1 (start marker 0xFE, 8-bit message id, no flags, no signing).
        case v1
        /// MAVLink 2 (start marker 0xFD, 24-bit message id, flags, optional signature).
        case v2
    }

    /// MAVLink 2 start marker.
    public static let startMarkerV2: UInt8 = 0xFD
    /// MAVLink 1 start marker.
    public static let startMarkerV1: UInt8 = 0xFE
    /// Incompatibility flag: the frame carries a 13-byte signature.
    public static let incompatFlagSigned: UInt8 = 0x01
    /// Header length (including the start marker) for MAVLink 2.
    public static let headerLengthV2 = 10
    /// Header length (including the start marker) for MAVLink 1.
    public static let headerLengthV1 = 6
    /// Signature trailer length.
    public static let signatureLength = 13

    /// Protocol version.
    public var version: Version
    /// Incompatibility flags (MAVLink 2; always 0 for MAVLink 1).
    public var incompatFlags: UInt8
    /// Compatibility flags (MAVLink 2; always 0 for MAVLink 1).
    public var compatFlags: UInt8
    /// Sequence number (per sender, wraps at 255).
    public var sequence: UInt8
    /// Sender system id.
    public var systemID: UInt8
    /// Sender component id.
    public var componentID: UInt8
    /// Message id (24 bits for MAVLink 2, 8 bits for MAVLink 1).
    public var messageID: UInt32
    /// The payload as carried (MAVLink 2 payloads may be zero-truncated).
    public var payload: [UInt8]
    /// The frame checksum as carried.
    public var checksum: UInt16
    /// The signature trailer, present when `incompatFlags` has ``incompatFlagSigned``.
    public var signature: MAVLinkSignature?

    /// Creates a frame from its parts; no checksum is computed (see ``MAVLinkEncoder``).
    public init(
        version: Version = .v2, incompatFlags: UInt8 = 0, compatFlags: UInt8 = 0, sequence: UInt8,
        systemID: UInt8, componentID: UInt8, messageID: UInt32, payload: [UInt8], checksum: UInt16,
        signature: MAVLinkSignature? = nil
    ) {
        self.version = version
        self.incompatFlags = incompatFlags
        self.compatFlags = compatFlags
        self.sequence = sequence
        self.systemID = systemID
        self.componentID = componentID
        self.messageID = messageID
        self.payload = payload
        self.checksum = checksum
        self.signature = signature
    }

    /// Whether the signed flag is set.
    public var isSigned: Bool { version == .v2 && incompatFlags & Self.incompatFlagSigned != 0 }

    /// Header bytes including the start marker.
    public var header: [UInt8] {
        let len = UInt8(truncatingIfNeeded: payload.count)
        switch version {
        case .v1:
            return [Self.startMarkerV1, len, sequence, systemID, componentID, UInt8(truncatingIfNeeded: messageID)]
        case .v2:
            return [
                Self.startMarkerV2, len, incompatFlags, compatFlags, sequence, systemID, componentID,
                UInt8(truncatingIfNeeded: messageID), UInt8(truncatingIfNeeded: messageID >> 8),
                UInt8(truncatingIfNeeded: messageID >> 16),
            ]
        }
    }

    /// The checksum this frame's header and payload should carry for `crcExtra`.
    public func computeChecksum(crcExtra: UInt8) -> UInt16 {
        var crc = MAVLinkCRC()
        header.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
        payload.withUnsafeBytes { crc.update($0) }
        crc.update(crcExtra)
        return crc.value
    }

    /// Header, payload and checksum: the bytes a signature covers (after the key).
    public var bytesBeforeSignature: [UInt8] {
        var out = header
        out.reserveCapacity(out.count + payload.count + 2 + Self.signatureLength)
        out.append(contentsOf: payload)
        out.append(UInt8(truncatingIfNeeded: checksum))
        out.append(UInt8(truncatingIfNeeded: checksum >> 8))
        return out
    }

    /// The frame on the wire. A signature is appended only when the signed flag is set.
    public var bytes: [UInt8] {
        var out = bytesBeforeSignature
        if isSigned, let signature { out.append(contentsOf: signature.bytes) }
        return out
    }

    /// Decodes the payload into a ``MAVLinkMessage`` (`.unknown` for ids without a generated type).
    public var message: MAVLinkMessage { MAVLinkMessage(id: messageID, payload: payload) }

    /// Decodes the payload as `type`.
    /// - Throws: ``MAVLinkDecodingError/messageIDMismatch(expected:found:)`` if the frame carries another id.
    public func decode<M: MAVLinkMessageType>(_ type: M.Type) throws(MAVLinkDecodingError) -> M {
        guard messageID == M.id else { throw .messageIDMismatch(expected: M.id, found: messageID) }
        return M(payload: payload)
    }
}

/// Why a frame could not be decoded as a requested message type.
public enum MAVLinkDecodingError: Error, Hashable, Sendable {
    /// The frame's message id is not the requested type's id.
    case messageIDMismatch(expected: UInt32, found: UInt32)
}

/// The 13-byte MAVLink 2 signature trailer: link id, 48-bit timestamp, 48-bit truncated SHA-256.
public struct MAVLinkSignature: Sendable, Hashable {
    /// Link id (chosen by the sender per physical/logical link).
    public var linkID: UInt8
    /// Timestamp in 10 µs units since 2015-01-01 00:00 UTC (48 bits).
    public var timestamp: MAVLinkTimestamp
    /// The first 6 bytes of the SHA-256 digest, little-endian in the low 48 bits.
    public var value: UInt64

    /// Creates a signature trailer.
    public init(linkID: UInt8, timestamp: MAVLinkTimestamp, value: UInt64) {
        self.linkID = linkID
        self.timestamp = timestamp
        self.value = value & 0xFFFF_FFFF_FFFF
    }

    /// Reads a trailer from exactly 13 bytes.
    public init(bytes: some Collection<UInt8>) {
        var it = bytes.makeIterator()
        let link = it.next() ?? 0
        var ts: UInt64 = 0
        for i in 0..<6 { ts |= UInt64(it.next() ?? 0) << (8 * UInt64(i)) }
        var v: UInt64 = 0
        for i in 0..<6 { v |= UInt64(it.next() ?? 0) << (8 * UInt64(i)) }
        self.init(linkID: link, timestamp: MAVLinkTimestamp(rawValue: ts), value: v)
    }

    /// The 13 trailer bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = [linkID]
        for i in 0..<6 { out.append(UInt8(truncatingIfNeeded: timestamp.rawValue >> (8 * UInt64(i)))) }
        for i in 0..<6 { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
        return out
    }
}
