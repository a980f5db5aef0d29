/// A streaming MAVLink 1/2 frame parser (sans-IO): feed bytes, take frames and drop reports.
///
/// The parser scans for a start marker (0xFD, or 0xFE when MAVLink 1 is accepted), waits until the whole
/// candidate frame is buffered, then checks the checksum with the dialect's CRC_EXTRA. A candidate that fails
/// any check costs only its start byte: scanning resumes at the next byte, so a valid frame that follows
/// (or hides inside) garbage is still found. Every rejected candidate is reported as a ``DropReason``
/// and counted in ``statistics``.
public struct MAVLinkParser: Sendable {
    /// What to do with frames whose message id the dialect does not know (their checksum cannot be checked).
    public enum UnknownMessagePolicy: Sendable, Hashable {
        /// Report ``DropReason/unknownMessageID(_:)`` and resume scanning at the next byte.
        case drop
        /// Deliver the frame with its checksum unchecked (for routers forwarding foreign dialects). Noise that
        /// starts with a start marker may then come out as bogus frames.
        case deliverUnverified
    }

    /// Parser settings.
    public struct Configuration: Sendable {
        /// Message ids whose CRC_EXTRA is known.
        public var dialect: MAVLinkDialect
        /// Treatment of unknown ids.
        public var unknownMessages: UnknownMessagePolicy
        /// Whether 0xFE MAVLink 1 frames are read (if false, 0xFE is an ordinary byte).
        public var acceptsMAVLink1: Bool
        /// Incompatibility flags this parser understands (only signing, 0x01, exists today).
        public var supportedIncompatFlags: UInt8

        /// Creates settings.
        public init(
            dialect: MAVLinkDialect = .common, unknownMessages: UnknownMessagePolicy = .drop,
            acceptsMAVLink1: Bool = true, supportedIncompatFlags: UInt8 = MAVLinkFrame.incompatFlagSigned
        ) {
            self.dialect = dialect
            self.unknownMessages = unknownMessages
            self.acceptsMAVLink1 = acceptsMAVLink1
            self.supportedIncompatFlags = supportedIncompatFlags
        }
    }

    /// Why a candidate frame was dropped.
    public enum DropReason: Error, Hashable, Sendable {
        /// Checksum mismatch (corruption, or a false start marker in garbage).
        case badChecksum(messageID: UInt32, expected: UInt16, found: UInt16)
        /// The frame sets incompatibility flags this parser does not understand; it is skipped whole.
        case unsupportedIncompatFlags(messageID: UInt32, flags: UInt8)
        /// The dialect does not know the message id, so the checksum cannot be verified.
        case unknownMessageID(UInt32)
        /// Input ended (``finish()``) inside a frame: `expected` bytes announced, `available` present.
        case truncatedFrame(expected: Int, available: Int)
    }

    /// One parser output.
    public enum Event: Sendable, Hashable {
        /// A frame whose checksum matched (or, by policy, an unverified frame of an unknown id).
        case frame(MAVLinkFrame)
        /// A candidate frame was rejected.
        case dropped(DropReason)
    }

    /// Running counts.
    public struct Statistics: Sendable, Hashable {
        /// Frames delivered.
        public var frames = 0
        /// Delivered MAVLink 1 frames (included in `frames`).
        public var mavlink1Frames = 0
        /// Delivered frames whose checksum could not be checked (unknown id, `.deliverUnverified`).
        public var unverifiedFrames = 0
        /// Bytes skipped while looking for a valid frame (garbage and rejected start bytes).
        public var bytesDiscarded = 0
        /// ``DropReason/badChecksum(messageID:expected:found:)`` count.
        public var badChecksums = 0
        /// ``DropReason/unsupportedIncompatFlags(messageID:flags:)`` count.
        public var unsupportedIncompatFlags = 0
        /// ``DropReason/unknownMessageID(_:)`` count.
        public var unknownMessageIDs = 0
        /// ``DropReason/truncatedFrame(expected:available:)`` count.
        public var truncatedFrames = 0

        /// Total drops of all reasons.
        public var drops: Int { badChecksums + unsupportedIncompatFlags + unknownMessageIDs + truncatedFrames }
    }

    /// Settings.
    public var configuration: Configuration
    /// Counts since creation.
    public private(set) var statistics = Statistics()

    private var buffer: [UInt8] = []
    private var start = 0

    /// Creates a parser.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Bytes buffered but not yet consumed (part of an incomplete frame, or not yet scanned).
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds bytes to the input; take results with ``next()``.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start * 2 >= buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds bytes and returns every event they complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        append(bytes)
        var events: [Event] = []
        while let e = next() { events.append(e) }
        return events
    }

    /// The next event, or nil when more input is needed.
    public mutating func next() -> Event? { step(atEnd: false) }

    /// Declares end of input (e.g. the end of a UDP datagram): an incomplete frame at the front is reported as
    /// truncated, scanning continues after its start byte, and the buffer is left empty.
    public mutating func finish() -> [Event] {
        var events: [Event] = []
        while let e = step(atEnd: true) { events.append(e) }
        statistics.bytesDiscarded += buffer.count - start
        buffer.removeAll(keepingCapacity: true)
        start = 0
        return events
    }

    private mutating func step(atEnd: Bool) -> Event? {
        let acceptV1 = configuration.acceptsMAVLink1
        while true {
            // Scan for a start marker.
            let count = buffer.count
            var pos = start
            buffer.withUnsafeBufferPointer { buf in
                while pos < count {
                    let b = buf[pos]
                    if b == MAVLinkFrame.startMarkerV2 || (acceptV1 && b == MAVLinkFrame.startMarkerV1) { break }
                    pos += 1
                }
            }
            statistics.bytesDiscarded += pos - start
            start = pos
            guard pos < count else { return nil }

            let isV2 = buffer[pos] == MAVLinkFrame.startMarkerV2
            let headerLength = isV2 ? MAVLinkFrame.headerLengthV2 : MAVLinkFrame.headerLengthV1
            let available = count - pos
            var total = headerLength + 2
            if available >= 3 {
                total += Int(buffer[pos + 1])
                if isV2 && buffer[pos + 2] & MAVLinkFrame.incompatFlagSigned != 0 {
                    total += MAVLinkFrame.signatureLength
                }
            }
            guard available >= headerLength, available >= total else {
                guard atEnd else { return nil }
                skipStartByte()
                statistics.truncatedFrames += 1
                return .dropped(.truncatedFrame(expected: max(total, headerLength + 2), available: available))
            }
            return candidate(at: pos, isV2: isV2, total: total)
        }
    }

    private mutating func skipStartByte() {
        start += 1
        statistics.bytesDiscarded += 1
    }

    /// Examines a fully buffered candidate at `pos`: delivers it or reports why it was dropped.
    private mutating func candidate(at pos: Int, isV2: Bool, total: Int) -> Event {
        let headerLength = isV2 ? MAVLinkFrame.headerLengthV2 : MAVLinkFrame.headerLengthV1
        let (frame, crcExtraKnown, expectedCRC): (MAVLinkFrame, Bool, UInt16) = buffer.withUnsafeBufferPointer { buf in
            let len = Int(buf[pos + 1])
            let messageID: UInt32
            var frame: MAVLinkFrame
            let payloadStart = pos + headerLength
            let payload = Array(buf[payloadStart..<(payloadStart + len)])
            let crcAt = payloadStart + len
            let found = UInt16(buf[crcAt]) | UInt16(buf[crcAt + 1]) << 8
            if isV2 {
                messageID = UInt32(buf[pos + 7]) | UInt32(buf[pos + 8]) << 8 | UInt32(buf[pos + 9]) << 16
                frame = MAVLinkFrame(
                    version: .v2, incompatFlags: buf[pos + 2], compatFlags: buf[pos + 3],
                    sequence: buf[pos + 4], systemID: buf[pos + 5], componentID: buf[pos + 6],
                    messageID: messageID, payload: payload, checksum: found)
                if buf[pos + 2] & MAVLinkFrame.incompatFlagSigned != 0 {
                    frame.signature = MAVLinkSignature(
                        bytes: buf[(crcAt + 2)..<(crcAt + 2 + MAVLinkFrame.signatureLength)])
                }
            } else {
                messageID = UInt32(buf[pos + 5])
                frame = MAVLinkFrame(
                    version: .v1, sequence: buf[pos + 2], systemID: buf[pos + 3],
                    componentID: buf[pos + 4], messageID: messageID, payload: payload, checksum: found)
            }
            guard let crcExtra = configuration.dialect.lookupCRCExtra(messageID) else { return (frame, false, 0) }
            var crc = MAVLinkCRC()
            crc.update(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buf[(pos + 1)..<crcAt])))
            crc.update(crcExtra)
            return (frame, true, crc.value)
        }
        if !crcExtraKnown {
            if configuration.unknownMessages == .drop {
                skipStartByte()
                statistics.unknownMessageIDs += 1
                return .dropped(.unknownMessageID(frame.messageID))
            }
        } else if expectedCRC != frame.checksum {
            skipStartByte()
            statistics.badChecksums += 1
            return .dropped(.badChecksum(messageID: frame.messageID, expected: expectedCRC, found: frame.checksum))
        }
        let unsupported = frame.incompatFlags & ~configuration.supportedIncompatFlags
        if unsupported != 0 {
            if crcExtraKnown {
                // A genuine frame (checksum matched) we must not interpret: skip it whole.
                start = pos + total
                statistics.bytesDiscarded += total
            } else {
                skipStartByte()
            }
            statistics.unsupportedIncompatFlags += 1
            return .dropped(.unsupportedIncompatFlags(messageID: frame.messageID, flags: frame.incompatFlags))
        }
        start = pos + total
        statistics.frames += 1
        if !isV2 { statistics.mavlink1Frames += 1 }
        if !crcExtraKnown { statistics.unverifiedFrames += 1 }
        return .frame(frame)
    }
}
